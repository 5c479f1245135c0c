//! Study files: counts derived from a study file are bounded before anything is
//! allocated. `poisson.step = 1e-12` asked for terabytes (abort), 1e-300 overflowed the count to an empty
//! study that exited 0. Now every step gives between 1 and `MAX_POISSON_VALUES` values of nu, or an
//! error naming `poisson.step` and the count it would give. A study named `../../escaped` wrote
//! outside the results folder, and a scene (or experiment value) listed twice was computed twice.

use pbdfit_study::{MAX_FITS, MAX_POISSON_VALUES, Study};
use proptest::prelude::*;

fn study(poisson: &str, experiments: &str) -> String {
    named("t", "\"gravity-floor\"", poisson, experiments)
}

fn named(name: &str, scenes: &str, poisson: &str, experiments: &str) -> String {
    format!(
        "name = {name:?}\nscenes = [{scenes}]\n[base]\ndt = 0.01\nn = 1\nnit = 1\nyoung = 1e3\n[poisson]\n\
         {poisson}\n{experiments}"
    )
}

const BASE: &str = "[[experiment]]\nname = \"base\"\n";

#[test]
fn tiny_poisson_steps_name_the_key_and_the_count() {
    let text = study("from = 0.0\nto = 0.49\nstep = 1e-9", BASE);
    let e = Study::parse(&text, "t.toml").unwrap_err().to_string();
    assert!(e.contains("t.toml") && e.contains("poisson.step") && e.contains("4.900e8 values of nu"), "{e}");
    assert!(e.contains(&MAX_POISSON_VALUES.to_string()), "{e}");
    for step in ["1e-12", "1e-300", "5e-324"] {
        let text = study(&format!("from = 0.0\nto = 0.49\nstep = {step}"), BASE);
        let e = Study::parse(&text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("t.toml") && e.contains("poisson.step") && e.contains("resolution"), "{e}");
    }
    // The fits' product: 10000 nu values x 101 experiment values.
    let values: Vec<String> = (1..=101).map(|k| format!("{}", k as f64 * 1e-4)).collect();
    let experiments = format!("[[experiment]]\nname = \"dt\"\nparameter = \"dt\"\nvalues = [{}]\n", values.join(", "));
    let text = study("from = 0.0\nto = 0.4999\nstep = 0.00005", &experiments);
    let e = Study::parse(&text, "t.toml").unwrap_err().to_string();
    assert!(e.contains("experiment") && e.contains("fits") && e.contains(&MAX_FITS.to_string()), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any positive step (log-uniform over the whole f64 range): a study with 1 to MAX_POISSON_VALUES
    /// values of nu, ascending within the range, or an error naming poisson.step.
    #[test]
    fn every_step_gives_a_bounded_nonempty_grid_or_names_the_key(exponent in -323.0f64..0.0, to in prop_oneof![0.0f64..0.49, 0.0f64..1e-6]) {
        let step = 10f64.powf(exponent);
        let text = study(&format!("from = 0.0\nto = {to:?}\nstep = {step:e}"), BASE);
        match Study::parse(&text, "t.toml") {
            Ok(s) => {
                prop_assert!(!s.poisson.is_empty() && s.poisson.len() <= MAX_POISSON_VALUES);
                prop_assert!(s.poisson.iter().all(|&nu| (0.0..=to + 1e-9).contains(&nu)));
                prop_assert!(s.poisson.windows(2).all(|w| w[0] < w[1]), "{:?}", &s.poisson[..4.min(s.poisson.len())]);
            }
            Err(e) => prop_assert!(e.to_string().contains("poisson.step"), "{}", e),
        }
    }
}

#[test]
fn names_are_file_names_and_nothing_is_listed_twice() {
    let poisson = "from = 0.0\nto = 0.2\nstep = 0.1";
    for name in ["../../escaped", "a/b", "..", "", "a\\b"] {
        let e = Study::parse(&named(name, "\"gravity-floor\"", poisson, BASE), "t.toml").unwrap_err().to_string();
        assert!(e.contains("t.toml") && e.contains("name"), "{name}: {e}");
    }
    let e = Study::parse(&named("t", "\"gravity-floor\", \"gravity-floor\"", poisson, BASE), "t.toml").unwrap_err();
    assert!(e.to_string().contains("listed twice") && e.to_string().contains("gravity-floor"), "{e}");
    let twice = "[[experiment]]\nname = \"dt\"\nparameter = \"dt\"\nvalues = [0.01, 0.001, 0.01]\n";
    let e = Study::parse(&named("t", "\"gravity-floor\"", poisson, twice), "t.toml").unwrap_err();
    assert!(e.to_string().contains("experiment[0]") && e.to_string().contains("0.01 is listed twice"), "{e}");
    assert!(Study::parse(&named("thesis-2", "\"gravity-floor\", \"gravity\"", poisson, BASE), "t.toml").is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any name: accepted only as one path component, which joined to a results folder stays in it.
    #[test]
    fn an_accepted_study_name_stays_inside_the_results_folder(
        name in prop::collection::vec(prop::sample::select(vec!["a", "-", ".", "..", "/", "\\", " ", "\t", "x_1"]), 0..5)
    ) {
        let name = name.concat();
        let results = std::path::Path::new("fits/results");
        match Study::parse(&named(&name, "\"gravity-floor\"", "from = 0.0\nto = 0.2\nstep = 0.1", BASE), "t.toml") {
            Ok(s) => {
                let out = results.join(&s.name);
                prop_assert_eq!(out.parent(), Some(results));
                prop_assert_eq!(out.components().count(), results.components().count() + 1);
                prop_assert!(s.name != "." && s.name != "..");
            }
            Err(e) => prop_assert!(e.to_string().contains("name"), "{}", e),
        }
    }
}
