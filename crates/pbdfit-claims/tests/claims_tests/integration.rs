//! The committed claims file against the committed thesis results (fits/results/thesis).

use std::path::PathBuf;

use pbdfit_claims::{ClaimsFile, Outcome, Quantity, Results, Score, Verdict, evaluate, markdown_table};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn verdicts() -> Vec<Verdict> {
    let claims = ClaimsFile::from_path(&repo().join("fits/thesis-claims.toml")).unwrap();
    let results = Results::open(&repo().join("fits/results/thesis")).unwrap();
    evaluate(&claims, &results)
}

fn verdict<'a>(verdicts: &'a [Verdict], id: &str) -> &'a Verdict {
    verdicts.iter().find(|v| v.id == id).unwrap_or_else(|| panic!("no claim {id}"))
}

/// The number in `text` right after `prefix` (e.g. `"error at nu = 0: "` -> 0.220).
fn number_after(text: &str, prefix: &str) -> f64 {
    let start = text.find(prefix).unwrap_or_else(|| panic!("`{prefix}` not in `{text}`")) + prefix.len();
    let rest = &text[start..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e')).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or_else(|_| panic!("no number after `{prefix}` in `{text}`"))
}

#[test]
fn every_thesis_claim_is_in_the_file() {
    let claims = ClaimsFile::from_path(&repo().join("fits/thesis-claims.toml")).unwrap();
    let mut expected = Vec::new();
    for (prefix, count) in [("F", 12), ("W", 12), ("C", 11), ("G", 9), ("K", 2)] {
        expected.extend((1..=count).map(|i| format!("{prefix}{i}")));
    }
    assert_eq!(expected.len(), 46);
    let ids: Vec<&str> = claims.claims.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, expected, "claims in the thesis's order, one each");
}

#[test]
fn thesis_claims_against_thesis_results() {
    let verdicts = verdicts();
    let score = Score::of(&verdicts);
    println!("{}\n{score}", markdown_table(&verdicts));
    assert_eq!(score.total(), 46);

    // Every experiment of the thesis study is in the folder: nothing is "not run".
    assert_eq!(score.not_run, 0, "{:?}", verdicts.iter().filter(|v| v.outcome == Outcome::NotRun).collect::<Vec<_>>());

    // F1 fails: our GravityFloor base error is 0.220 at nu = 0 (thesis 0.14 +- 0.04) and falls with nu
    // to about 0.09 at 0.49 (thesis: rises to 0.75).
    let f1 = verdict(&verdicts, "F1");
    assert_eq!(f1.outcome, Outcome::Fails);
    let at0 = number_after(&f1.checks[0].measured, "error at nu = 0: ");
    assert!((at0 - 0.220).abs() < 0.005, "{}", f1.measured);
    assert_eq!(f1.checks[0].outcome, Outcome::Fails);
    assert_eq!(f1.checks[2].outcome, Outcome::Fails, "floor error falls, not rises, above nu = 0.3");
    let rho = number_after(&f1.checks[2].measured, "Spearman rho = ");
    assert!(rho < -0.9, "{}", f1.measured);
    // It falls to 0.093 at nu = 0.48 and jumps back to 0.163 at 0.49 (thesis 0.75 +- 0.19).
    let at49 = number_after(&f1.checks[3].measured, "error at nu = 0.49: ");
    assert!((at49 - 0.163).abs() < 0.005, "{}", f1.measured);
    let results = Results::open(&repo().join("fits/results/thesis")).unwrap();
    let floor = results.series("gravity-floor", "base", None, &Quantity::Error).unwrap();
    assert_eq!(floor.len(), 50);
    let (nu_min, e_min) = floor.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert!((nu_min - 0.48).abs() < 1e-9 && (e_min - 0.0928).abs() < 0.001, "min {e_min} at {nu_min}");

    // F2 holds: kd rises with nu on the floor.
    assert_eq!(verdict(&verdicts, "F2").outcome, Outcome::Holds);

    // C1 fails: ceiling equals floor (a linear, mirror-consistent set-up), mean error ratio about 1.00.
    let c1 = verdict(&verdicts, "C1");
    assert_eq!(c1.outcome, Outcome::Fails);
    let mean = |scene: &str| {
        let s = results.series(scene, "base", None, &Quantity::Error).unwrap();
        s.iter().map(|p| p.1).sum::<f64>() / s.len() as f64
    };
    let ratio = mean("gravity-ceiling") / mean("gravity-floor");
    assert!((ratio - 1.0).abs() < 0.01, "mean ceiling / floor error {ratio}");
    // The ratios at nu = 0 and 0.49 (thesis about 1.10 and 1.30) are about 1.00 too.
    for check in &c1.checks[1..] {
        let text = &check.measured;
        let r = number_after(&text[text.rfind(" = ").unwrap()..], " = ");
        assert!((r - 1.0).abs() < 0.015, "{text}");
        assert_eq!(check.outcome, Outcome::Fails);
    }
}

