//! Native timings of the benchmark workloads.
//!
//! - `bench-native data DIR`: writes the synthetic data sets (CSV) and `DIR/data.json`
//!   describing them (sizes, seeds).
//! - `bench-native time DIR BATTLES.csv ROUNDS SLOW_ROUNDS`: times every workload and prints
//!   JSON: per workload the median and minimum seconds over ROUNDS (fits) or SLOW_ROUNDS
//!   (bootstraps, GRM) timed runs after one warm-up run, and the value the workload returned;
//!   plus the estimates the Python references are checked against. The program library is
//!   timed on `tests/data/llmfao/pairs.csv` (run from the repository root).
//! - `bench-native ppi-study FILE REPETITIONS SEED`: the LLMFAO prediction-powered study
//!   ([`tribunal_benches::ppi_study`]) at 5, 10 and 25 % of the crowd's labels, as JSON.
//! - `bench-native ppi-active FILE PILOT PLANNED REPETITIONS SEED`: active labelling against
//!   uniform on the same file ([`tribunal_benches::ppi_study::ppi_active_study`]): a uniform
//!   pilot of PILOT of the battles, PLANNED more drawn by the plan each way, as JSON.
//! - `bench-native ppi-time ROUNDS FILE...`: times the prediction-powered report of each
//!   labelled-battles file ([`ppi_report`]) without and with a 1000-round bootstrap, and
//!   the leaderboard's tuned λ (the Python reference's bootstrap holds it).

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;
use tribunal::programs::simulate_votes::{simulate_votes, VoteSimulationParams};
use tribunal::rankings::battles::{parse_battles, Battles};
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::pairwise::Pairwise;
use tribunal_benches::synthetic::{
    agreement_csv, battle_params, battles_csv, calibration_csv, grm_csv,
};
use tribunal_benches::*;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Synthetic battle sets: (file, battles). 60 models, simulation seed 1.
const BATTLE_SETS: [(&str, usize); 2] =
    [("battles-100k.csv", 100_000), ("battles-1m.csv", 1_000_000)];
const N_MODELS: usize = 60;
const BATTLE_SEED: u64 = 1;
const ALPHA_FILE: &str = "alpha-10k.csv";
/// The LLMFAO pairs the program library is timed on (relative to the repository root).
const PAIRS_FILE: &str = "tests/data/llmfao/pairs.csv";
/// Simulated votes of 20 programs on 5000 items for the label model.
const VOTES_FILE: &str = "votes-5k-20.csv";
const KAPPA_FILE: &str = "kappa-10k.csv";
const GRM_FILE: &str = "grm-1000x4.csv";
/// Calibration sets: (file, BTL head, embedding dimension); 500 rows each, seed 14.
const CALIBRATION_SETS: [(&str, bool, usize); 4] = [
    ("cal-ls-384.csv", false, 384),
    ("cal-ls-4096.csv", false, 4096),
    ("cal-btl-384.csv", true, 384),
    ("cal-btl-4096.csv", true, 4096),
];
const CALIBRATION_ROWS: usize = 500;
const CALIBRATION_SEED: u64 = 14;

fn time(rounds: usize, mut f: impl FnMut() -> f64) -> Value {
    let value = std::hint::black_box(f());
    let mut seconds: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    json!({ "median_s": seconds[seconds.len() / 2], "min_s": seconds[0], "rounds": rounds,
            "value": value })
}

