//! The LLMFAO prediction-powered study (issue 23): how often the prediction-powered
//! leaderboard's intervals cover the full-crowd leaderboard, and how wide they are, when only a
//! sample of the crowd's labels is kept — against the intervals of the same labels alone.
//!
//! The file labels every battle (`benches/make_ppi_llmfao.py`: GPT-4's verdict as the judge,
//! the crowd's mean preference as the human label). The truth is the full-crowd Bradley–Terry
//! fit (every battle's crowd label, no judge) and each model's full-crowd win rate. Each
//! repetition keeps the crowd label of a uniform sample of the battles (a fraction of them,
//! without replacement; repetition r draws from ChaCha8 stream r of the seed) and fits the
//! report with the judge's verdict on every battle: the prediction-powered leaderboard
//! (power-tuned λ, asymptotic 95 % intervals, rank sets) and the human-only one, and each
//! model's win rates (tallied from the default `min_labels` up, and by labels from 2 up). A
//! leaderboard that is not identified (a model with too few kept labels)
//! counts as such, never as a miss or a hit.
//!
//! The truth is a property of the finite crowd sample the labels are drawn from, so at large
//! fractions the intervals (built for a draw from an infinite population) over-cover.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tribunal::ppi::label_plan::LabelPlanParams;
use tribunal::ppi::labelled_battles::{parse_labelled_battles, LabelledBattles};
use tribunal::ppi::ppi_ranks::RankSet;
use tribunal::ppi::ppi_report::{PpiParams, PpiRating, PpiReport};
use tribunal::Error;

/// Win rates tallied apart by their human labels: at least 2, 5, 10, 20, 40.
const BUCKETS: [usize; 5] = [2, 5, 10, 20, 40];

/// The battles as a CSV (`row`: each battle's index), the human label kept where `keep` says
/// (always the judge's).
fn to_csv(data: &LabelledBattles, keep: &[bool]) -> String {
    let mut csv = String::from("row,model_a,model_b,judge,human\n");
    for (i, (b, &kept)) in data.battles.iter().zip(keep).enumerate() {
        let human = match (kept, b.human) {
            (true, Some(h)) => h.to_string(),
            _ => String::new(),
        };
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        csv.push_str(&format!(
            "{i},{},{},{},{human}\n",
            quote(&data.models[b.a]),
            quote(&data.models[b.b]),
            b.judge
        ));
    }
    csv
}

/// Per model: its interval's bounds and its rank set.
type Row = (String, [f64; 2], Option<RankSet>);

/// Per model: the full crowd's Elo difference and rank; and its win rate.
type Truth = (BTreeMap<String, (f64, usize)>, BTreeMap<String, f64>);

/// Tallies of one kind of interval over the repetitions.
#[derive(Default)]
struct Tally {
    identified: usize,
    covered: usize,
    intervals: usize,
    all_covered: usize,
    width: f64,
    ranks_held: usize,
    rank_set_size: f64,
}

impl Tally {
    fn add(&mut self, truth: &BTreeMap<String, (f64, usize)>, rows: &[Row]) {
        self.identified += 1;
        let (mut all, mut held) = (true, true);
        for (model, [lower, upper], ranks) in rows {
            let (value, rank) = truth[model];
            if lower == upper {
                continue; // the reference model: fixed at 0
            }
            let hit = *lower <= value && value <= *upper;
            self.covered += usize::from(hit);
            self.intervals += 1;
            self.width += upper - lower;
            all &= hit;
            if let Some(set) = ranks {
                held &= set.contains(rank);
                self.rank_set_size += (set.worst - set.best + 1) as f64 / rows.len() as f64;
            }
        }
        self.all_covered += usize::from(all);
        self.ranks_held += usize::from(held);
    }

