//! Profile of the serial PBD sweep on the gravity-floor cube (kd = kv = 1, dt = 0.01).
//!
//! `sweep_profile <n> <sweeps> <all|dist|vol>` runs that many sweeps and prints the projections done
//! (for instruction counts: run under `valgrind --tool=callgrind` with two sweep counts and divide the
//! difference by the difference in projections); `sweep_profile rates <n> <seconds>` prints serial
//! projections per second for distance and volume constraints separately; `sweep_profile bench` prints
//! the table of `pbdfit bench pbd` (N = 1, 4, 8, 16, 32, nit = 4, 0.5 s per figure).
use pbdfit_pbd::bench::{SweepKind, profile_sweeps, projection_rates_by_type};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    if arg(0) == "bench" {
        println!("{}", pbdfit_pbd::bench::bench_report(&[1, 4, 8, 16, 32], 4, 0.5).expect("valid arguments"));
        return;
    }
    if arg(0) == "rates" {
        let n = arg(1).parse().unwrap_or(8);
        let seconds = arg(2).parse().unwrap_or(1.0);
        let (d, v) = projection_rates_by_type(n, seconds);
        println!("N = {n}: distances {d:.3e} proj/s, volumes {v:.3e} proj/s (serial)");
        return;
    }
    let n = arg(0).parse().unwrap_or(8);
    let sweeps = arg(1).parse().unwrap_or(100);
    let kind = match arg(2) {
        "dist" => SweepKind::Distances,
        "vol" => SweepKind::Volumes,
        _ => SweepKind::All,
    };
    println!("{}", profile_sweeps(n, sweeps, kind).0);
}
