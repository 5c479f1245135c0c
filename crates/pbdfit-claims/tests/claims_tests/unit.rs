//! Each check kind on small synthetic series, and the statistics behind them.

use pbdfit_claims::{
    Check, ClaimsFile, Outcome, Results, Score, evaluate, evaluate_check, markdown_table, relative_spread, sig3,
    sign_changes, spearman,
};
use pbdfit_results::{
    BaseSettings, ExperimentLayout, FitRecord, FitStatus, ParameterLayout, Scale, SceneLayout, StudyLayout,
};

fn layout() -> StudyLayout {
    let experiment = |name: &str, setting: Option<&str>, values: Vec<f64>| ExperimentLayout {
        name: name.into(),
        setting: setting.map(String::from),
        values,
    };
    let parameter = |name: &str| ParameterLayout {
        name: name.into(),
        unit: "1".into(),
        scale: Scale::Linear,
        lower: 0.0,
        upper: 1.0,
    };
    StudyLayout {
        name: "synthetic".into(),
        description: String::new(),
        model: "pbd".into(),
        parameters: vec![parameter("kd"), parameter("kv")],
        reference: "linear static FEM".into(),
        precision: "f64".into(),
        mass_model: None,
        scenes: vec![
            SceneLayout { name: "s".into(), parts: vec![] },
            SceneLayout { name: "t".into(), parts: vec![] },
            SceneLayout { name: "c".into(), parts: vec!["s".into(), "t".into()] },
        ],
        experiments: vec![
            experiment("base", None, vec![]),
            experiment("dt", Some("dt"), vec![0.01, 0.005, 0.002]),
            experiment("n", Some("n"), vec![1.0, 2.0]),
        ],
        base: BaseSettings { dt: 0.01, n: 1, nit: 1, young: 1e3, thickness: None },
        poisson: vec![],
        grid: 21,
        min_step: 1e-4,
        search: None,
        neighbour_starts: false,
    }
}

fn record(scene: &str, experiment: &str, value: Option<f64>, nu: f64, error: f64, kd: f64) -> FitRecord {
    FitRecord {
        scene: scene.into(),
        experiment: experiment.into(),
        value,
        young: 1e3,
        poisson: nu,
        dt: 0.01,
        n: 1,
        nit: 1,
        model: "pbd".into(),
        mass_model: "lumped".into(),
        parameters: vec![("kd".into(), kd), ("kv".into(), 1.0)],
        error,
        scene_errors: vec![],
        evaluations: 1,
        failed_evaluations: 0,
        at_bound: vec![],
        condition: None,
        hessian: vec![],
        ranges: vec![],
        seconds: 0.0,
        status: FitStatus::Ok,
        message: String::new(),
        reference: "linear static".into(),
        search: None,
        thickness: None,
    }
}

const NU: [f64; 5] = [0.0, 0.1, 0.2, 0.3, 0.4];

/// Scene `s`, base: error 0.1, 0.2, 0.3, 0.4, 0.5 (rising), kd 0.5, 0.1, 0.4, 0.2, 0.3 (zigzag).
/// Scene `t`, base: error 0.05 at every nu; kd 1. Scene `s`, dt: mean error 0.3, 0.2, 0.1 for
/// dt = 0.01, 0.005, 0.002. Compound `c`, base: parts s = 0.3, t = 0.4, so error 0.5, shares 0.36 / 0.64.
/// Scene `s`, n = 2: one failed fit at nu = 0.2.
fn results() -> Results {
    let mut records = Vec::new();
    let kd = [0.5, 0.1, 0.4, 0.2, 0.3];
    for (i, nu) in NU.iter().enumerate() {
        records.push(record("s", "base", None, *nu, 0.1 * (i + 1) as f64, kd[i]));
        records.push(record("t", "base", None, *nu, 0.05, 1.0));
        for (dt, e) in [(0.01, 0.3), (0.005, 0.2), (0.002, 0.1)] {
            records.push(record("s", "dt", Some(dt), *nu, e + 0.01 * i as f64, 0.2));
        }
        let mut c = record("c", "base", None, *nu, 0.5, 0.3);
        c.scene_errors = vec![("s".into(), 0.3), ("t".into(), 0.4)];
        records.push(c);
        let mut n2 = record("s", "n", Some(2.0), *nu, 0.2, 0.2);
        if i == 2 {
            n2.status = FitStatus::Failed;
            n2.error = f64::NAN;
        }
        records.push(n2);
    }
    Results::from_records(layout(), records)
}

