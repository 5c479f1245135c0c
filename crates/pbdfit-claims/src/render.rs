//! Rendering: numbers as text ([`sig3`]) and verdicts as Markdown (the claims table, the variants'
//! score table and claim x variant matrix, the report's comparison section).

use crate::outcome::{Outcome, Score, Verdict};

/// A number with 3 significant digits: `0.220`, `0.0912`, `12.3`, `649`, `6.49e3`, `4.56e-5`, `0`.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".into();
    }
    // `{:.2e}` rounds to 3 significant digits first, so the exponent is that of the rounded value.
    let s = format!("{v:.2e}");
    let (mantissa, exp) = s.split_once('e').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    if (-3..3).contains(&exp) {
        let decimals = (2 - exp).max(0) as usize;
        let m: f64 = mantissa.parse().expect("mantissa");
        format!("{:.*}", decimals, m * 10f64.powi(exp))
    } else {
        format!("{mantissa}e{exp}")
    }
}

pub(crate) fn value_text(v: f64) -> String {
    if v.abs() >= 1e4 { format!("{v:e}") } else { format!("{v}") }
}

/// The verdicts as a Markdown table (columns id, figure, thesis, ours, verdict), `|` escaped.
pub fn markdown_table(verdicts: &[Verdict]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| id | figure | thesis | ours | verdict |\n|---|---|---|---|---|\n");
    for v in verdicts {
        out += &format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&v.id),
            cell(&v.figure),
            cell(&v.thesis),
            cell(&v.measured),
            v.outcome
        );
    }
    out
}

/// Verdicts of the same claims under several variants, as Markdown: a score table (variants in the
/// given order, with the claims that hold, fail, are undecided or were not run, and the claims that hold
/// of those decided: undecided claims rank no variant) and a claim x variant matrix (`holds` / `FAILS` /
/// `undecided` / `-` for not run, `?` for untestable). `variants` pairs each variant's name with its
/// verdicts, all in the same claim order.
pub fn comparison_markdown(variants: &[(String, Vec<Verdict>)]) -> String {
    let mut out = String::from(
        "| variant | holds | fails | undecided | not run | holds of decided |\n|---|---|---|---|---|---|\n",
    );
    for (name, verdicts) in variants {
        let s = Score::of(verdicts);
        out += &format!(
            "| {name} | {} | {} | {} | {} | {} / {} |\n",
            s.holds,
            s.fails,
            s.undecided,
            s.not_run,
            s.holds,
            s.decided()
        );
    }
    out += "\n| claim |";
    for (name, _) in variants {
        out += &format!(" {name} |");
    }
    out += "\n|---|";
    out += &"---|".repeat(variants.len());
    out += "\n";
    let Some((_, first)) = variants.first() else { return out };
    for (i, claim) in first.iter().enumerate() {
        out += &format!("| {} |", claim.id);
        for (_, verdicts) in variants {
            let mark = match verdicts.get(i).map(|v| v.outcome) {
                Some(Outcome::Holds) => "holds",
                Some(Outcome::Fails) => "FAILS",
                Some(Outcome::Undecided) => "undecided",
                Some(Outcome::NotRun) | None => "-",
                Some(Outcome::Untestable) => "?",
            };
            out += &format!(" {mark} |");
        }
        out += "\n";
    }
    out
}