fn write_data(dir: &Path) -> Res<()> {
    std::fs::create_dir_all(dir)?;
    let mut files = serde_json::Map::new();
    for (name, n) in BATTLE_SETS {
        let params = battle_params(n, N_MODELS, BATTLE_SEED);
        std::fs::write(dir.join(name), battles_csv(&params)?)?;
        files.insert(name.into(), json!({ "simulation": params }));
    }
    std::fs::write(dir.join(ALPHA_FILE), agreement_csv(10_000, 5, 5, 0.2, 11))?;
    files.insert(
        ALPHA_FILE.into(),
        json!({ "items": 10_000, "raters": 5, "categories": 5, "missing": 0.2, "seed": 11 }),
    );
    std::fs::write(dir.join(KAPPA_FILE), agreement_csv(10_000, 2, 5, 0.0, 12))?;
    files.insert(
        KAPPA_FILE.into(),
        json!({ "items": 10_000, "raters": 2, "categories": 5, "missing": 0.0, "seed": 12 }),
    );
    std::fs::write(dir.join(GRM_FILE), grm_csv(1000, 4, 13))?;
    files.insert(
        GRM_FILE.into(),
        json!({ "items": 1000, "variants": 4, "categories": 5, "seed": 13 }),
    );
    for (name, btl, d) in CALIBRATION_SETS {
        std::fs::write(
            dir.join(name),
            calibration_csv(CALIBRATION_ROWS, d, btl, CALIBRATION_SEED),
        )?;
        files.insert(
            name.into(),
            json!({ "rows": CALIBRATION_ROWS, "dim": d, "btl": btl, "seed": CALIBRATION_SEED }),
        );
    }
    let simulation = votes_simulation();
    std::fs::write(dir.join(VOTES_FILE), votes_csv(&simulation)?)?;
    files.insert(VOTES_FILE.into(), json!({ "simulation": simulation }));
    std::fs::write(dir.join("data.json"), Value::Object(files).to_string())?;
    Ok(())
}

/// 20 programs with accuracies 0.55…0.93 and abstain rates 0.1…0.67, 5000 items, seed 14.
fn votes_simulation() -> VoteSimulationParams {
    VoteSimulationParams {
        items: 5000,
        accuracies: (0..20).map(|j| 0.55 + 0.02 * f64::from(j)).collect(),
        abstain: (0..20)
            .map(|j| 0.1 + 0.03 * f64::from((j * 7) % 20))
            .collect(),
        prior: 0.5,
        seed: 14,
    }
}

/// The simulated votes as a vote file: `id,p0,…,p19`.
fn votes_csv(params: &VoteSimulationParams) -> Res<String> {
    let (votes, _) = simulate_votes(params)?;
    let mut out = format!("id,{}\n", votes.programs.join(","));
    for i in 0..votes.items {
        let row: Vec<String> = votes.row(i).iter().map(i8::to_string).collect();
        out.push_str(&format!("{i},{}\n", row.join(",")));
    }
    Ok(out)
}

/// θ of every model by name, from the same fit `fit_only` times.
fn thetas(battles: &Battles) -> Res<BTreeMap<String, f64>> {
    let data = Pairwise::from_battles(battles.n_models(), &battles.battles);
    let fit = BradleyTerryParams::default().fit(&data)?;
    Ok(battles.models.iter().cloned().zip(fit.theta).collect())
}

fn read_battles(path: &Path) -> Res<(Vec<u8>, Battles)> {
    let bytes = std::fs::read(path)?;
    let battles = parse_battles(&path.display().to_string(), &bytes)?;
    Ok((bytes, battles))
}