/// Parses one check (the claim around it is boilerplate) and evaluates it.
fn run(check: &str) -> (Outcome, String) {
    let text = format!("[[claim]]\nid = \"T\"\nfigure = \"0\"\nthesis = \"t\"\n[[claim.check]]\n{check}");
    let file = ClaimsFile::parse(&text, "unit").unwrap();
    let r = evaluate_check(&file.claims[0].checks[0], &results());
    (r.outcome, r.measured)
}

const S: &str = "scene = \"s\"\nexperiment = \"base\"\n";

#[test]
fn statistics() {
    // Spearman on a known ranking: x ranks 1..5, y ranks 2, 1, 4, 3, 5 -> sum d^2 = 4,
    // rho = 1 - 6 * 4 / (5 * 24) = 0.8.
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    assert!((spearman(&x, &[20.0, 10.0, 40.0, 30.0, 50.0]).unwrap() - 0.8).abs() < 1e-12);
    // Monotone but non-linear: rank correlation exactly 1 / -1.
    assert!((spearman(&x, &[1.0, 8.0, 27.0, 64.0, 125.0]).unwrap() - 1.0).abs() < 1e-12);
    assert!((spearman(&x, &[5.0, 1.0, 0.5, 0.1, 0.0]).unwrap() + 1.0).abs() < 1e-12);
    // Ties take their mean rank: y ranks 1.5, 1.5, 3, 4, 5 -> Pearson of ranks = 0.9746794.
    assert!((spearman(&x, &[1.0, 1.0, 2.0, 3.0, 4.0]).unwrap() - 0.974_679_434_480_896_4).abs() < 1e-12);
    assert_eq!(spearman(&x, &[2.0; 5]), None, "constant series has no rank correlation");
    // Sign changes: up, down, up, down = 3 changes; a zero step is skipped.
    assert_eq!(sign_changes(&[0.0, 1.0, 0.0, 1.0, 0.0]), 3);
    assert_eq!(sign_changes(&[0.0, 1.0, 1.0, 2.0]), 0);
    assert_eq!(sign_changes(&[1.0, 2.0, 2.0, 1.0]), 1);
    assert!((relative_spread(&[0.9, 1.0, 1.1]) - 0.2).abs() < 1e-12);
    assert_eq!(sig3(0.219_63), "0.220");
    assert_eq!(sig3(0.091_24), "0.0912");
    assert_eq!(sig3(-0.93), "-0.930");
    assert_eq!(sig3(12.345), "12.3");
    assert_eq!(sig3(6490.2), "6.49e3");
    assert_eq!(sig3(33_412.0), "3.34e4");
    assert_eq!(sig3(0.999_7), "1.00");
    assert_eq!(sig3(4.56e-5), "4.56e-5");
    assert_eq!(sig3(0.0), "0");
}

