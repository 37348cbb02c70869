//! Bootstrap intervals of the prediction-powered estimates (the percentile bootstrap of
//! ppi-python's `ppboot`, applied to the PPI++ estimators themselves): each round resamples the
//! labelled rows (human label, judge label and design row together) and the unlabelled rows
//! independently, with replacement, and recomputes the estimate at the λ of the whole data
//! (tuned once, not per round); the interval is the replicates' α/2 and 1 − α/2 quantiles.
//! Round r draws from ChaCha8 stream r of the seed ([`BootstrapParams::round_rng`]), so the
//! same seed gives the same interval natively and in WASM, and the seed is recorded with the
//! settings; natively the rounds run on every core ([`map_rounds`]), which changes nothing in
//! the replicates.
//!
//! A round whose resample does not identify the logistic fit (its resampled rows let a model
//! almost never lose, say) has no replicate; [`Interval::valid_rounds`] counts the rounds that
//! did. The interval of the others is too narrow when the failing rounds are the extreme ones,
//! so a caller reports failed rounds and drops the interval when many fail.
//!
//! Arguments: the labelled rows (`y`, `ŷ` and, for the fit, the design `x`), the unlabelled
//! rows (`ŷ` and `x̃`), λ, α and the [`Resampling`]. Returns: an [`Interval`] (the mean) or one
//! per coefficient (the fit). Errors: [`Error::InvalidParam`] for fewer than 2 rounds or α
//! outside (0, 1); [`Error::Insufficient`] when the whole data does not identify the estimate.

use super::ppi_logistic::ppi_logistic_point;
use super::ppi_mean::{check_sample, ppi_mean_point};
use crate::io::error::{Error, Result};
use crate::math::parallel_rounds::map_rounds;
use crate::math::resample::{percentile_interval, BootstrapParams, Interval};
use crate::math::weighted_logistic::{Design, RowGroups, WeightedLogistic};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How many bootstrap rounds, from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resampling {
    pub rounds: usize,
    pub seed: u64,
}

impl Default for Resampling {
    fn default() -> Self {
        Self {
            rounds: 1000,
            seed: 0,
        }
    }
}

impl Resampling {
    /// The bootstrap at coverage 1 − α.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for fewer than 2 rounds or α outside (0, 1).
    pub fn at_level(&self, alpha: f64) -> Result<BootstrapParams> {
        let params = BootstrapParams {
            rounds: self.rounds,
            seed: self.seed,
            level: 1.0 - alpha,
        };
        params.validate()?;
        Ok(params)
    }
}

/// The percentile interval of the prediction-powered mean at `lambda`.
///
/// # Errors
/// See the module documentation.
pub fn bootstrap_mean(
    (y, yhat, yhat_unlabelled): (&[f64], &[f64], &[f64]),
    lambda: f64,
    alpha: f64,
    resampling: Resampling,
) -> Result<Interval> {
    let params = resampling.at_level(alpha)?;
    check_sample(y.len(), yhat_unlabelled.len(), "mean")?;
    let (n, big_n) = (y.len(), yhat_unlabelled.len());
    // Each row's term, so a draw reads one value; summed in the order drawn, as
    // `ppi_mean_point` sums the rows it is given (the same replicate, bit for bit).
    let rectifier: Vec<f64> = y.iter().zip(yhat).map(|(y, h)| y - lambda * h).collect();
    let lifted: Vec<f64> = yhat_unlabelled.iter().map(|v| lambda * v).collect();
    let replicates: Vec<f64> = map_rounds(
        params.rounds,
        || (),
        |(), r| {
            let mut rng = params.round_rng(r);
            let rect = (0..n)
                .map(|_| rectifier[rng.random_range(0..n)])
                .sum::<f64>();
            let mu = (0..big_n)
                .map(|_| lifted[rng.random_range(0..big_n)])
                .sum::<f64>();
            mu / big_n as f64 + rect / n as f64
        },
    );
    let estimate = ppi_mean_point(y, yhat, yhat_unlabelled, lambda);
    Ok(percentile_interval(estimate, &replicates, params.level))
}