#[test]
fn claims_decided_within_the_fits_ranges_are_undecided() {
    let verdicts = verdicts();
    let score = Score::of(&verdicts);
    // Before the third verdict: 21 hold, 25 fail. F8, W12 and C11 held only by a kv whose 1 % range
    // reaches across (kv unidentified at the box edge 1); F12, G9, C2, C3 and C7 failed by less than
    // the fits' ranges. W3 and W11 then failed too once the parts of their statements the first
    // encoding left out were checked (kd rising again above nu = 0.35; the floor's 3.3e4-fold rise).
    assert_eq!(score, Score { holds: 16, fails: 22, undecided: 8, not_run: 0, untestable: 0 });
    assert_eq!(score.to_string(), "16 of 46 claims hold, 22 fail, 8 undecided, 0 not run, 0 untestable");
    let undecided: Vec<&str> =
        verdicts.iter().filter(|v| v.outcome == Outcome::Undecided).map(|v| v.id.as_str()).collect();
    assert_eq!(undecided, ["F8", "F12", "W12", "C2", "C3", "C7", "C11", "G9"]);
    // Every failing or undecided check is marked, a claim's only check included (F5 and W2 are single
    // checks that fail; their rows lacked the marker).
    for v in &verdicts {
        for c in v.checks.iter().filter(|c| matches!(c.outcome, Outcome::Fails | Outcome::Undecided)) {
            assert!(v.measured.contains(&format!("[{}] {}", c.outcome, c.measured)), "{}: {}", v.id, v.measured);
        }
    }
    let f5 = verdicts.iter().find(|v| v.id == "F5").unwrap();
    assert!(f5.checks.len() == 1 && f5.measured.starts_with("[fails] "), "{}", f5.measured);

    // F12: at E = 1e6 the floor's kd is 0.886 at nu = 0.49, under 0.9, but its 1 % range is 0.858 to
    // 0.916: the check is undecided, not failed.
    let f12 = verdict(&verdicts, "F12");
    assert_eq!(f12.outcome, Outcome::Undecided);
    assert_eq!(f12.checks[0].outcome, Outcome::Holds, "{}", f12.measured);
    assert_eq!(f12.checks[2].outcome, Outcome::Undecided, "{}", f12.measured);
    assert!(f12.checks[2].measured.contains("1 of 50 outside"), "{}", f12.checks[2].measured);
    assert!(f12.checks[2].measured.contains("(at nu = 0.49: 0.886 in 0.858 to 0.916)"), "{}", f12.checks[2].measured);
    let results = Results::open(&repo().join("fits/results/thesis")).unwrap();
    let kd = results.ranged_series("gravity-floor", "young", Some(1e6), &"kd".parse().unwrap()).unwrap();
    let (nu, v, (lo, hi)) = *kd.last().unwrap();
    assert!((nu - 0.49).abs() < 1e-9 && v < 0.9 && lo < 0.9 && hi > 0.9, "{nu} {v} {lo} {hi}");

    // G9: the compound's kd at E = 1e6 and nu = 0.49 is under 0.9 with a range across it; its error
    // check (no range) still holds two-way.
    let g9 = verdict(&verdicts, "G9");
    assert_eq!(g9.outcome, Outcome::Undecided);
    let g9_checks: Vec<Outcome> = g9.checks.iter().map(|c| c.outcome).collect();
    assert_eq!(g9_checks, [Outcome::Holds, Outcome::Undecided, Outcome::Undecided], "{}", g9.measured);
    assert!(g9.checks[1].measured.contains("1 of 50 outside") && g9.checks[1].measured.contains("at nu = 0.49"));

    // C2 compares the ceiling's mean kd with the floor's: ratio 1.00 (thesis in [0.9, 1.0], and less),
    // while each mean's range is about 8 % wide: both checks undecided.
    let c2 = verdict(&verdicts, "C2");
    assert_eq!(c2.outcome, Outcome::Undecided);
    assert!(c2.checks.iter().all(|c| c.outcome == Outcome::Undecided), "{}", c2.measured);
    let ratio = number_after(&c2.checks[0].measured, "gravity-floor base: 0.187 / 0.186 = ");
    assert!((ratio - 1.0).abs() < 0.01, "{}", c2.measured);

    // C1 compares errors (no range): it still fails, two-way.
    assert_eq!(verdict(&verdicts, "C1").outcome, Outcome::Fails);
}