#[test]
fn at_reads_the_value_at_nu() {
    let (o, m) = run(&format!("kind = \"at\"\n{S}quantity = \"error\"\nnu = 0.2\nexpect = 0.25\ntolerance = 0.06\n"));
    assert_eq!((o, m.as_str()), (Outcome::Holds, "s base error at nu = 0.2: 0.300 (thesis 0.25 +- 0.06)"));
    let (o, _) = run(&format!("kind = \"at\"\n{S}quantity = \"error\"\nnu = 0.2\nexpect = 0.25\ntolerance = 0.04\n"));
    assert_eq!(o, Outcome::Fails);
    let (o, m) = run(&format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.1\nbelow = 0.2\n"));
    assert_eq!((o, m.as_str()), (Outcome::Holds, "s base kd at nu = 0.1: 0.100 (thesis < 0.2)"));
    let (o, _) = run(&format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.1\nabove = 0.1\n"));
    assert_eq!(o, Outcome::Fails, "bounds are strict");
    // A nu the data does not have is not run, not a failure.
    let (o, m) = run(&format!("kind = \"at\"\n{S}quantity = \"error\"\nnu = 0.49\nbelow = 1\n"));
    assert_eq!((o, m.as_str()), (Outcome::NotRun, "no fit of s base error at nu = 0.49"));
}

#[test]
fn range_bounds_every_value() {
    let (o, m) =
        run(&format!("kind = \"range\"\n{S}quantity = \"error\"\nnu = [0, 0.2]\nbelow = 0.35\nabove = 0.05\n"));
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s base error over nu in [0, 0.2]: 0.100 to 0.300 (thesis between 0.05 and 0.35)")
    );
    let (o, m) = run(&format!("kind = \"range\"\n{S}quantity = \"error\"\nbelow = 0.35\n"));
    assert_eq!(o, Outcome::Fails);
    assert!(m.ends_with("2 of 5 outside"), "{m}");
}

#[test]
fn trend_rising_falling_flat() {
    let trend = |q: &str, extra: &str| run(&format!("kind = \"trend\"\n{S}quantity = \"{q}\"\n{extra}"));
    let (o, m) = trend("error", "direction = \"rising\"\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s base error over all nu: Spearman rho = 1.00 (rising needs >= 0.5)")
    );
    let (o, m) = trend("error", "direction = \"falling\"\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Fails, "s base error over all nu: Spearman rho = 1.00 (falling needs <= -0.5)")
    );
    // kd 0.5, 0.1, 0.4, 0.2, 0.3: ranks 5, 1, 4, 2, 3 against 1..5: rho = -0.3.
    let (o, m) = trend("kd", "direction = \"falling\"\nmin_correlation = 0.3\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s base kd over all nu: Spearman rho = -0.300 (falling needs <= -0.3)")
    );
    assert_eq!(trend("kd", "direction = \"falling\"\n").0, Outcome::Fails);
    // Flat: error over [0.3, 0.4] is 0.4, 0.5: spread 0.1 / 0.45 = 0.222.
    let (o, m) = trend("error", "nu = [0.3, 0.4]\ndirection = \"flat\"\ntolerance = 0.25\n");
    assert_eq!(o, Outcome::Holds);
    assert!(m.contains("(max - min) / mean = 0.222 (flat needs <= 0.25)"), "{m}");
    assert_eq!(trend("error", "nu = [0.3, 0.4]\ndirection = \"flat\"\n").0, Outcome::Fails);
}

#[test]
fn values_order_across_experiment_values() {
    let order = |extra: &str| {
        run(&format!("kind = \"values_order\"\nscene = \"s\"\nexperiment = \"dt\"\nquantity = \"error\"\n{extra}"))
    };
    let (o, m) = order("values = [0.01, 0.005, 0.002]\ndirection = \"falling\"\n");
    assert_eq!(
        (o, m.as_str()),
        (
            Outcome::Holds,
            "s mean error over all nu at dt = 0.01, 0.005, 0.002: 0.320, 0.220, 0.120 (falling each step)"
        )
    );
    assert_eq!(order("values = [0.01, 0.005, 0.002]\ndirection = \"rising\"\n").0, Outcome::Fails);
    // The order given is the order tested: reversed values rise.
    assert_eq!(order("values = [0.002, 0.005, 0.01]\ndirection = \"rising\"\n").0, Outcome::Holds);
    // Strict needs every step; overall only last against first.
    assert_eq!(order("values = [0.005, 0.01, 0.002]\ndirection = \"falling\"\n").0, Outcome::Fails);
    assert_eq!(
        order("values = [0.005, 0.01, 0.002]\ndirection = \"falling\"\nmonotone = \"overall\"\n").0,
        Outcome::Holds
    );
    let (o, m) = order("values = [0.01, 0.002]\nstat = \"min\"\ndirection = \"falling\"\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s min error over all nu at dt = 0.01, 0.002: 0.300, 0.100 (falling each step)")
    );
    // A value the study did not run: not run.
    assert_eq!(order("values = [0.01, 0.001]\ndirection = \"falling\"\n").0, Outcome::NotRun);
}

