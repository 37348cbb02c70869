//! Native timings of the benchmark workloads. Usage: `bench-native FILE.csv [ROUNDS]`.
//! Prints JSON: per workload, the median and minimum seconds over ROUNDS timed runs
//! (after one warm-up run).

use std::time::Instant;
use tribunal::battles::parse_battles;
use tribunal_benches::{csv_to_leaderboard, fit_only};

fn time(rounds: usize, mut f: impl FnMut() -> f64) -> serde_json::Value {
    std::hint::black_box(f());
    let mut seconds: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    serde_json::json!({ "median_s": seconds[seconds.len() / 2], "min_s": seconds[0], "rounds": rounds })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: bench-native FILE.csv [ROUNDS]")?;
    let rounds: usize = args.next().map_or(Ok(50), |r| r.parse())?;
    let bytes = std::fs::read(&path)?;
    let battles = parse_battles(&path, &bytes)?;
    let report = serde_json::json!({
        "file": path,
        "battles": battles.battles.len(),
        "models": battles.n_models(),
        "csv_to_leaderboard": time(rounds, || csv_to_leaderboard(&bytes)),
        "fit_only": time(rounds, || fit_only(&battles)),
    });
    println!("{report}");
    Ok(())
}
