//! Seeded bootstrap machinery shared by every interval in the crate.
//!
//! Round `r` of a bootstrap with seed `s` draws from its own ChaCha8 stream (seed `s`, stream
//! `r`), so a round's sample depends only on `(s, r)`: results are identical natively and in
//! WASM, and do not depend on how rounds are scheduled. Percentile intervals use linear
//! interpolation between order statistics (numpy's default `linear` method).

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::parallel_rounds::map_rounds;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Settings of a bootstrap (as CLI options: `--bootstrap ROUNDS --seed N --level P`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BootstrapParams {
    /// Bootstrap rounds, at least 2 (the leaderboard and transitivity also take 0: no
    /// bootstrap).
    #[cfg_attr(
        feature = "cli",
        arg(
            id = "bootstrap",
            long = "bootstrap",
            value_name = "ROUNDS",
            default_value_t = BootstrapParams::default().rounds,
            allow_negative_numbers = true
        )
    )]
    pub rounds: usize,
    /// Seed of the whole bootstrap; recorded with every result.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = BootstrapParams::default().seed, allow_negative_numbers = true)
    )]
    pub seed: u64,
    /// Coverage of the percentile intervals, in (0, 1).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = BootstrapParams::default().level, allow_negative_numbers = true)
    )]
    pub level: f64,
}

impl Default for BootstrapParams {
    fn default() -> Self {
        Self {
            rounds: 1000,
            seed: 0,
            level: 0.95,
        }
    }
}

impl BootstrapParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if self.rounds < 2 {
            return Err(Error::param(
                "rounds",
                format!("a bootstrap needs at least 2 rounds, found {}", self.rounds),
            ));
        }
        in_open_unit("level", self.level)?;
        Ok(())
    }

    /// The random stream of round `round`.
    pub fn round_rng(&self, round: usize) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(round as u64);
        rng
    }
}

/// `n` indices drawn uniformly with replacement from `0..n`.
pub fn resample_indices(n: usize, rng: &mut impl Rng) -> Vec<usize> {
    (0..n).map(|_| rng.random_range(0..n)).collect()
}

/// How many times each of `0..n` is drawn in `n` draws with replacement (multinomial counts).
pub fn resample_counts(n: usize, rng: &mut impl Rng) -> Vec<u32> {
    let mut counts = vec![0u32; n];
    for _ in 0..n {
        counts[rng.random_range(0..n)] += 1;
    }
    counts
}

/// A cluster number per row from the rows' cluster values (prompt ids, say), numbered in the
/// values' sorted order — never in order of first appearance, so a cluster bootstrap draws the
/// same clusters however the rows are sorted.
pub fn cluster_labels(values: &[String]) -> Vec<usize> {
    let mut distinct: Vec<&str> = values.iter().map(String::as_str).collect();
    distinct.sort_unstable();
    distinct.dedup();
    values
        .iter()
        .map(|v| distinct.partition_point(|d| *d < v.as_str()))
        .collect()
}

/// The `q`-quantile (q ∈ [0, 1]) of ascending `sorted` values, interpolating linearly.
/// Returns NaN for an empty slice.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    }
}

/// A point estimate with a bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
    /// Standard deviation of the bootstrap replicates.
    pub se: f64,
    pub level: f64,
    /// Rounds whose statistic was defined (finite); the interval uses only these.
    pub valid_rounds: usize,
}

/// Percentile interval and standard error from bootstrap replicates (non-finite ones are
/// dropped and counted out of `valid_rounds`).
pub fn percentile_interval(estimate: f64, replicates: &[f64], level: f64) -> Interval {
    let mut values: Vec<f64> = replicates
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    values.sort_by(f64::total_cmp);
    let alpha = 1.0 - level;
    let n = values.len();
    let se = if n > 1 {
        let mean = values.iter().sum::<f64>() / n as f64;
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        f64::NAN
    };
    Interval {
        estimate,
        lower: quantile_sorted(&values, alpha / 2.0),
        upper: quantile_sorted(&values, 1.0 - alpha / 2.0),
        se,
        level,
        valid_rounds: n,
    }
}

/// Bootstraps a statistic of `n` exchangeable units (items, battles, prompts): each round
/// resamples unit indices with replacement and evaluates `statistic` on them.
///
/// # Errors
/// [`Error::InvalidParam`] for invalid settings; [`Error::Insufficient`] for `n` < 2.
pub fn bootstrap(
    n: usize,
    params: &BootstrapParams,
    mut statistic: impl FnMut(&[usize]) -> f64,
) -> Result<Interval> {
    params.validate()?;
    if n < 2 {
        return Err(Error::Insufficient(format!(
            "a bootstrap needs at least 2 units, found {n}"
        )));
    }
    let all: Vec<usize> = (0..n).collect();
    let estimate = statistic(&all);
    let replicates: Vec<f64> = (0..params.rounds)
        .map(|r| statistic(&resample_indices(n, &mut params.round_rng(r))))
        .collect();
    Ok(percentile_interval(estimate, &replicates, params.level))
}

