//! Prints the GPU benchmark (`pbdfit bench gpu` does the same): `cargo run --release -p pbdfit-gpu
//! --example bench_gpu [seconds per figure]`.

fn main() {
    let seconds = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    match pbdfit_gpu::bench::bench_report(seconds) {
        Ok(report) => print!("{report}"),
        Err(e) => eprintln!("bench_gpu: {e}"),
    }
}