fn time_all(dir: &Path, llmfao: &Path, rounds: usize, slow: usize) -> Res<Value> {
    let mut report = serde_json::Map::new();
    let (bytes, battles) = read_battles(llmfao)?;
    report.insert(
        "llmfao".into(),
        json!({
            "file": llmfao.display().to_string(),
            "battles": battles.battles.len(),
            "models": battles.n_models(),
            "csv_to_leaderboard": time(rounds, || csv_to_leaderboard(&bytes)),
            "fit_only": time(rounds, || fit_only(&battles)),
        }),
    );
    for (name, _) in BATTLE_SETS {
        let (_, battles) = read_battles(&dir.join(name))?;
        report.insert(
            name.into(),
            json!({
                "battles": battles.battles.len(),
                "models": battles.n_models(),
                "fit_only": time(rounds, || fit_only(&battles)),
                "bootstrap": time(slow, || bt_bootstrap(&battles)),
                "bootstrap_settings": bt_bootstrap_params(),
                "theta": thetas(&battles)?,
            }),
        );
    }

    let alpha = parse_ratings(&std::fs::read(dir.join(ALPHA_FILE))?)?;
    let estimate = tribunal::reliability::alpha::AlphaParams {
        level: tribunal::reliability::alpha::AlphaLevel::Nominal,
    }
    .compute(&alpha.values)?;
    report.insert(
        ALPHA_FILE.into(),
        json!({
            "items": alpha.items.len(),
            "raters": alpha.raters.len(),
            "bootstrap": time(slow, || alpha_bootstrap(&alpha)),
            "bootstrap_settings": agreement_bootstrap_params(),
            "alpha": estimate.alpha,
        }),
    );

    let kappa = parse_ratings(&std::fs::read(dir.join(KAPPA_FILE))?)?;
    let (a, b) = kappa_pair(&kappa);
    let estimate = tribunal::reliability::kappa::KappaParams::default().compute(&a, &b)?;
    report.insert(
        KAPPA_FILE.into(),
        json!({
            "items": a.len(),
            "bootstrap": time(slow, || kappa_bootstrap(&a, &b)),
            "bootstrap_settings": agreement_bootstrap_params(),
            "kappa": estimate.kappa,
        }),
    );

    let grm = grm_matrix(&parse_ratings(&std::fs::read(dir.join(GRM_FILE))?)?)?;
    let mut entry = serde_json::Map::new();
    entry.insert("items".into(), json!(grm.n_items()));
    entry.insert("variants".into(), json!(grm.n_variants()));
    for key in GRM_SETTINGS {
        let params = grm_params(key).ok_or("a GRM setting without parameters")?;
        let fit = params.fit(&grm)?;
        entry.insert(
            key.into(),
            json!({
                "fit": time(slow, || grm_fit(&grm, &params)),
                "settings": params,
                "iterations": fit.iterations,
                "converged": fit.converged,
                "alpha": fit.variants.iter().map(|v| v.alpha).collect::<Vec<_>>(),
                "thresholds": fit.variants.iter().map(|v| v.thresholds.clone()).collect::<Vec<_>>(),
            }),
        );
    }
    report.insert(GRM_FILE.into(), Value::Object(entry));

    for (name, btl, _) in CALIBRATION_SETS {
        let data = parse_calibration_file(&std::fs::read(dir.join(name))?, btl)?;
        let mut entry = json!({
            "rows": data.len(),
            "dim": data.dim(),
            "cv": time(slow, || calibration_cv(&data, None)),
            "cv_settings": tribunal::calibration::cross_validation::CrossValidationParams::default(),
        });
        if btl {
            entry["cv_sklearn_tolerance"] =
                time(slow, || calibration_cv(&data, Some(SKLEARN_TOLERANCE)));
        }
        report.insert(name.into(), entry);
    }
    let pairs = parse_pairs_file(&std::fs::read(PAIRS_FILE)?)?;
    report.insert(
        "programs".into(),
        json!({
            "file": PAIRS_FILE,
            "pairs": pairs.len(),
            "programs": tribunal::programs::program_library::BuiltinProgram::ALL.len(),
            "library": time(rounds, || program_library(&pairs)),
        }),
    );
    let votes = parse_votes_file(&std::fs::read(dir.join(VOTES_FILE))?)?;
    report.insert(
        VOTES_FILE.into(),
        json!({
            "items": votes.items,
            "programs": votes.programs.len(),
            "fit": time(rounds, || label_model_fit(&votes)[0]),
            "settings": tribunal::programs::label_model::LabelModelParams::default(),
            "accuracies": label_model_fit(&votes),
        }),
    );
    Ok(Value::Object(report))
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bench-native data DIR | bench-native time DIR BATTLES.csv ROUNDS \
                 SLOW_ROUNDS | bench-native ppi-study LABELLED_BATTLES.csv REPETITIONS SEED | \
                 bench-native ppi-active LABELLED_BATTLES.csv PILOT PLANNED REPETITIONS SEED | \
                 bench-native ppi-time ROUNDS LABELLED_BATTLES.csv... | \
                 bench-native link-sizes FILE...";
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["data", dir] => write_data(Path::new(dir)),
        ["time", dir, llmfao, rounds, slow] => {
            let (rounds, slow): (usize, usize) = (rounds.parse()?, slow.parse()?);
            if rounds == 0 || slow == 0 {
                return Err("ROUNDS and SLOW_ROUNDS must be at least 1".into());
            }
            let report = time_all(Path::new(dir), Path::new(llmfao), rounds, slow)?;
            println!("{report}");
            Ok(())
        }
        ["ppi-study", file, reps, seed] => {
            let bytes = std::fs::read(file)?;
            let study = tribunal_benches::ppi_study::ppi_study(
                &bytes,
                &[0.05, 0.10, 0.25],
                reps.parse()?,
                seed.parse()?,
            )?;
            println!("{study}");
            Ok(())
        }
        ["ppi-active", file, pilot, planned, reps, seed] => {
            let bytes = std::fs::read(file)?;
            let study = tribunal_benches::ppi_study::ppi_active_study(
                &bytes,
                (pilot.parse()?, planned.parse()?),
                reps.parse()?,
                seed.parse()?,
            )?;
            println!("{study}");
            Ok(())
        }
        ["ppi-time", rounds, ref files @ ..] => {
            let rounds: usize = rounds.parse()?;
            let mut report = serde_json::Map::new();
            for file in files {
                let bytes = std::fs::read(file)?;
                let lambda = tribunal::ppi::ppi_report::PpiParams::default()
                    .fit(file, &bytes)?
                    .leaderboard
                    .map(|b| b.lambda);
                report.insert(
                    (*file).to_owned(),
                    json!({
                        "lambda": lambda,
                        "asymptotic": time(rounds, || ppi_report(&bytes, 0)),
                        "bootstrap_1000": time(rounds, || ppi_report(&bytes, 1000)),
                    }),
                );
            }
            println!("{}", Value::Object(report));
            Ok(())
        }
        ["link-sizes", ref files @ ..] => {
            let mut report = serde_json::Map::new();
            for file in files {
                report.insert((*file).to_owned(), link_sizes(file)?);
            }
            println!("{}", Value::Object(report));
            Ok(())
        }
        _ => Err(usage.into()),
    }
}