/// The bootstrap interval of the mean of `values` (a unit's credit, a 0/1 flip): the same draws
/// as [`bootstrap`] of the mean. See [`bootstrap_means`].
///
/// Errors: as [`bootstrap_means`].
pub fn bootstrap_mean(values: &[f64], params: &BootstrapParams) -> Result<Interval> {
    let mut intervals = bootstrap_means(&[values], params)?;
    intervals
        .pop()
        .ok_or_else(|| Error::Insufficient("no values".to_owned()))
}

/// The bootstrap intervals of the means of several columns of values over the same units (each
/// method's credit on the same test items), all from one set of draws — the same draws as
/// [`bootstrap`] of each mean alone with these settings. The units are counted by their row of
/// values with [`replicates_by_kind`], so a round reads a table of the few distinct rows
/// instead of its units in random order, and the rounds run on every core natively. Where every
/// value is a multiple of ½ (credits, flips and their differences) the sums are exact and each
/// interval equals [`bootstrap`]'s to the bit; other values may differ from it in the last bits
/// of a replicate.
///
/// Errors: [`Error::Insufficient`] for fewer than 2 units, [`Error::InvalidParam`] for bad
/// settings or columns of unequal lengths.
pub fn bootstrap_means(columns: &[&[f64]], params: &BootstrapParams) -> Result<Vec<Interval>> {
    let n = columns.first().map_or(0, |c| c.len());
    if columns.iter().any(|c| c.len() != n) {
        return Err(Error::param(
            "columns",
            "expected columns of values of equal lengths",
        ));
    }
    // A unit's kind is its row of values, built one column at a time (no key per row).
    let mut kinds = vec![0u32; n];
    let mut first = vec![0usize; n.min(1)];
    for column in columns {
        let (next, next_first) =
            kinds_of(kinds.iter().zip(*column).map(|(&k, v)| (k, v.to_bits())));
        kinds = next;
        first = next_first;
    }
    let kind_rows: Vec<Vec<f64>> = columns
        .iter()
        .map(|c| first.iter().map(|&i| c[i]).collect())
        .collect();
    let size = n as f64;
    let replicates = replicates_by_kind(&kinds, first.len(), params, |counts| {
        kind_rows
            .iter()
            .map(|values| {
                counts
                    .iter()
                    .zip(values)
                    .map(|(&c, &v)| f64::from(c) * v)
                    .sum::<f64>()
                    / size
            })
            .collect::<Vec<f64>>()
    })?;
    Ok(columns
        .iter()
        .enumerate()
        .map(|(j, column)| {
            let column_replicates: Vec<f64> = replicates.iter().map(|r| r[j]).collect();
            let estimate = column.iter().sum::<f64>() / size;
            percentile_interval(estimate, &column_replicates, params.level)
        })
        .collect())
}

/// The replicates of a statistic of units of few kinds (a unit's coincidences, an item's
/// confusion cell): unit i is of kind `kinds[i]` (< `n_kinds`), and each round draws the same
/// unit indices as [`bootstrap`] does but hands `statistic` only how many units of each kind it
/// drew. A round then reads a small count table instead of its units in random order (whose
/// cache misses made a round's cost grow faster than its draws), and the rounds run on every
/// core natively ([`map_rounds`]), in the same order and with the same results.
///
/// # Errors
/// [`Error::InvalidParam`] for invalid settings or a kind ≥ `n_kinds`; [`Error::Insufficient`]
/// for fewer than 2 units.
pub fn replicates_by_kind<T: Send>(
    kinds: &[u32],
    n_kinds: usize,
    params: &BootstrapParams,
    statistic: impl Fn(&[u32]) -> T + Sync,
) -> Result<Vec<T>> {
    params.validate()?;
    let n = kinds.len();
    if n < 2 {
        return Err(Error::Insufficient(format!(
            "a bootstrap needs at least 2 units, found {n}"
        )));
    }
    if kinds.iter().any(|&k| k as usize >= n_kinds) {
        return Err(Error::param(
            "kinds",
            format!("expected every unit's kind below {n_kinds}"),
        ));
    }
    // The rounds read the table at random: in the narrowest integers that hold its kinds it
    // stays in the cache up to 4× as many units (a million units of a few kinds: 1 MB, not 4).
    Ok(if n_kinds <= 1 << 8 {
        count_draws(&narrowed::<u8>(kinds), n_kinds, params, statistic)
    } else if n_kinds <= 1 << 16 {
        count_draws(&narrowed::<u16>(kinds), n_kinds, params, statistic)
    } else {
        count_draws(kinds, n_kinds, params, statistic)
    })
}

/// `kinds` in a narrower integer type, every kind known to fit.
fn narrowed<K: TryFrom<u32> + Default>(kinds: &[u32]) -> Vec<K> {
    kinds
        .iter()
        .map(|&k| K::try_from(k).unwrap_or_default())
        .collect()
}

/// [`replicates_by_kind`]'s rounds on a table of kinds (each < `n_kinds`).
fn count_draws<K: Copy + Into<u32> + Sync, T: Send>(
    kinds: &[K],
    n_kinds: usize,
    params: &BootstrapParams,
    statistic: impl Fn(&[u32]) -> T + Sync,
) -> Vec<T> {
    let n = kinds.len();
    map_rounds(
        params.rounds,
        || vec![0u32; n_kinds],
        |counts, r| {
            let mut rng = params.round_rng(r);
            counts.fill(0);
            for _ in 0..n {
                counts[kinds[rng.random_range(0..n)].into() as usize] += 1;
            }
            statistic(counts)
        },
    )
}

