//! In a gradient study with `neighbour_starts = true` each fit also
//! starts from the fit of the next lower nu of the same scene and setting (its neighbour). The chains of such fits run one after the
//! other, so the rows do not depend on the thread count or on an interruption, and each row is exactly
//! what `pbdfit fit --start` gives from its neighbour's parameters.

use crate::common::{self, Study, csv_rows, json, pbdfit, rows_without_seconds, scratch, stderr};

/// Four values of nu on the smallest mesh, two scenes.
fn chain() -> String {
    Study {
        name: "chain",
        scenes: &["gravity-floor", "gravity-wall"],
        model: Some("pbd"),
        nit: 2,
        poisson: ["0.1", "0.4", "0.1"],
        fit: "search = \"gradient\"\nneighbour_starts = true",
        ..Study::default()
    }
    .toml()
}

fn run(dir: &std::path::Path, out: &str, jobs: &str) -> std::path::PathBuf {
    run_with(dir, out, &["--jobs", jobs]).0
}

/// The study with `args`, into `dir/out`; the folder and what the run wrote to stderr.
fn run_with(dir: &std::path::Path, out: &str, args: &[&str]) -> (std::path::PathBuf, String) {
    let file = dir.join("chain.toml");
    std::fs::write(&file, chain()).unwrap();
    let out = dir.join(out);
    let o = pbdfit(&[&["study", file.to_str().unwrap(), "--out", out.to_str().unwrap()], args].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    (out, stderr(&o))
}

#[test]
fn a_gradient_study_starts_each_fit_from_its_neighbour_deterministically() {
    let dir = scratch("chain");
    let one = run(&dir, "one", "1");
    let two = run(&dir, "two", "2");
    assert_eq!(rows_without_seconds(&one), rows_without_seconds(&two), "one thread against two");
    // In lockstep (the two chains' fits on their own threads, their trials in shared batches): the same
    // rows, and a line saying what was batched.
    let (lockstep, said) = run_with(&dir, "lockstep", &["--jobs", "2", "--lockstep", "3"]);
    assert_eq!(rows_without_seconds(&one), rows_without_seconds(&lockstep), "in lockstep");
    assert!(said.contains("lockstep (dt = 0.01, N = 1, nit = 2): ") && said.contains(" batches on cpu"), "{said}");

    // Interrupted after the first two fits of each file: the resumed run reads their parameters back
    // and finishes with the same rows.
    let cut = dir.join("cut");
    std::fs::create_dir_all(&cut).unwrap();
    for entry in std::fs::read_dir(&one).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "csv") {
            let text = std::fs::read_to_string(&path).unwrap();
            let kept: Vec<&str> = text.lines().take(3).collect();
            std::fs::write(cut.join(path.file_name().unwrap()), kept.join("\n") + "\n").unwrap();
        }
    }
    let resumed = run(&dir, "cut", "2");
    assert_eq!(rows_without_seconds(&one), rows_without_seconds(&resumed), "interrupted and resumed");

    // Each row is `pbdfit fit` from its neighbour's parameters; the lowest nu has no neighbour.
    for scene in ["gravity-floor", "gravity-wall"] {
        let rows = csv_rows(&one.join(format!("{scene}-base.csv")));
        assert_eq!(rows.len(), 4);
        for (i, row) in rows.iter().enumerate() {
            let mut args = vec!["fit", "--scene", scene, "--n", "1", "--nit", "2", "--young", "1e3", "--json"];
            let poisson = row["poisson"].clone();
            args.extend(["--poisson", poisson.as_str()]);
            let start;
            if i > 0 {
                start = format!("kd={},kv={}", rows[i - 1]["kd"], rows[i - 1]["kv"]);
                args.extend(["--start", start.as_str()]);
            }
            let fit = json(&pbdfit(&args));
            let total: usize = row["starts"].split('/').nth(1).unwrap().parse().unwrap();
            assert_eq!(fit["starts"]["total"].as_u64().unwrap() as usize, total, "{scene} nu = {poisson}");
            for (column, key) in [("kd", "kd"), ("kv", "kv"), ("error", "error")] {
                let from_study: f64 = row[column].parse().unwrap();
                assert_eq!(
                    from_study.to_bits(),
                    fit[key].as_f64().unwrap().to_bits(),
                    "{scene} nu = {poisson} {column}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The option needs the gradient search, and a folder made with it is not resumed without it.
#[test]
fn neighbour_starts_need_the_gradient_search_and_are_part_of_the_folder() {
    let dir = scratch("refused");
    let file = dir.join("pattern.toml");
    std::fs::write(&file, chain().replace("search = \"gradient\"", "search = \"pattern\"")).unwrap();
    let o = pbdfit(&["study", file.to_str().unwrap(), "--out", dir.join("p").to_str().unwrap()]);
    common::assert_input_error(&o, &["fit.neighbour_starts", "gradient"]);
    let out = run(&dir, "with", "2");
    let without = dir.join("without.toml");
    std::fs::write(&without, chain().replace("neighbour_starts = true\n", "")).unwrap();
    let o = pbdfit(&["study", without.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    common::assert_input_error(&o, &["neighbour_starts true", "neighbour_starts false"]);
    let _ = std::fs::remove_dir_all(&dir);
}