    fn summary(&self, reps: usize) -> Value {
        let per = |v: f64, k: usize| {
            if k == 0 {
                Value::Null
            } else {
                json!(v / k as f64)
            }
        };
        json!({
            "identified": self.identified as f64 / reps as f64,
            "coverage": per(self.covered as f64, self.intervals),
            "all_models_covered": per(self.all_covered as f64, self.identified),
            "mean_width_elo": per(self.width, self.intervals),
            "rank_sets_hold_every_true_rank": per(self.ranks_held as f64, self.identified),
            "mean_rank_set_size": per(self.rank_set_size, self.identified),
        })
    }
}

/// Tallies of the win rates' intervals.
#[derive(Default)]
struct RateTally {
    covered: usize,
    intervals: usize,
    width: f64,
}

impl RateTally {
    fn add(&mut self, truth: f64, lower: f64, upper: f64) {
        self.covered += usize::from(lower <= truth && truth <= upper);
        self.intervals += 1;
        self.width += upper - lower;
    }

    fn summary(&self) -> Value {
        let k = self.intervals.max(1) as f64;
        json!({"coverage": self.covered as f64 / k, "mean_width": self.width / k, "intervals": self.intervals})
    }
}

fn rows(
    ratings: &[PpiRating],
    pick: impl Fn(&PpiRating) -> Option<([f64; 2], Option<RankSet>)>,
) -> Option<Vec<Row>> {
    ratings
        .iter()
        .map(|r| pick(r).map(|(bounds, ranks)| (r.model.clone(), bounds, ranks)))
        .collect()
}

/// The full-crowd truth: each model's Elo difference from the reference and its rank, and
/// each model's win rate.
fn truth(data: &LabelledBattles, params: &PpiParams) -> Result<Truth, Error> {
    // Every battle labelled, and one copy of the first unlabelled (the report needs an
    // unlabelled row; at λ = 0 the fit does not read it).
    let mut all = to_csv(data, &vec![true; data.battles.len()]);
    let first = to_csv(data, &[false]);
    all.push_str(first.lines().nth(1).unwrap_or_default());
    all.push('\n');
    let human_only = PpiParams {
        lambda: Some(0.0),
        ..params.clone()
    };
    let report = human_only.fit("llmfao-full.csv", all.as_bytes())?;
    let board = report.leaderboard.ok_or_else(|| {
        Error::Insufficient("the full-crowd leaderboard is not identified".into())
    })?;
    let mut elo: Vec<(String, f64)> = board
        .ratings
        .iter()
        .map(|r| (r.model.clone(), r.ppi.estimate))
        .collect();
    elo.sort_by(|a, b| b.1.total_cmp(&a.1));
    let ranks = elo
        .iter()
        .enumerate()
        .map(|(k, (m, v))| (m.clone(), (*v, k + 1)))
        .collect();
    let mut rates = BTreeMap::new();
    for (m, model) in data.models.iter().enumerate() {
        let (sum, count) =
            data.battles
                .iter()
                .filter(|b| b.a == m || b.b == m)
                .fold((0.0, 0), |(s, k), b| {
                    let h = b.human.unwrap_or(f64::NAN);
                    (s + if b.a == m { h } else { 1.0 - h }, k + 1)
                });
        rates.insert(model.clone(), sum / f64::from(count));
    }
    Ok((ranks, rates))
}

/// The study's file: every battle must carry the crowd's label (the truth).
fn fully_labelled(bytes: &[u8]) -> Result<LabelledBattles, Error> {
    let data = parse_labelled_battles("llmfao-full.csv", bytes)?;
    if data.battles.iter().any(|b| b.human.is_none()) {
        return Err(Error::Insufficient(
            "the study needs a crowd label on every battle".into(),
        ));
    }
    Ok(data)
}

/// `kept` of `n` battles drawn uniformly without replacement, from ChaCha8 stream `r` of
/// `seed`.
fn uniform_sample(n: usize, kept: usize, seed: u64, r: usize) -> Vec<bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(r as u64);
    let mut order: Vec<usize> = (0..n).collect();
    for i in 0..kept {
        let j = rng.random_range(i..n);
        order.swap(i, j);
    }
    let mut keep = vec![false; n];
    for &i in &order[..kept] {
        keep[i] = true;
    }
    keep
}