#[test]
fn compare_stats_relations_and_ratio() {
    let cmp = |extra: &str| {
        run(&format!(
            "kind = \"compare\"\na = {{ scene = \"t\", experiment = \"base\" }}\nb = {{ scene = \"s\", experiment = \"base\" }}\n{extra}"
        ))
    };
    // t error 0.05 everywhere, s error 0.1..0.5 (mean 0.3).
    let (o, m) = cmp("quantity = \"error\"\nrelation = \"less\"\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "mean error over all nu, t base / s base: 0.0500 vs 0.300 (thesis less)")
    );
    assert_eq!(cmp("quantity = \"error\"\nrelation = \"greater\"\n").0, Outcome::Fails);
    let (o, m) = cmp("quantity = \"error\"\nratio = [0.15, 0.2]\n");
    assert_eq!(
        (o, m.as_str()),
        (
            Outcome::Holds,
            "mean error over all nu, t base / s base: 0.0500 / 0.300 = 0.167 (thesis ratio in [0.15, 0.2])"
        )
    );
    assert_eq!(cmp("quantity = \"error\"\nratio = [0.9, 1.1]\n").0, Outcome::Fails);
    let (o, m) = cmp("quantity = \"error\"\nnu = 0.4\nratio = [0.1, 0.1]\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "error at nu = 0.4, t base / s base: 0.0500 / 0.500 = 0.100 (thesis ratio in [0.1, 0.1])")
    );
    assert_eq!(cmp("quantity = \"error\"\nstat = \"max\"\nratio = [0.1, 0.1]\n").0, Outcome::Holds);
    // kd: t 1 everywhere vs s zigzag below 1: greater at each nu; less at none.
    let (o, m) = cmp("quantity = \"kd\"\nstat = \"at_each\"\nrelation = \"greater\"\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "kd over all nu, t base vs s base: greater at 5 of 5 common nu (thesis greater at every nu)")
    );
    // error: t < s at all 5; "greater at >= 20 %" (1 of 5) fails with 0.
    assert_eq!(
        cmp("quantity = \"error\"\nstat = \"at_each\"\nrelation = \"greater\"\nfraction = 0.2\n").0,
        Outcome::Fails
    );
    // Pointwise ratio t / s of the error: 0.5, 0.25, 0.167, 0.125, 0.1.
    let (o, m) = cmp("quantity = \"error\"\nstat = \"at_each\"\nratio = [0.1, 0.5]\n");
    assert_eq!(
        (o, m.as_str()),
        (
            Outcome::Holds,
            "error over all nu, t base vs s base: ratio 0.100 to 0.500 over 5 common nu (thesis in [0.1, 0.5])"
        )
    );
}

#[test]
fn compare_shares_of_a_compound() {
    // Parts 0.3 and 0.4 of a compound error 0.5: shares 0.09 / 0.25 = 0.36 and 0.16 / 0.25 = 0.64.
    let (o, m) = run("kind = \"compare\"\na = { scene = \"c\", experiment = \"base\", quantity = \"share:t\" }\n\
         b = { scene = \"c\", experiment = \"base\", quantity = \"share:s\" }\nratio = [1.77, 1.78]\n");
    assert_eq!(
        (o, m.as_str()),
        (
            Outcome::Holds,
            "mean value over all nu, c base share of t / c base share of s: 0.640 / 0.360 = 1.78 (thesis ratio in [1.77, 1.78])"
        )
    );
    // A part the compound does not have: no data.
    let (o, _) = run("kind = \"range\"\nscene = \"c\"\nexperiment = \"base\"\nquantity = \"share:x\"\nbelow = 1\n");
    assert_eq!(o, Outcome::NotRun);
}

#[test]
fn oscillation_counting() {
    // kd 0.5, 0.1, 0.4, 0.2, 0.3: down, up, down, up = 3 sign changes.
    let osc = |q: &str, bound: &str| run(&format!("kind = \"oscillates\"\n{S}quantity = \"{q}\"\n{bound}"));
    let (o, m) = osc("kd", "min_changes = 3\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s base kd over all nu: 3 sign changes in 4 successive differences (oscillating needs >= 3)")
    );
    assert_eq!(osc("kd", "min_changes = 4\n").0, Outcome::Fails);
    assert_eq!(osc("kd", "max_changes = 2\n").0, Outcome::Fails);
    let (o, m) = osc("error", "max_changes = 0\n");
    assert_eq!(
        (o, m.as_str()),
        (Outcome::Holds, "s base error over all nu: 0 sign changes in 4 successive differences (regular needs <= 0)")
    );
}