#[test]
fn a_folder_with_only_base_and_dt_leaves_the_other_claims_not_run() {
    let from = repo().join("fits/results/thesis");
    let dir = std::env::temp_dir().join(format!("pbdfit-claims-partial-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(from.join("summary.json"), dir.join("summary.json")).unwrap();
    for scene in ["gravity-floor", "gravity-wall", "gravity-ceiling", "gravity"] {
        for experiment in ["base", "dt"] {
            let file = format!("{scene}-{experiment}.csv");
            std::fs::copy(from.join(&file), dir.join(&file)).unwrap();
        }
    }
    let claims = ClaimsFile::from_path(&repo().join("fits/thesis-claims.toml")).unwrap();
    let results = Results::open(&dir).unwrap();
    let verdicts = evaluate(&claims, &results);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(results.has("gravity-floor", "dt") && !results.has("gravity-floor", "n"));
    // Claims on N, nit or E only.
    for id in ["F8", "F9", "F10", "F12", "W9", "W12", "C7", "C9", "G6", "G8", "K2"] {
        assert_eq!(verdict(&verdicts, id).outcome, Outcome::NotRun, "{id}: {}", verdict(&verdicts, id).measured);
    }
    // Claims on base and dt come out as on the full folder.
    let full = self::verdicts();
    for id in ["F1", "F2", "F4", "F6", "W1", "W4", "C1", "C4", "G1", "G3"] {
        assert_eq!(verdict(&verdicts, id), verdict(&full, id), "{id}");
    }
    // K1 mixes an E check (not run) with a base check that fails: the claim fails.
    assert_eq!(verdict(&verdicts, "K1").outcome, Outcome::Fails);
    assert_eq!(verdict(&verdicts, "K1").checks[0].outcome, Outcome::NotRun);
}

/// The variants of `pbdfit compare` are judged within their fits' ranges too (their rows carry them, issue
/// 26): `baseline`, the thesis's own setup, gets the thesis results' verdict on every claim, and
/// `opposite`'s two-way lead (23 claims against 21) is gone: 15 hold, 22 fail, 9 undecided (baseline 16, 22
/// and 8), with F12 and G9, the two claims that flipped at their 0.9 threshold, undecided.
#[test]
fn the_variants_are_judged_within_their_ranges() {
    let claims = ClaimsFile::from_path(&repo().join("fits/thesis-claims.toml")).unwrap();
    let variant =
        |name: &str| evaluate(&claims, &Results::open(&repo().join("fits/results/compare").join(name)).unwrap());
    let thesis = verdicts();
    let baseline = variant("baseline");
    assert_eq!(thesis.len(), baseline.len());
    for (t, b) in thesis.iter().zip(&baseline) {
        assert_eq!((&t.id, t.outcome), (&b.id, b.outcome), "baseline against the thesis results");
    }
    let opposite = variant("opposite");
    assert_eq!(Score::of(&opposite), Score { holds: 15, fails: 22, undecided: 9, not_run: 0, untestable: 0 });
    for id in ["F12", "G9"] {
        assert_eq!(verdict(&opposite, id).outcome, Outcome::Undecided, "{id}");
    }
}

/// W3 and W11 are checked in full: W3's kd falls over all nu but rises again over [0.35, 0.49];
/// W11's "unlike the floor" fails, the floor's error rising more than 10-fold from E = 1e3 to 1e6.
#[test]
fn partial_holds_are_checked_in_full() {
    let verdicts = verdicts();
    let w3 = verdict(&verdicts, "W3");
    assert_eq!(w3.outcome, Outcome::Fails);
    assert_eq!(w3.checks.iter().map(|c| c.outcome).collect::<Vec<_>>(), [Outcome::Holds, Outcome::Fails]);
    let w11 = verdict(&verdicts, "W11");
    assert_eq!(w11.outcome, Outcome::Fails);
    assert_eq!(
        w11.checks.iter().map(|c| c.outcome).collect::<Vec<_>>(),
        [Outcome::Holds, Outcome::Holds, Outcome::Fails]
    );
    assert!(number_after(&w11.measured, "gravity-floor E = 1e6 / gravity-floor E = 1000: ") > 1e3, "{}", w11.measured);
}