/// The study: for each fraction, `reps` repetitions from `seed`. Returns the tallies as JSON.
///
/// # Errors
/// The parser's errors; [`Error::Insufficient`] when a battle has no crowd label or the
/// full-crowd leaderboard is not identified.
pub fn ppi_study(bytes: &[u8], fractions: &[f64], reps: usize, seed: u64) -> Result<Value, Error> {
    let data = fully_labelled(bytes)?;
    // Win rates from 2 labels up, to measure the coverage by labels; the tallies beside it
    // count those the report shows by default (`min_labels`).
    let params = PpiParams {
        bootstrap: None,
        min_labels: 2,
        ..PpiParams::default()
    };
    let (elo, rates) = truth(&data, &params)?;
    let n = data.battles.len();
    let mut results = Vec::new();
    for &fraction in fractions {
        let kept = ((fraction * n as f64).round() as usize).clamp(2, n - 1);
        let (mut ppi, mut human) = (Tally::default(), Tally::default());
        let (mut ppi_rates, mut human_rates, mut judge_rates) = (
            RateTally::default(),
            RateTally::default(),
            RateTally::default(),
        );
        let mut lambdas = 0.0;
        let mut by_labels: Vec<RateTally> = BUCKETS.iter().map(|_| RateTally::default()).collect();
        for r in 0..reps {
            let keep = uniform_sample(n, kept, seed, r);
            let report: PpiReport = params.fit("sample.csv", to_csv(&data, &keep).as_bytes())?;
            for w in &report.win_rates {
                if let Some(e) = &w.estimate {
                    let truth = rates[&w.model];
                    let bucket = BUCKETS.iter().rposition(|&lo| e.n >= lo).unwrap_or(0);
                    by_labels[bucket].add(truth, e.ppi.lower, e.ppi.upper);
                    if e.n < PpiParams::default().min_labels {
                        continue;
                    }
                    ppi_rates.add(truth, e.ppi.lower, e.ppi.upper);
                    human_rates.add(truth, e.human_only.lower, e.human_only.upper);
                    judge_rates.add(truth, e.judge_only.lower, e.judge_only.upper);
                }
            }
            if let Some(board) = &report.leaderboard {
                lambdas += board.lambda;
                if let Some(rows) = rows(&board.ratings, |r| {
                    Some(([r.ppi.lower, r.ppi.upper], Some(r.ranks)))
                }) {
                    ppi.add(&elo, &rows);
                }
                if let Some(rows) = rows(&board.ratings, |r| {
                    r.human_only
                        .map(|h| ([h.lower, h.upper], r.human_only_ranks))
                }) {
                    human.add(&elo, &rows);
                }
            }
        }
        results.push(json!({
            "fraction": fraction,
            "labels": kept,
            "repetitions": reps,
            "leaderboard": {
                "prediction_powered": ppi.summary(reps),
                "human_only": human.summary(reps),
                "mean_lambda": if ppi.identified > 0 { json!(lambdas / ppi.identified as f64) } else { Value::Null },
            },
            "win_rates": {
                "prediction_powered": ppi_rates.summary(),
                "human_only": human_rates.summary(),
                "judge_only": judge_rates.summary(),
                "prediction_powered_by_labels": BUCKETS.iter().zip(&by_labels).map(|(lo, t)| json!({"at_least": lo, "tally": t.summary()})).collect::<Vec<_>>(),
            },
        }));
    }
    Ok(json!({
        "battles": n,
        "models": data.models.len(),
        "seed": seed,
        "alpha": params.alpha,
        "results": results,
    }))
}