#[test]
fn argmin_over_nu_and_values() {
    let (o, m) = run(&format!("kind = \"argmin\"\n{S}quantity = \"kd\"\nwithin = [0.05, 0.15]\n"));
    assert_eq!((o, m.as_str()), (Outcome::Holds, "s base kd smallest at nu = 0.1 (0.100) (thesis nu in [0.05, 0.15])"));
    assert_eq!(run(&format!("kind = \"argmin\"\n{S}quantity = \"error\"\nwithin = [0.2, 0.4]\n")).0, Outcome::Fails);
    // Over the study's dt values (0.01, 0.005, 0.002): mean error smallest at 0.002.
    let (o, m) = run(
        "kind = \"argmin\"\nscene = \"s\"\nexperiment = \"dt\"\nquantity = \"error\"\nover = \"values\"\nwithin = [0.001, 0.002]\n",
    );
    assert_eq!(
        (o, m.as_str()),
        (
            Outcome::Holds,
            "s mean error over all nu smallest at dt = 0.002 (0.120; means 0.320, 0.220, 0.120) (thesis dt in [0.001, 0.002])"
        )
    );
}

#[test]
fn failed_fits_are_skipped_and_missing_data_is_not_run() {
    let results = results();
    let q = "error".parse().unwrap();
    let n2 = results.series("s", "n", Some(2.0), &q).unwrap();
    assert_eq!(n2.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0.0, 0.1, 0.3, 0.4], "nu = 0.2 failed");
    assert_eq!(results.series("s", "n", Some(1.0), &q), None);
    assert_eq!(results.series("s", "base", None, &"alpha_d".parse().unwrap()), None);

    // A claim on an experiment the folder lacks is not run; one whose available check fails, fails.
    let text = format!(
        "[[claim]]\nid = \"A\"\nfigure = \"1\"\nthesis = \"t\"\n\
         [[claim.check]]\nkind = \"trend\"\nscene = \"s\"\nexperiment = \"nit\"\nvalue = 2\nquantity = \"error\"\ndirection = \"rising\"\n\
         [[claim]]\nid = \"B\"\nfigure = \"1\"\nthesis = \"t\"\n\
         [[claim.check]]\nkind = \"trend\"\nscene = \"s\"\nexperiment = \"nit\"\nvalue = 2\nquantity = \"error\"\ndirection = \"rising\"\n\
         [[claim.check]]\nkind = \"trend\"\n{S}quantity = \"error\"\ndirection = \"falling\"\n\
         [[claim]]\nid = \"C\"\nfigure = \"1\"\nthesis = \"a | b\"\n\
         [[claim.check]]\nkind = \"trend\"\n{S}quantity = \"error\"\ndirection = \"rising\"\n\
         [[claim]]\nid = \"D\"\nfigure = \"1\"\nthesis = \"t\"\n\
         [[claim.check]]\nkind = \"untestable\"\nreason = \"words only\"\n"
    );
    let file = ClaimsFile::parse(&text, "unit").unwrap();
    let verdicts = evaluate(&file, &results);
    let outcomes: Vec<Outcome> = verdicts.iter().map(|v| v.outcome).collect();
    assert_eq!(outcomes, [Outcome::NotRun, Outcome::Fails, Outcome::Holds, Outcome::Untestable]);
    assert_eq!(verdicts[0].measured, "no data for s nit = 2 error");
    assert!(
        verdicts[1].measured.starts_with("[not run] no data for s nit = 2 error; [fails] s base error"),
        "{}",
        verdicts[1].measured
    );
    assert_eq!(Score::of(&verdicts), Score { holds: 1, fails: 1, undecided: 0, not_run: 1, untestable: 1 });
    let table = markdown_table(&verdicts);
    assert!(
        table.starts_with("| id | figure | thesis | ours | verdict |\n|---|---|---|---|---|\n| A | 1 | t | "),
        "{table}"
    );
    assert!(
        table.contains(
            "| C | 1 | a \\| b | s base error over all nu: Spearman rho = 1.00 (rising needs >= 0.5) | holds |"
        ),
        "{table}"
    );
    assert!(table.contains("| D | 1 | t | untestable: words only | untestable |"), "{table}");
    assert!(matches!(file.claims[3].checks[0], Check::Untestable { .. }));
}

