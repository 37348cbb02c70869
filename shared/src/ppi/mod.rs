//! Prediction-powered inference (PPI++, Angelopoulos, Duchi & Zrnic 2023): estimates that use a
//! few human labels and many judge labels, the human labels correcting the judge's bias (the
//! rectifier) and the judge's labels shrinking the interval, with the power-tuning weight λ
//! chosen from the data (λ = 0: the human labels alone; λ = 1: plain PPI).
//!
//! - [`power_tuning`]: the λ that minimises the estimate's variance, from the gradients of the
//!   loss on the labelled and unlabelled data.
//! - [`ppi_mean`]: a mean (a pass rate, a model's win rate) and its interval.
//! - [`ppi_logistic`]: logistic regression without intercept — the Bradley–Terry leaderboard —
//!   and its intervals.
//! - [`ppi_bootstrap`]: the percentile bootstrap of both, seeded (labelled and unlabelled rows
//!   resampled apart, λ held at the whole data's).
//! - [`ppi_ranks`]: rank sets that cover every model's true rank at once (Bonferroni over the
//!   pairwise differences of the fit).
//! - [`labelled_battles`]: the input file (every comparison with the judge's label, some with a
//!   human one); [`ppi_report`]: the report of `tribunal stats ppi` (win rates, leaderboard).
//! - [`label_budget`]: from a pilot, the width expected with n human labels with and without
//!   the judge, and the n a target width needs.
//! - [`label_plan`]: which battles to label next — a seeded draw that favours the battles whose
//!   label would shrink the leaderboard's intervals most, each row's probability recorded;
//!   [`active_inference`]: the estimates from labels drawn so (each weighted by 1/π).
//! - [`cross_fit`]: the judge's labels replaced by a calibration head (seed 000's BTL head)
//!   cross-fitted on the human labels, so that no label is predicted by a head that saw it.
//! - [`judge_value`]: the judge value gauge — from a pilot's human labels, the judge's
//!   agreement, ρ, what PPI makes of a label and the most any debiasing can save.
//! - [`kinds`]: the family's analysis kinds: PPI and the gauge on a labelled-battles file.
//!
//! Every logistic fit above minimises [`crate::math::weighted_logistic`]'s loss.
//!
//! Numbers equal ppi-python 0.2.3 (`ppi_mean_ci`, `ppi_logistic_ci`) on the same data
//! (`tests/fixtures/make_ppi_reference.py`).

pub mod active_inference;
pub mod cross_fit;
pub mod judge_value;
pub mod kinds;
pub mod label_budget;
pub mod label_plan;
pub mod labelled_battles;
pub mod power_tuning;
pub mod ppi_bootstrap;
pub mod ppi_logistic;
pub mod ppi_mean;
pub mod ppi_ranks;
pub mod ppi_report;

/// The logistic fits' name in "not identified" messages, with the usual reason.
pub(crate) const PPI_FIT: &str = "the prediction-powered logistic fit (too few human labels \
     for some model, given how one-sided the judge's verdicts on it are, or a model in no \
     battle)";

#[cfg(test)]
pub(crate) mod tests {
    //! Against ppi-python 0.2.3 on LLMFAO (`tests/fixtures/make_ppi_reference.py`).

    use super::ppi_logistic::ppi_logistic;
    use super::ppi_mean::ppi_mean;
    use crate::io::error::Error;
    use crate::math::weighted_logistic::Design;
    use ndarray::Array2;
    use serde_json::Value;

    const REFERENCE: &str = include_str!("../../../tests/fixtures/ppi_reference.json");
    const BATTLES: &str = include_str!("../../../tests/fixtures/ppi-llmfao-battles.csv");
    const TEN: &str = include_str!("../../../tests/fixtures/ppi-llmfao-ten-models.csv");