/// The plan's file with the crowd's label filled in on the battles it selected, as the
/// annotators would return it.
fn returned(data: &LabelledBattles, plan_csv: &str) -> Result<String, Error> {
    let bad = |e: csv::Error| Error::Insufficient(format!("reading the plan: {e}"));
    let mut reader = csv::Reader::from_reader(plan_csv.as_bytes());
    let header = reader.headers().map_err(bad)?.clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::Insufficient(format!("the plan has no `{name}` column")))
    };
    let (row, human, selected) = (at("row")?, at("human")?, at("selected")?);
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&header).map_err(bad)?;
    for record in reader.records() {
        let mut fields: Vec<String> = record.map_err(bad)?.iter().map(str::to_owned).collect();
        if fields[selected] == "1" {
            let i: usize = fields[row].parse().unwrap_or(usize::MAX);
            let label = data.battles.get(i).and_then(|b| b.human);
            fields[human] = label.map_or_else(String::new, |h| h.to_string());
        }
        out.write_record(&fields).map_err(bad)?;
    }
    let bytes = out
        .into_inner()
        .map_err(|e| Error::Insufficient(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| Error::Insufficient(e.to_string()))
}

/// Active labelling against uniform on LLMFAO: each repetition keeps the crowd label of a
/// uniform pilot (`pilot` of the battles), plans `planned` more labels twice from the same
/// pilot — actively (the default uniform share, 0.2) and uniformly (share 1: every unlabelled
/// battle at the same probability, the same expected budget) — fills the crowd's labels in on
/// the selected battles, and tallies the prediction-powered leaderboard of each returned file
/// against the full-crowd one. Plan r uses seed r; the pilot, stream r of `seed`.
///
/// # Errors
/// As [`ppi_study`].
pub fn ppi_active_study(
    bytes: &[u8],
    (pilot, planned): (f64, f64),
    reps: usize,
    seed: u64,
) -> Result<Value, Error> {
    let data = fully_labelled(bytes)?;
    let params = PpiParams {
        bootstrap: None,
        ..PpiParams::default()
    };
    let (elo, _) = truth(&data, &params)?;
    let n = data.battles.len();
    let kept = ((pilot * n as f64).round() as usize).clamp(2, n - 1);
    let labels = ((planned * n as f64).round() as usize).max(1);
    let arms = [
        ("active", LabelPlanParams::default().uniform_share),
        ("uniform", 1.0),
    ];
    let mut tallies: Vec<(Tally, usize)> = arms.iter().map(|_| (Tally::default(), 0)).collect();
    for r in 0..reps {
        let keep = uniform_sample(n, kept, seed, r);
        let file = to_csv(&data, &keep);
        for ((_, share), (tally, drawn)) in arms.iter().zip(&mut tallies) {
            let planning = PpiParams {
                plan: Some(LabelPlanParams {
                    labels,
                    uniform_share: *share,
                    seed: r as u64,
                }),
                ..params.clone()
            };
            let Some(plan) = planning.fit("pilot.csv", file.as_bytes())?.plan else {
                continue;
            };
            *drawn += plan.selected;
            let back = returned(&data, &plan.csv)?;
            let report = params.fit("returned.csv", back.as_bytes())?;
            if let Some(board) = &report.leaderboard {
                if let Some(rows) = rows(&board.ratings, |r| {
                    Some(([r.ppi.lower, r.ppi.upper], Some(r.ranks)))
                }) {
                    tally.add(&elo, &rows);
                }
            }
        }
    }
    let results: serde_json::Map<String, Value> = arms
        .iter()
        .zip(&tallies)
        .map(|((name, share), (tally, drawn))| {
            (
                (*name).to_owned(),
                json!({
                    "uniform_share": share,
                    "mean_labels_drawn": *drawn as f64 / reps as f64,
                    "leaderboard": tally.summary(reps),
                }),
            )
        })
        .collect();
    Ok(json!({
        "battles": n,
        "models": data.models.len(),
        "pilot_labels": kept,
        "planned_labels": labels,
        "repetitions": reps,
        "seed": seed,
        "arms": results,
    }))
}