fn verdict(id: &str, checks: &[Outcome]) -> pbdfit_claims::Verdict {
    let outcome = if checks.contains(&Outcome::Fails) { Outcome::Fails } else { Outcome::Holds };
    pbdfit_claims::Verdict {
        id: id.into(),
        figure: "4.2".into(),
        thesis: "words".into(),
        outcome,
        measured: format!("{id} numbers {checks:?}"),
        checks: checks.iter().map(|&o| pbdfit_claims::CheckResult { outcome: o, measured: String::new() }).collect(),
    }
}

#[test]
fn comparison_section_explains_failures_by_variants_or_says_unexplained() {
    use Outcome::{Fails, Holds};
    let ours = vec![verdict("A", &[Fails, Holds]), verdict("B", &[Fails, Fails, Fails]), verdict("C", &[Holds])];
    let variants = vec![
        (
            "opposite".to_string(),
            vec![verdict("A", &[Holds, Holds]), verdict("B", &[Holds, Fails, Fails]), verdict("C", &[Fails])],
        ),
        (
            "f32".to_string(),
            vec![verdict("A", &[Fails, Holds]), verdict("B", &[Holds, Holds, Fails]), verdict("C", &[Holds])],
        ),
    ];
    let text = pbdfit_claims::comparison_section(&ours, &variants);
    assert!(text.contains("1 of 3 claims hold, 2 fail"), "{text}");
    let row = |id: &str| text.lines().find(|l| l.starts_with(&format!("| {id} |"))).unwrap().to_string();
    assert!(row("A").contains("holds under `opposite`: A numbers [Holds, Holds]"), "{}", row("A"));
    assert!(!row("A").contains("f32"), "{}", row("A"));
    // B holds nowhere: the variant with the most holding checks is named, with the counts.
    assert!(row("B").contains("unexplained") && row("B").contains("closest `f32` (2 of 3 checks hold there, 0 here)"));
    // A tie between variants is named as a tie, not as a ranking.
    let tied = vec![
        ("opposite".to_string(), vec![verdict("B", &[Holds, Fails, Fails])]),
        ("opposite+f32".to_string(), vec![verdict("B", &[Fails, Holds, Fails])]),
    ];
    let tie_text = pbdfit_claims::comparison_section(&ours[1..2], &tied);
    assert!(
        tie_text.contains(
            "closest `opposite`, `opposite+f32` (1 of 3 checks hold under each, 0 here, numbers under `opposite`)"
        ),
        "{tie_text}"
    );
    assert!(row("C").ends_with("| holds |  |"), "{}", row("C"));
    assert!(text.contains("- `opposite`: 1 of 3 hold") && text.contains("- `f32`: 1 of 3 hold"), "{text}");
}

/// Scene `s`, base, kd with 1 % ranges: `(nu, kd, low, high)` per fit (kv 1, exact: no range).
/// Scene `t`, base: the same from `t`.
fn ranged(s: &[(f64, f64, f64, f64)], t: &[(f64, f64, f64, f64)]) -> Results {
    let mut records = Vec::new();
    for (scene, points) in [("s", s), ("t", t)] {
        for &(nu, kd, lo, hi) in points {
            let mut r = record(scene, "base", None, nu, 0.1, kd);
            r.ranges = vec![("kd".into(), lo, hi)];
            records.push(r);
        }
    }
    Results::from_records(layout(), records)
}

fn run_on(results: &Results, check: &str) -> (Outcome, String) {
    let text = format!("[[claim]]\nid = \"T\"\nfigure = \"0\"\nthesis = \"t\"\n[[claim.check]]\n{check}");
    let file = ClaimsFile::parse(&text, "unit").unwrap();
    let r = evaluate_check(&file.claims[0].checks[0], results);
    (r.outcome, r.measured)
}