/// The percentile interval of each coefficient of the prediction-powered logistic fit at
/// `lambda`.
///
/// # Errors
/// See the module documentation.
pub fn bootstrap_logistic(
    (x, y, yhat): (&Design, &[f64], &[f64]),
    (xu, yu): (&Design, &[f64]),
    lambda: f64,
    alpha: f64,
    resampling: Resampling,
) -> Result<Vec<Interval>> {
    let params = resampling.at_level(alpha)?;
    check_sample(y.len(), yu.len(), "fit")?;
    let estimate = ppi_logistic_point((x, y, yhat), (xu, yu), lambda, None).ok_or_else(|| {
        Error::Insufficient(
            "not identified: the prediction-powered logistic fit has no unique minimum on the \
             whole data, so there is nothing to bootstrap"
                .to_owned(),
        )
    })?;
    let (n, big_n, d) = (y.len(), yu.len(), x.columns);
    // Each round's loss summed by distinct design row (a pair of models): the same loss as
    // over its resampled battles, at O(battles) to draw and O(pairs) per Newton step.
    let groups = RowGroups::of(x.rows.0.iter().chain(&xu.rows.0));
    let (of_labelled, of_unlabelled) = groups.of.split_at(n);
    let g = groups.rows.0.len();
    // Each row as a cell: its pair and its term of the loss (its weight c and target b). A
    // Bradley–Terry file has few distinct cells (pairs × label values), so a draw increments
    // a small count and each round sums count × term by cell.
    let mut cells: Vec<(usize, f64, f64)> = Vec::new();
    let mut index: HashMap<(usize, u64, u64), u32> = HashMap::new();
    let mut cell_of = |k: usize, weight: f64, term: f64| {
        *index
            .entry((k, weight.to_bits(), term.to_bits()))
            .or_insert_with(|| {
                cells.push((k, weight, term));
                (cells.len() - 1) as u32
            })
    };
    let labelled: Vec<u32> = (of_labelled.iter().zip(y).zip(yhat))
        .map(|((&k, y), h)| cell_of(k, (1.0 - lambda) / n as f64, (y - lambda * h) / n as f64))
        .collect();
    let unlabelled: Vec<u32> = (of_unlabelled.iter().zip(yu))
        .map(|(&k, u)| cell_of(k, lambda / big_n as f64, lambda * u / big_n as f64))
        .collect();
    // The rounds over the machine's threads (natively): each round's draws come from its
    // own seeded stream, so the replicates are the same whatever the thread count.
    let thetas = map_rounds(
        params.rounds,
        || vec![0u32; cells.len()],
        |counts, r| {
            let mut rng = params.round_rng(r);
            counts.fill(0);
            for _ in 0..n {
                counts[labelled[rng.random_range(0..n)] as usize] += 1;
            }
            for _ in 0..big_n {
                counts[unlabelled[rng.random_range(0..big_n)] as usize] += 1;
            }
            let (mut c, mut b) = (vec![0.0; g], vec![0.0; g]);
            for (&(k, weight, term), &count) in cells.iter().zip(counts.iter()) {
                c[k] += f64::from(count) * weight;
                b[k] += f64::from(count) * term;
            }
            WeightedLogistic {
                rows: &groups.rows,
                c,
                b,
                d,
                fit: crate::ppi::PPI_FIT,
            }
            .solve(Some(&estimate))
            .ok()
        },
    );
    let replicates: Vec<Vec<f64>> = (0..d)
        .map(|k| {
            thetas
                .iter()
                .map(|theta| theta.as_ref().map_or(f64::NAN, |t| t[k]))
                .collect()
        })
        .collect();
    Ok(replicates
        .iter()
        .zip(&estimate)
        .map(|(values, &e)| percentile_interval(e, values, params.level))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::resample::{percentile_interval, resample_indices};
    use ndarray::{Array2, Axis};
    use rand::{Rng, SeedableRng};

    /// Each round over its resampled battles themselves (the rows copied out, one design row
    /// per battle): what [`bootstrap_logistic`] computes from the sums by pair.
    fn over_battles(
        (x, y, yhat): (&Array2<f64>, &[f64], &[f64]),
        (xu, yu): (&Array2<f64>, &[f64]),
        lambda: f64,
        params: &BootstrapParams,
    ) -> Vec<Interval> {
        let pick = |v: &[f64], rows: &[usize]| rows.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let dense = |x: &Array2<f64>| Design::from_dense(x);
        let estimate =
            ppi_logistic_point((&dense(x), y, yhat), (&dense(xu), yu), lambda, None).unwrap();
        let mut replicates = vec![Vec::new(); x.ncols()];
        for r in 0..params.rounds {
            let mut rng = params.round_rng(r);
            let labelled = resample_indices(y.len(), &mut rng);
            let unlabelled = resample_indices(yu.len(), &mut rng);
            let theta = ppi_logistic_point(
                (
                    &dense(&x.select(Axis(0), &labelled)),
                    &pick(y, &labelled),
                    &pick(yhat, &labelled),
                ),
                (
                    &dense(&xu.select(Axis(0), &unlabelled)),
                    &pick(yu, &unlabelled),
                ),
                lambda,
                Some(&estimate),
            );
            for (k, values) in replicates.iter_mut().enumerate() {
                values.push(theta.as_ref().map_or(f64::NAN, |t| t[k]));
            }
        }
        replicates
            .iter()
            .zip(&estimate)
            .map(|(values, &e)| percentile_interval(e, values, params.level))
            .collect()
    }

    #[test]
    fn the_mean_drawn_row_by_row_equals_the_mean_of_the_copied_resample() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut labels = |count: usize| -> Vec<f64> {
            (0..count)
                .map(|_| f64::from(rng.random_range(0..3u8)) / 2.0)
                .collect()
        };
        let (y, yhat, yu) = (labels(60), labels(60), labels(500));
        let resampling = Resampling {
            rounds: 300,
            seed: 9,
        };
        let params = resampling.at_level(0.05).unwrap();
        let pick = |v: &[f64], rows: &[usize]| rows.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let copied: Vec<f64> = (0..params.rounds)
            .map(|r| {
                let mut rng = params.round_rng(r);
                let labelled = resample_indices(y.len(), &mut rng);
                let unlabelled = resample_indices(yu.len(), &mut rng);
                let (y, yhat) = (pick(&y, &labelled), pick(&yhat, &labelled));
                ppi_mean_point(&y, &yhat, &pick(&yu, &unlabelled), 0.6)
            })
            .collect();
        let expected = percentile_interval(ppi_mean_point(&y, &yhat, &yu, 0.6), &copied, 0.95);
        let ours = bootstrap_mean((&y, &yhat, &yu), 0.6, 0.05, resampling).unwrap();
        assert_eq!(ours, expected);
    }

    #[test]
    fn the_rounds_summed_by_pair_equal_the_rounds_over_battles() {
        // Four models (the last the reference), 400 battles, 80 with a human label.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let theta = [0.8, 0.3, -0.2, 0.0];
        let mut rows = |count: usize| {
            let mut x = Array2::zeros((count, 3));
            let (mut human, mut judge) = (Vec::new(), Vec::new());
            for r in 0..count {
                let a = rng.random_range(0..4);
                let b = (a + rng.random_range(1..4)) % 4;
                if a < 3 {
                    x[[r, a]] += 1.0;
                }
                if b < 3 {
                    x[[r, b]] -= 1.0;
                }
                let p = 1.0 / (1.0 + f64::exp(theta[b] - theta[a]));
                let h = if rng.random::<f64>() < p { 1.0 } else { 0.0 };
                human.push(h);
                judge.push(if rng.random::<f64>() < 0.8 { h } else { 0.5 });
            }
            (x, human, judge)
        };
        let (x, y, yhat) = rows(80);
        let (xu, _, yu) = rows(320);
        let resampling = Resampling {
            rounds: 200,
            seed: 5,
        };
        let params = resampling.at_level(0.1).unwrap();
        for lambda in [0.0, 0.4, 1.0] {
            let ours = bootstrap_logistic(
                (&Design::from_dense(&x), &y, &yhat),
                (&Design::from_dense(&xu), &yu),
                lambda,
                0.1,
                resampling,
            )
            .unwrap();
            let battles = over_battles((&x, &y, &yhat), (&xu, &yu), lambda, &params);
            for (a, b) in ours.iter().zip(&battles) {
                assert_eq!(a.valid_rounds, b.valid_rounds);
                // Summed in another order: Newton stops where its line search no longer sees the
                // loss fall in floating point, so a replicate agrees to about 1e-8, not 1e-15.
                for (u, v) in [(a.lower, b.lower), (a.upper, b.upper), (a.se, b.se)] {
                    assert!((u - v).abs() < 1e-7, "λ = {lambda}: {a:?} vs {b:?}");
                }
            }
        }
    }
}