    /// (model_a, model_b, judge, human) of each row.
    fn rows(text: &str) -> Vec<(String, String, f64, Option<f64>)> {
        text.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let human = (!f[4].is_empty()).then(|| f[4].parse().unwrap());
                (
                    f[1].to_owned(),
                    f[2].to_owned(),
                    f[3].parse().unwrap(),
                    human,
                )
            })
            .collect()
    }

    fn close(ours: f64, theirs: &Value, tol: f64, at: &str) {
        let theirs = theirs.as_f64().unwrap();
        assert!((ours - theirs).abs() <= tol, "{at}: {ours} vs {theirs}");
    }

    #[test]
    fn win_rates_equal_ppi_python() {
        let reference: Value = serde_json::from_str(REFERENCE).unwrap();
        let rows = rows(BATTLES);
        let alpha = reference["alpha"].as_f64().unwrap();
        for want in reference["win_rates"].as_array().unwrap() {
            let model = want["model"].as_str().unwrap();
            let (mut y, mut yhat, mut yu) = (Vec::new(), Vec::new(), Vec::new());
            for (a, b, judge, human) in &rows {
                let flip = |v: f64| if b == model { 1.0 - v } else { v };
                if a != model && b != model {
                    continue;
                }
                match human {
                    Some(h) => {
                        y.push(flip(*h));
                        yhat.push(flip(*judge));
                    }
                    None => yu.push(flip(*judge)),
                }
            }
            let got = ppi_mean(&y, &yhat, &yu, None, alpha).unwrap();
            assert_eq!((got.n, got.unlabelled), (y.len(), yu.len()));
            close(got.lambda, &want["lambda"], 1e-9, model);
            for (ours, name) in [(got.ppi, "tuned"), (got.human_only, "classical")] {
                close(ours.estimate, &want[name]["estimate"], 1e-9, model);
                close(ours.lower, &want[name]["lower"], 1e-9, model);
                close(ours.upper, &want[name]["upper"], 1e-9, model);
            }
            let plain = ppi_mean(&y, &yhat, &yu, Some(1.0), alpha).unwrap();
            close(plain.ppi.lower, &want["ppi"]["lower"], 1e-9, model);
            close(plain.ppi.upper, &want["ppi"]["upper"], 1e-9, model);
            // Power tuning never does worse than the human labels alone.
            assert!(got.ppi.se <= got.human_only.se + 1e-12, "{model}");
            assert!(got.effective_n >= got.n as f64 - 1e-9);
        }
    }

    #[test]
    fn the_bradley_terry_fit_equals_ppi_python() {
        let reference: Value = serde_json::from_str(REFERENCE).unwrap();
        let want = &reference["bradley_terry"];
        let models: Vec<&str> = want["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let rows = rows(TEN);
        let design = |part: &[&(String, String, f64, Option<f64>)]| {
            let mut x = Array2::zeros((part.len(), models.len() - 1));
            for (r, (a, b, _, _)) in part.iter().enumerate() {
                let ia = models.iter().position(|m| m == a).unwrap();
                let ib = models.iter().position(|m| m == b).unwrap();
                if ia > 0 {
                    x[[r, ia - 1]] += 1.0;
                }
                if ib > 0 {
                    x[[r, ib - 1]] -= 1.0;
                }
            }
            x
        };
        let labelled: Vec<_> = rows.iter().filter(|r| r.3.is_some()).collect();
        let unlabelled: Vec<_> = rows.iter().filter(|r| r.3.is_none()).collect();
        let (x, xu) = (
            Design::from_dense(&design(&labelled)),
            Design::from_dense(&design(&unlabelled)),
        );
        let y: Vec<f64> = labelled.iter().map(|r| r.3.unwrap()).collect();
        let yhat: Vec<f64> = labelled.iter().map(|r| r.2).collect();
        let yu: Vec<f64> = unlabelled.iter().map(|r| r.2).collect();
        let alpha = reference["alpha"].as_f64().unwrap();
        for (lambda, name) in [(None, "tuned"), (Some(1.0), "ppi")] {
            let got = ppi_logistic((&x, &y, &yhat), (&xu, &yu), lambda, alpha).unwrap();
            assert_eq!((got.n, got.unlabelled), (80, 121));
            for (k, e) in got.ppi.iter().enumerate() {
                let at = format!("{name} θ{k}");
                let (lo, hi) = (&want[name]["lower"][k], &want[name]["upper"][k]);
                // ppi-python's interval is centred on its estimate.
                let centre = (lo.as_f64().unwrap() + hi.as_f64().unwrap()) / 2.0;
                close(e.estimate, &Value::from(centre), 1e-6, &at);
                close(e.lower, lo, 1e-6, &at);
                close(e.upper, hi, 1e-6, &at);
            }
        }
    }

    /// `k` items with a latent x ~ U(0, 1): the human label Bernoulli(x), the judge's
    /// Bernoulli(min(1, x + 0.15)) — informative but biased upwards (its mean is 0.63875, the
    /// truth 0.5). Returns (human labels, judge labels).
    pub(crate) fn biased_items(rng: &mut impl rand::Rng, k: usize) -> (Vec<f64>, Vec<f64>) {
        (0..k)
            .map(|_| {
                let x: f64 = rng.random();
                let y = f64::from(u8::from(rng.random::<f64>() < x));
                let judge = f64::from(u8::from(rng.random::<f64>() < (x + 0.15).min(1.0)));
                (y, judge)
            })
            .unzip()
    }

    /// Coverage on simulation with a known truth: each item has a latent x ~ U(0, 1); the
    /// human label is Bernoulli(x), the judge's Bernoulli(min(1, x + 0.15)) — informative but
    /// biased upwards (its mean is 0.63875, the truth 0.5). Over 2,000 seeded repetitions at
    /// n = 100, 300 and 1,000 human labels (N = 5,000 judge-only items), the 95 % PPI++
    /// interval covers 0.5 within three binomial standard errors of 95 %; the judge-only
    /// interval almost never does.
    #[test]
    fn the_interval_covers_the_truth_and_the_judge_only_one_fails() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20_261_126);
        let (reps, big_n, truth) = (2000, 5000, 0.5);
        let band = 3.0 * (0.95f64 * 0.05 / reps as f64).sqrt();
        for n in [100, 300, 1000] {
            let (mut covered, mut judge_covered, mut narrower) = (0, 0, 0);
            for _ in 0..reps {
                let (y, yhat) = biased_items(&mut rng, n);
                let (_, unlabelled) = biased_items(&mut rng, big_n);
                let fit = ppi_mean(&y, &yhat, &unlabelled, None, 0.05).unwrap();
                covered += usize::from(fit.ppi.lower <= truth && truth <= fit.ppi.upper);
                judge_covered +=
                    usize::from(fit.judge_only.lower <= truth && truth <= fit.judge_only.upper);
                narrower += usize::from(fit.ppi.se < fit.human_only.se);
            }
            let coverage = covered as f64 / reps as f64;
            assert!(
                (coverage - 0.95).abs() <= band,
                "n = {n}: PPI coverage {coverage} outside 0.95 ± {band}"
            );
            assert!(
                judge_covered < reps / 100,
                "n = {n}: judge-only covered {judge_covered}"
            );
            // The judge's labels help: the PPI interval is narrower than the humans' alone in
            // most repetitions.
            assert!(narrower > reps * 9 / 10, "n = {n}: narrower in {narrower}");
        }
    }

    /// The true coefficients of [`simulated_battles`]' four models.
    const THETA: [f64; 4] = [0.0, 0.5, 1.0, -0.4];

    /// A labelled-battles CSV of `battles` among four models (true θ = [`THETA`] logits from
    /// `m0`), the humans' outcome Bernoulli(σ(θ_a − θ_b)), a judge that favours `m1` by 0.7
    /// logits (self-preference); the first `labelled` rows labelled.
    fn simulated_battles(rng: &mut impl rand::Rng, battles: usize, labelled: usize) -> String {
        use crate::math::logistic::sigmoid;
        let mut csv = String::from("model_a,model_b,judge,human\n");
        for i in 0..battles {
            let a = rng.random_range(0..4);
            let b = (a + rng.random_range(1..4)) % 4;
            let eta = THETA[a] - THETA[b];
            let bias = 0.7 * (f64::from(u8::from(a == 1)) - f64::from(u8::from(b == 1)));
            let judge = u8::from(rng.random::<f64>() < sigmoid(eta + bias));
            let human = u8::from(rng.random::<f64>() < sigmoid(eta));
            let human = if i < labelled {
                human.to_string()
            } else {
                String::new()
            };
            csv.push_str(&format!("m{a},m{b},{judge},{human}\n"));
        }
        csv
    }

    /// Simulated battles ([`simulated_battles`]: true ranks 3, 2, 1, 4), 300 of 3,000
    /// battles labelled, 400 seeded repetitions through the
    /// whole report. Each prediction-powered 95 % interval covers its Elo difference within
    /// three binomial standard errors of 95 %; the rank sets hold all four true ranks at once
    /// in at least 95 % of repetitions less that error (simultaneous coverage); the judge-only
    /// interval of `m1` almost never covers.
    #[test]
    fn the_bradley_terry_intervals_and_rank_sets_cover() {
        use super::ppi_report::PpiParams;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20_261_127);
        let true_rank = [3, 2, 1, 4];
        let elo = 400.0 / std::f64::consts::LN_10;
        let (reps, battles, labelled) = (400, 3000, 300);
        let params = PpiParams {
            bootstrap: None,
            ..PpiParams::default()
        };
        let (mut covered, mut ranks_held, mut judge_covered) = ([0usize; 4], 0, 0);
        for _ in 0..reps {
            let csv = simulated_battles(&mut rng, battles, labelled);
            let report = params.fit("sim.csv", csv.as_bytes()).unwrap();
            let board = report.leaderboard.unwrap();
            let mut all_held = true;
            for rating in &board.ratings {
                let m: usize = rating.model[1..].parse().unwrap();
                let truth = THETA[m] * elo;
                covered[m] += usize::from(rating.ppi.lower <= truth && truth <= rating.ppi.upper);
                all_held &= rating.ranks.contains(true_rank[m]);
                if m == 1 {
                    let j = rating.judge_only.unwrap();
                    judge_covered += usize::from(j.lower <= truth && truth <= j.upper);
                }
            }
            ranks_held += usize::from(all_held);
        }
        let band = 3.0 * (0.95f64 * 0.05 / reps as f64).sqrt();
        for (m, hits) in covered.iter().enumerate().skip(1) {
            let coverage = *hits as f64 / reps as f64;
            assert!(
                (coverage - 0.95).abs() <= band,
                "m{m}: coverage {coverage} outside 0.95 ± {band}"
            );
        }
        let held = ranks_held as f64 / reps as f64;
        assert!(held >= 0.95 - band, "rank sets held in {held}");
        assert!(
            judge_covered < reps / 50,
            "judge-only covered {judge_covered}"
        );
    }

    /// The percentile bootstrap of the prediction-powered win rate (n = 100 human labels,
    /// N = 1,000 judge labels, 300 rounds) covers within three binomial standard errors of
    /// 95 % over 300 seeded repetitions, and is as wide as the asymptotic interval within 10 %
    /// on average.
    #[test]
    fn the_bootstrap_interval_of_the_mean_covers() {
        use super::ppi_bootstrap::{bootstrap_mean, Resampling};
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let reps = 300;
        let (mut covered, mut width_ratio) = (0, 0.0);
        for rep in 0..reps {
            let (y, yhat) = biased_items(&mut rng, 100);
            let (_, unlabelled) = biased_items(&mut rng, 1000);
            let fit = ppi_mean(&y, &yhat, &unlabelled, None, 0.05).unwrap();
            let resampling = Resampling {
                rounds: 300,
                seed: rep,
            };
            let boot =
                bootstrap_mean((&y, &yhat, &unlabelled), fit.lambda, 0.05, resampling).unwrap();
            assert_eq!(boot.estimate, fit.ppi.estimate);
            covered += usize::from(boot.lower <= 0.5 && 0.5 <= boot.upper);
            width_ratio +=
                (boot.upper - boot.lower) / (fit.ppi.upper - fit.ppi.lower) / reps as f64;
        }
        let band = 3.0 * (0.95f64 * 0.05 / reps as f64).sqrt();
        let coverage = covered as f64 / reps as f64;
        assert!((coverage - 0.95).abs() <= band, "coverage {coverage}");
        assert!((width_ratio - 1.0).abs() < 0.1, "width ratio {width_ratio}");
    }

    /// Where the asymptotics hold (simulated battles, 300 of 3,000 labelled: each model in
    /// about 150 labelled battles), the bootstrap of the leaderboard agrees with the asymptotic
    /// intervals: each endpoint within a fifth of the asymptotic width. On the ten LLMFAO
    /// models (80 of 201 pairs labelled, a model in 16 on average) it need not — there it is
    /// the check on the asymptotics — but it repeats: the same numbers for the same seed,
    /// others for another seed, a failed round said.
    #[test]
    fn the_bootstrap_leaderboard_agrees_with_the_asymptotics_and_repeats() {
        use super::ppi_bootstrap::Resampling;
        use super::ppi_report::PpiParams;
        use rand::SeedableRng;
        let params = |seed| PpiParams {
            bootstrap: Some(Resampling { rounds: 400, seed }),
            ..PpiParams::default()
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let csv = simulated_battles(&mut rng, 3000, 300);
        let report = params(1).fit("sim.csv", csv.as_bytes()).unwrap();
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let board = report.leaderboard.unwrap();
        for rating in board.ratings.iter().filter(|r| r.model != board.reference) {
            let boot = rating.bootstrap.unwrap();
            let width = rating.ppi.upper - rating.ppi.lower;
            assert_eq!(boot.valid_rounds, 400);
            assert!((boot.estimate - rating.ppi.estimate).abs() < 1e-9);
            assert!(
                (boot.lower - rating.ppi.lower).abs() < width / 5.0
                    && (boot.upper - rating.ppi.upper).abs() < width / 5.0,
                "{}: bootstrap {boot:?} vs {:?}",
                rating.model,
                rating.ppi
            );
        }
        for rate in &report.win_rates {
            let (boot, asym) = (rate.bootstrap.unwrap(), rate.estimate.unwrap().ppi);
            let width = asym.upper - asym.lower;
            assert!(
                (boot.lower - asym.lower).abs() < width / 5.0,
                "{}",
                rate.model
            );
            assert!(
                (boot.upper - asym.upper).abs() < width / 5.0,
                "{}",
                rate.model
            );
        }
        let ten = params(1).fit("ten.csv", TEN.as_bytes()).unwrap();
        // One resample of the 80 labels lets a model almost never lose: left out, and said.
        let said = |text: &str| ten.warnings.iter().any(|w| w.contains(text));
        assert!(said(
            "bootstrap leaderboard: 1 of 400 rounds did not identify the fit and were left out"
        ));
        // command-nightly has 7 labels: no win rate, and its leaderboard interval is flagged.
        assert!(said("command-nightly: no win rate: 7 human labels"));
        assert!(said(
            "leaderboard intervals of 9 models rest on fewer than 20"
        ));
        assert_eq!(params(1).fit("ten.csv", TEN.as_bytes()).unwrap(), ten);
        assert_ne!(params(2).fit("ten.csv", TEN.as_bytes()).unwrap(), ten);
    }

    #[test]
    fn edges_are_refused_or_reported_not_guessed() {
        // One human label: no rectifier variance.
        assert!(matches!(
            ppi_mean(&[1.0], &[1.0], &[0.0, 1.0], None, 0.1),
            Err(Error::Insufficient(_))
        ));
        assert!(ppi_mean(&[1.0, 0.0], &[1.0, 0.0], &[1.0], Some(1.5), 0.1).is_err());
        assert!(ppi_mean(&[1.0, 0.0], &[1.0, 0.0], &[1.0], None, 1.0).is_err());
        // A constant judge carries no information: λ = 0, the human-only interval.
        let constant = ppi_mean(&[1.0, 0.0, 1.0], &[1.0; 3], &[1.0; 5], None, 0.1).unwrap();
        assert_eq!(constant.lambda, 0.0);
        assert_eq!(constant.ppi, constant.human_only);
        // A judge that agrees with every human label: the judge's many labels shrink the
        // interval below the humans' own.
        let y = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let yu: Vec<f64> = (0..60).map(|i| f64::from(i % 3 != 0)).collect();
        let perfect = ppi_mean(&y, &y, &yu, None, 0.1).unwrap();
        assert!(perfect.lambda > 0.8, "{}", perfect.lambda);
        assert!(perfect.ppi.se < perfect.human_only.se);
        assert!(perfect.effective_n > 3.0 * y.len() as f64);
        // A model the judge never lets lose, whose human labels say it loses: the rectified
        // loss keeps falling — not identified, said so.
        let x = Design::from_dense(&Array2::from_shape_vec((2, 1), vec![1.0, 1.0]).unwrap());
        let xu = Design::from_dense(&Array2::from_shape_vec((3, 1), vec![1.0, 1.0, 1.0]).unwrap());
        let err = ppi_logistic(
            (&x, &[0.0, 0.0], &[1.0, 1.0]),
            (&xu, &[1.0, 1.0, 1.0]),
            Some(1.0),
            0.1,
        )
        .unwrap_err();
        assert!(err.to_string().contains("not identified"), "{err}");
        // Mixed judge labels identify the PPI fit while the humans' two losses alone do not:
        // the human-only fit is missing, with the reason.
        let fit = ppi_logistic(
            (&x, &[0.0, 0.0], &[0.0, 1.0]),
            (&xu, &[1.0, 0.0, 1.0]),
            Some(0.5),
            0.1,
        )
        .unwrap();
        assert!(fit.ppi[0].se > 0.0 && fit.ppi[0].se.is_finite());
        assert_eq!(fit.human_only, None);
        assert!(
            fit.notes[0].starts_with("human labels only: not identified"),
            "{:?}",
            fit.notes
        );
        assert!(fit.judge_only.is_some());
        // In the report such a leaderboard is withheld, saying why: `a`'s three human labels all
        // beat `b`, so the humans alone never bound a − b, and the judge would fill it unchecked.
        let mut csv = String::from("model_a,model_b,judge,human\n");
        csv.push_str("a,b,1,1\na,b,0,1\na,b,1,1\nb,c,1,1\nb,c,0,0\nb,c,1,0\nc,b,1,1\n");
        for k in 0..30 {
            csv.push_str(&format!("a,b,{},\nb,c,{},\n", k % 2, (k / 2) % 2));
        }
        let params = super::ppi_report::PpiParams {
            bootstrap: None,
            lambda: Some(0.5),
            ..Default::default()
        };
        let report = params.fit("edge.csv", csv.as_bytes()).unwrap();
        assert_eq!(report.leaderboard, None);
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.contains("not identified by the human labels alone")),
            "{:?}",
            report.warnings
        );
        // …and no warning about the intervals of a leaderboard that is not shown.
        assert!(!report
            .warnings
            .iter()
            .any(|w| w.contains("leaderboard intervals")));
    }
}

// The statistic files that register a kind of their own, declared by the build
// (shared/build.rs).
crate::analysis::kind_modules!("ppi");