#[test]
fn a_bound_check_whose_range_reaches_across_the_bound_is_undecided() {
    // The nu = 0.49 case of F12 / G9: kd = 0.886 under 0.9, its 1 % range 0.858 to 0.916 across 0.9.
    let across = ranged(&[(0.0, 0.95, 0.93, 0.97), (0.49, 0.886, 0.858, 0.916)], &[]);
    let range = format!("kind = \"range\"\n{S}quantity = \"kd\"\nabove = 0.9\n");
    assert_eq!(
        run_on(&across, &range),
        (
            Outcome::Undecided,
            "s base kd over all nu: 0.886 to 0.950 (thesis > 0.9), 1 of 2 outside, undecided: 1 of 2 values' 1 % \
             ranges reach across the bound (at nu = 0.49: 0.886 in 0.858 to 0.916)"
                .into()
        )
    );
    let at = format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.49\nabove = 0.9\n");
    assert_eq!(
        run_on(&across, &at),
        (
            Outcome::Undecided,
            "s base kd at nu = 0.49: 0.886 (thesis > 0.9), undecided: its 1 % range 0.858 to 0.916 reaches across"
                .into()
        )
    );
    // The same value with a range that stays under the bound still fails.
    let under = ranged(&[(0.0, 0.95, 0.93, 0.97), (0.49, 0.886, 0.870, 0.895)], &[]);
    assert_eq!(
        run_on(&under, &range),
        (Outcome::Fails, "s base kd over all nu: 0.886 to 0.950 (thesis > 0.9), 1 of 2 outside".into())
    );
    assert_eq!(run_on(&under, &at).0, Outcome::Fails);
    // Both directions: a value that holds while its range reaches across the bound is undecided too; one
    // whose range stays inside holds.
    let holds_across = ranged(&[(0.49, 0.91, 0.89, 0.93)], &[]);
    assert_eq!(run_on(&holds_across, &at).0, Outcome::Undecided);
    let inside = ranged(&[(0.49, 0.95, 0.93, 0.97)], &[]);
    assert_eq!(run_on(&inside, &at), (Outcome::Holds, "s base kd at nu = 0.49: 0.950 (thesis > 0.9)".into()));
    // `expect` +- `tolerance`: a range partly in the band is undecided, wholly outside fails.
    let near = format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.49\nexpect = 0.8\ntolerance = 0.1\n");
    assert_eq!(run_on(&across, &near).0, Outcome::Undecided);
    assert_eq!(run_on(&inside, &near).0, Outcome::Fails);
    // Checks on errors have no range: two-way as before (error 0.1 everywhere).
    let error = format!("kind = \"at\"\n{S}quantity = \"error\"\nnu = 0.49\nabove = 0.1\n");
    assert_eq!(run_on(&across, &error).0, Outcome::Fails);
}

#[test]
fn a_comparison_of_overlapping_ranges_is_undecided() {
    // The C2 case: mean kd ratio 1.0037 (t / s), each range about 4 % wide.
    let overlapping = ranged(
        &[(0.0, 0.5, 0.49, 0.51), (0.1, 0.6, 0.588, 0.612)],
        &[(0.0, 0.502, 0.492, 0.512), (0.1, 0.602, 0.59, 0.614)],
    );
    let pair = "kind = \"compare\"\na = { scene = \"t\", experiment = \"base\" }\nb = { scene = \"s\", experiment = \"base\" }\nquantity = \"kd\"\n";
    assert_eq!(
        run_on(&overlapping, &format!("{pair}ratio = [0.9, 1.0]\n")),
        (
            Outcome::Undecided,
            "mean kd over all nu, t base / s base: 0.552 / 0.550 = 1.00 (thesis ratio in [0.9, 1]), undecided: the \
             1 % ranges give a ratio of 0.964 to 1.04"
                .into()
        )
    );
    assert_eq!(
        run_on(&overlapping, &format!("{pair}relation = \"less\"\n")),
        (
            Outcome::Undecided,
            "mean kd over all nu, t base / s base: 0.552 vs 0.550 (thesis less), undecided: the 1 % ranges 0.541 \
             to 0.563 and 0.539 to 0.561 overlap"
                .into()
        )
    );
    // Pointwise too: each nu's ranges overlap.
    assert_eq!(run_on(&overlapping, &format!("{pair}stat = \"at_each\"\nrelation = \"less\"\n")).0, Outcome::Undecided);
    assert_eq!(run_on(&overlapping, &format!("{pair}stat = \"at_each\"\nratio = [0.9, 1.0]\n")).0, Outcome::Undecided);
    // Ranges that do not overlap decide it: t's kd is clearly larger.
    let apart =
        ranged(&[(0.0, 0.5, 0.49, 0.51), (0.1, 0.6, 0.588, 0.612)], &[(0.0, 0.7, 0.69, 0.71), (0.1, 0.8, 0.79, 0.81)]);
    assert_eq!(run_on(&apart, &format!("{pair}relation = \"less\"\n")).0, Outcome::Fails);
    assert_eq!(run_on(&apart, &format!("{pair}relation = \"greater\"\n")).0, Outcome::Holds);
    assert_eq!(run_on(&apart, &format!("{pair}ratio = [0.9, 1.0]\n")).0, Outcome::Fails);
    assert_eq!(run_on(&apart, &format!("{pair}stat = \"at_each\"\nrelation = \"greater\"\n")).0, Outcome::Holds);
}