/// The report section "Comparison with the thesis": every claim with the thesis's statement, our
/// numbers and the verdict on `ours` (the reproduction's results), and for each claim that fails, the
/// variants of `variants` under which it holds (with their numbers: the evidence) or "unexplained"
/// when it fails under all of them, or "not tested by a variant" when no variant ran its experiment.
pub fn comparison_section(ours: &[Verdict], variants: &[(String, Vec<Verdict>)]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let score = Score::of(ours);
    let mut out = format!(
        "## Comparison with the thesis\n\nEach claim of the thesis (ids, the thesis's words and their predicates in \
         `fits/thesis-claims.toml`) checked against these results: {score}.\n\n"
    );
    if !variants.is_empty() {
        let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
        out += &format!(
            "For a claim that fails, the explanation column lists the variants of the setup (`pbdfit compare`, \
             results in `fits/results/compare`) under which it holds, with the numbers there; \"unexplained\" \
             means it fails under every variant tried ({}).\n\n",
            names.join(", ")
        );
        out += "Scores of the variants (claims that hold of those their experiments test and decide; a claim \
                decided only within the fits' 1 % ranges is undecided and counts for no variant):\n\n";
        for (name, verdicts) in variants {
            let s = Score::of(verdicts);
            out += &format!("- `{name}`: {} of {} hold, {} undecided\n", s.holds, s.decided(), s.undecided);
        }
        out += "\n";
    }
    out += "| id | figure | thesis | ours | verdict | explanation |\n|---|---|---|---|---|---|\n";
    for (i, v) in ours.iter().enumerate() {
        let explanation = match v.outcome {
            Outcome::Holds => String::new(),
            Outcome::NotRun | Outcome::Untestable => "-".into(),
            Outcome::Undecided => {
                let holding: Vec<String> = variants
                    .iter()
                    .filter_map(|(name, vs)| {
                        vs.get(i).filter(|x| x.id == v.id && x.outcome == Outcome::Holds).map(|_| format!("`{name}`"))
                    })
                    .collect();
                let mut text = "undecided: decided only by a margin smaller than the fits' 1 % ranges".to_string();
                if !holding.is_empty() {
                    text += &format!("; holds under {}", holding.join(", "));
                }
                text
            }
            Outcome::Fails => {
                let holding: Vec<String> = variants
                    .iter()
                    .filter_map(|(name, vs)| {
                        vs.get(i)
                            .filter(|x| x.id == v.id && x.outcome == Outcome::Holds)
                            .map(|x| format!("holds under `{name}`: {}", x.measured))
                    })
                    .collect();
                let tested = variants
                    .iter()
                    .any(|(_, vs)| vs.get(i).is_some_and(|x| matches!(x.outcome, Outcome::Holds | Outcome::Fails)));
                let holds_in = |x: &Verdict| x.checks.iter().filter(|c| c.outcome == Outcome::Holds).count();
                let ours_holding = holds_in(v);
                // The variants under which most of the claim's checks hold, if more than here (all of
                // them when several tie; the numbers shown are the first's).
                let counts: Vec<(&String, &Verdict, usize)> = variants
                    .iter()
                    .filter_map(|(name, vs)| vs.get(i).filter(|x| x.id == v.id).map(|x| (name, x, holds_in(x))))
                    .filter(|(_, _, n)| *n > ours_holding)
                    .collect();
                let best = counts.iter().map(|c| c.2).max();
                let closest: Vec<&(&String, &Verdict, usize)> = counts.iter().filter(|c| Some(c.2) == best).collect();
                if !holding.is_empty() {
                    holding.join("; ")
                } else if let Some((name, x, n)) = closest.first() {
                    let names: Vec<String> = closest.iter().map(|c| format!("`{}`", c.0)).collect();
                    let (there, shown) = if closest.len() == 1 {
                        ("there".to_string(), String::new())
                    } else {
                        ("under each".to_string(), format!(", numbers under `{name}`"))
                    };
                    format!(
                        "unexplained: fails under every variant tried; closest {} ({n} of {} checks hold {there}, \
                         {ours_holding} here{shown}): {}",
                        names.join(", "),
                        x.checks.len(),
                        x.measured
                    )
                } else if tested {
                    "unexplained: fails under every variant tried, none closer".into()
                } else {
                    "unexplained: not tested by a variant (its experiment was not run under one)".into()
                }
            }
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            cell(&v.id),
            cell(&v.figure),
            cell(&v.thesis),
            cell(&v.measured),
            v.outcome,
            cell(&explanation)
        );
    }
    out
}