/// The characters of a share link carrying `file` alone (in a leaderboard spec's `battles`
/// role): version 3 (`share_link::encode`, timed) beside version 2 (the JSON with the file as
/// text — binary files as base64 — raw DEFLATE at level 9, base64url).
fn link_sizes(file: &str) -> Res<Value> {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
    use base64::Engine;
    use tribunal::analysis::{Analysis, Inputs, Spec};
    use tribunal::sessions::share_link::{encode, SharedAnalysis, MAX_FRAGMENT_CHARS};
    let bytes = std::fs::read(file)?;
    let name = Path::new(file)
        .file_name()
        .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
    let mut inputs = Inputs::new();
    inputs.insert("battles", name.clone(), bytes.clone());
    let spec = Spec::new(
        Analysis::Leaderboard(tribunal::rankings::kinds::LeaderboardSpec::default()),
        &inputs,
    );
    let content = String::from_utf8(bytes.clone()).unwrap_or_else(|_| STANDARD.encode(&bytes));
    let v2 = json!({"spec": spec, "files": {"battles": {"name": name, "content": content}}});
    let v2 = URL_SAFE_NO_PAD
        .encode(miniz_oxide::deflate::compress_to_vec(
            &serde_json::to_vec(&v2)?,
            9,
        ))
        .len()
        + 3;
    let shared = SharedAnalysis { spec, inputs };
    let start = Instant::now();
    let v3 = encode(&shared, &BTreeMap::new());
    let seconds = start.elapsed().as_secs_f64();
    Ok(json!({
        "bytes": bytes.len(),
        "v2_chars": v2,
        "v3_chars": v3.as_ref().map(String::len).ok(),
        "v3_error": v3.err().map(|e| e.to_string()),
        "v3_encode_seconds": seconds,
        "limit": MAX_FRAGMENT_CHARS,
    }))
}