#[test]
fn score_and_tables_count_undecided_claims_apart() {
    // Claim U: one check holds, one (the nu = 0.49 case) is undecided; F: one fails, one undecided.
    let results = ranged(&[(0.0, 0.95, 0.93, 0.97), (0.49, 0.886, 0.858, 0.916)], &[(0.0, 0.5, 0.49, 0.51)]);
    let holds = format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.0\nabove = 0.9\n");
    let undecided = format!("kind = \"at\"\n{S}quantity = \"kd\"\nnu = 0.49\nabove = 0.9\n");
    let fails = "kind = \"at\"\nscene = \"t\"\nexperiment = \"base\"\nquantity = \"kd\"\nnu = 0.0\nabove = 0.9\n";
    let text = format!(
        "[[claim]]\nid = \"U\"\nfigure = \"1\"\nthesis = \"t\"\n[[claim.check]]\n{holds}[[claim.check]]\n{undecided}\
         [[claim]]\nid = \"F\"\nfigure = \"1\"\nthesis = \"t\"\n[[claim.check]]\n{undecided}[[claim.check]]\n{fails}\
         [[claim]]\nid = \"H\"\nfigure = \"1\"\nthesis = \"t\"\n[[claim.check]]\n{holds}"
    );
    let verdicts = evaluate(&ClaimsFile::parse(&text, "unit").unwrap(), &results);
    let outcomes: Vec<Outcome> = verdicts.iter().map(|v| v.outcome).collect();
    assert_eq!(outcomes, [Outcome::Undecided, Outcome::Fails, Outcome::Holds], "a failing check outweighs");
    let score = Score::of(&verdicts);
    assert_eq!(score, Score { holds: 1, fails: 1, undecided: 1, not_run: 0, untestable: 0 });
    assert_eq!((score.total(), score.decided()), (3, 2));
    assert_eq!(score.to_string(), "1 of 3 claims hold, 1 fail, 1 undecided, 0 not run, 0 untestable");
    assert_eq!(
        verdicts[0].measured,
        "s base kd at nu = 0: 0.950 (thesis > 0.9); [undecided] s base kd at nu = 0.49: 0.886 (thesis > 0.9), \
         undecided: its 1 % range 0.858 to 0.916 reaches across"
    );
    let table = markdown_table(&verdicts);
    assert!(table.contains("reaches across | undecided |\n"), "{table}");
    let matrix = pbdfit_claims::comparison_markdown(&[("base".into(), verdicts.clone())]);
    assert!(
        matrix.starts_with(
            "| variant | holds | fails | undecided | not run | holds of decided |\n|---|---|---|---|---|---|\n\
             | base | 1 | 1 | 1 | 0 | 1 / 2 |\n"
        ),
        "{matrix}"
    );
    assert!(matrix.contains("| U | undecided |\n| F | FAILS |\n| H | holds |\n"), "{matrix}");
    let section = pbdfit_claims::comparison_section(&verdicts, &[("base".into(), verdicts.clone())]);
    assert!(section.contains("1 of 3 claims hold, 1 fail, 1 undecided"), "{section}");
    assert!(section.contains("- `base`: 1 of 2 hold, 1 undecided"), "{section}");
    assert!(
        section.contains("| undecided | undecided: decided only by a margin smaller than the fits' 1 % ranges |"),
        "{section}"
    );
}