/// Each unit's kind: units with equal keys share one, numbered in order of first appearance.
/// Returns the kinds and each kind's first unit.
pub fn kinds_of<K: Eq + std::hash::Hash>(keys: impl Iterator<Item = K>) -> (Vec<u32>, Vec<usize>) {
    let mut index: std::collections::HashMap<K, u32> = std::collections::HashMap::new();
    let mut first = Vec::new();
    let kinds = keys
        .enumerate()
        .map(|(i, key)| {
            *index.entry(key).or_insert_with(|| {
                first.push(i);
                (first.len() - 1) as u32
            })
        })
        .collect();
    (kinds, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_mean_equals_the_bootstrap_of_the_mean_to_the_bit() {
        let credits: Vec<f64> = (0..997)
            .map(|i| f64::from((i * 7 % 5) as u8 % 3) / 2.0)
            .collect();
        let p = BootstrapParams {
            rounds: 200,
            seed: 11,
            level: 0.9,
        };
        let by_value = bootstrap_mean(&credits, &p).unwrap();
        let by_unit = bootstrap(credits.len(), &p, |idx| {
            idx.iter().map(|&i| credits[i]).sum::<f64>() / idx.len() as f64
        })
        .unwrap();
        assert_eq!(by_value, by_unit);
        let halves: Vec<f64> = credits.iter().map(|c| c - 0.5).collect();
        let both = bootstrap_means(&[&credits, &halves], &p).unwrap();
        assert_eq!(both[0], by_unit);
        let shifted = bootstrap(credits.len(), &p, |idx| {
            idx.iter().map(|&i| halves[i]).sum::<f64>() / idx.len() as f64
        })
        .unwrap();
        assert_eq!(both[1], shifted);
        assert!(bootstrap_mean(&[1.0], &p).is_err());
        assert!(bootstrap_means(&[&credits, &halves[1..]], &p).is_err());
    }

    #[test]
    fn cluster_labels_follow_the_sorted_values() {
        let values = ["p2", "p1", "p2", "p0"].map(str::to_owned);
        assert_eq!(cluster_labels(&values), [2, 1, 2, 0]);
        let reordered = ["p0", "p2", "p1", "p2"].map(str::to_owned);
        assert_eq!(cluster_labels(&reordered), [0, 2, 1, 2]);
    }

    #[test]
    fn quantiles_match_numpy_linear() {
        // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.9]) = [1.75, 2.5, 3.7]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((quantile_sorted(&v, 0.25) - 1.75).abs() < 1e-15);
        assert!((quantile_sorted(&v, 0.5) - 2.5).abs() < 1e-15);
        assert!((quantile_sorted(&v, 0.9) - 3.7).abs() < 1e-12);
        assert!(quantile_sorted(&[], 0.5).is_nan());
    }

    #[test]
    fn rounds_are_reproducible_and_independent_of_order() {
        let p = BootstrapParams {
            rounds: 10,
            seed: 9,
            level: 0.9,
        };
        let a = resample_indices(50, &mut p.round_rng(3));
        assert_eq!(a, resample_indices(50, &mut p.round_rng(3)));
        assert_ne!(a, resample_indices(50, &mut p.round_rng(4)));
        let counts = resample_counts(50, &mut p.round_rng(3));
        assert_eq!(counts.iter().sum::<u32>(), 50);
    }

    #[test]
    fn bootstrap_of_a_mean_has_the_textbook_standard_error() {
        // SE of a mean of n values with sd s is s/√n; the bootstrap SE estimates
        // s·√((n−1)/n)/√n. For 0..100, s = 29.01, so ≈ 2.887.
        let x: Vec<f64> = (0..100).map(f64::from).collect();
        let p = BootstrapParams {
            rounds: 4000,
            seed: 1,
            level: 0.95,
        };
        let ci = bootstrap(100, &p, |idx| {
            idx.iter().map(|&i| x[i]).sum::<f64>() / 100.0
        })
        .unwrap();
        assert_eq!(ci.estimate, 49.5);
        assert!((ci.se - 2.887).abs() < 0.15, "{}", ci.se);
        assert!(ci.lower < 49.5 && ci.upper > 49.5);
        assert!((ci.upper - ci.lower - 2.0 * 1.96 * 2.887).abs() < 1.0);
        assert!(bootstrap(1, &p, |_| 0.0).is_err());
        let bad = BootstrapParams { rounds: 1, ..p };
        assert!(bootstrap(10, &bad, |_| 0.0).is_err());
    }

    #[test]
    fn non_finite_replicates_are_dropped_and_counted() {
        let ci = percentile_interval(1.0, &[1.0, f64::NAN, 3.0], 0.5);
        assert_eq!(ci.valid_rounds, 2);
        assert_eq!((ci.lower, ci.upper), (1.5, 2.5));
    }
}
