//! Seeded bootstrap intervals for Bradley–Terry ratings on the Elo scale.
//!
//! Model: the penalised Bradley–Terry fit of seed 002, Eq. 1,
//!
//! ```text
//! θ̂ = argmax_θ Σ_(i,j,x)∈B [ y_ij(x) log σ(θᵢ − θⱼ) + (1 − y_ij(x)) log(1 − σ(θᵢ − θⱼ)) ] − λ‖θ‖²
//! ```
//!
//! reported as Eloᵢ = 1500 + (400 / ln 10) θᵢ ([`crate::rankings::bradley_terry`]). Each bootstrap round
//! refits θ̂* on a resample of the data, warm-started at the full-data θ̂, and each model gets
//! the percentile interval and standard deviation of its replicates Elo(θ̂ᵢ*)
//! ([`crate::math::resample::percentile_interval`]), plus the CI-aware rank of [`crate::rankings::ranking`].
//!
//! Resampling units:
//! - **Battles** (seed 002 §3.3: the SE "across battle subsamples"). The N battles fall into K
//!   distinct types — an unordered model pair with a target value (the share won by the
//!   lower-numbered model) — with counts c₁ … c_K. A resample of N battles with replacement is
//!   a multinomial draw of type counts, taken as sequential conditional binomials
//!
//!   ```text
//!   n_k | n₁ … n_(k−1) ~ Binomial(N − Σ_(l<k) n_l,  c_k / Σ_(l≥k) c_l)
//!   ```
//!
//!   so a round costs O(K + Newton), never O(N): a binomial with a mean below 60 (the usual
//!   case: many small types) is drawn by inversion in O(mean) steps, a larger one by BTPE.
//! - **Clusters** (e.g. prompts; seed 002 App. J names prompt-block bootstraps as the fix for
//!   battles that share a prompt). Each round draws G clusters with replacement from the G
//!   clusters and sums the drawn clusters' precomputed pair totals, O(G + cluster pairs).
//!
//! Round r draws from [`BootstrapParams::round_rng`]`(r)`, so results depend only on the seed,
//! not on how rounds are scheduled. A round whose Newton fit does not converge contributes no
//! replicate; [`BtBootstrap::converged_rounds`] counts the rounds used. An anchored plan
//! ([`BtBootstrapPlan::anchored`]) shifts every replicate to the anchor's Elo before taking
//! percentiles ([`crate::rankings::anchor`]).
//!
//! Arguments: [`Battles`], optionally one cluster label per battle, and [`BtBootstrapParams`].
//! Returns: [`BtBootstrap`]. Errors: [`Error::InvalidParam`] for invalid settings, a battle
//! naming an unknown model or itself, a target outside [0, 1], or a cluster list of the wrong
//! length; [`Error::Insufficient`] for fewer than two models, no battles, or fewer than two
//! converged rounds.

use crate::io::error::{Error, Result};
use crate::math::resample::{percentile_interval, resample_counts, BootstrapParams, Interval};
use crate::rankings::anchor::Anchor;
use crate::rankings::battles::Battles;
use crate::rankings::bradley_terry::{BradleyTerry, BradleyTerryParams};
use crate::rankings::pairwise::{PairTotal, Pairwise};
use crate::rankings::ranking::{leaderboard_order, rank_ranges};
use crate::rankings::separation::{separation, Side};
use rand::Rng;
use rand_distr::{Binomial, Distribution};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Settings of a Bradley–Terry bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BtBootstrapParams {
    /// The fit refitted in every round.
    pub bt: BradleyTerryParams,
    /// Rounds (default 1000), seed and interval level (default 0.95).
    pub bootstrap: BootstrapParams,
}

/// What a round resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "unit")]
pub enum Resampling {
    /// Battles, drawn as multinomial counts over `n_types` distinct (pair, target) types.
    Battles { n_battles: usize, n_types: usize },
    /// Whole clusters of battles (e.g. all battles on one prompt).
    Clusters { n_battles: usize, n_clusters: usize },
}

/// One model's rating with its bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapRating {
    pub model: String,
    /// The model's index in [`Battles::models`].
    pub index: usize,
    pub theta: f64,
    /// Full-data Elo.
    pub elo: f64,
    /// Percentile interval and bootstrap SE on the Elo scale; `estimate` is the full-data Elo.
    /// A side flagged open below is unbounded whatever its percentile says.
    pub interval: Interval,
    /// The interval is unbounded above: the model is separated ([`crate::rankings::separation`]) in the
    /// full data, or on that side in more than a (1 − level)/2 share of the rounds.
    pub open_above: bool,
    /// The interval is unbounded below (as `open_above`, on the other side).
    pub open_below: bool,
    /// Converged rounds whose resample separated the model (either side).
    pub separated_rounds: usize,
    /// CI-aware rank: 1 + the number of models whose lower bound exceeds this upper bound.
    pub rank: usize,
    /// Worst rank the intervals allow: m − the number of models whose upper bound is below
    /// this lower bound.
    pub worst_rank: usize,
}

/// Bootstrap intervals for every model, sorted as a leaderboard (highest Elo first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BtBootstrap {
    /// The settings used, including the seed, the number of rounds and the level.
    pub settings: BtBootstrapParams,
    pub resampling: Resampling,
    /// Rounds whose fit converged; only these enter the intervals.
    pub converged_rounds: usize,
    /// Whether the full-data fit converged.
    pub converged: bool,
    /// The model whose Elo every replicate was shifted to ([`BtBootstrapPlan::anchored`]).
    pub anchor: Option<Anchor>,
    pub ratings: Vec<BootstrapRating>,
}

impl BtBootstrapParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        self.bt.validate()?;
        self.bootstrap.validate()
    }

    /// Bootstraps the ratings of `battles`, resampling battles, or whole clusters when
    /// `clusters` gives a cluster label per battle (labels need not be contiguous).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, battles: &Battles, clusters: Option<&[usize]>) -> Result<BtBootstrap> {
        let plan = self.plan(battles, clusters)?;
        let replicates = plan.rounds(0..self.bootstrap.rounds)?;
        plan.summarise(&replicates)
    }

    /// Prepares a bootstrap: validates, fits the full data and groups the resampling units.
    /// Rounds can then be run in any chunks ([`BtBootstrapPlan::rounds`]), in any order or on
    /// several workers, and summarised once ([`BtBootstrapPlan::summarise`]): the result equals
    /// [`BtBootstrapParams::fit`].
    pub fn plan(&self, battles: &Battles, clusters: Option<&[usize]>) -> Result<BtBootstrapPlan> {
        self.validate()?;
        let types = BattleTypes::from_battles(battles)?;
        let full_data = types.pairwise(types.types.iter().map(|t| t.count));
        let full = self.bt.fit(&full_data)?;
        let full_separation = separation(&full_data, &battles.models);
        let (units, resampling) = match clusters {
            None => {
                let resampling = Resampling::Battles {
                    n_battles: battles.battles.len(),
                    n_types: types.types.len(),
                };
                (Units::Types(types), resampling)
            }
            Some(labels) => {
                let totals = ClusterTotals::new(battles, labels)?;
                let resampling = Resampling::Clusters {
                    n_battles: battles.battles.len(),
                    n_clusters: totals.clusters.len(),
                };
                (Units::Clusters(totals), resampling)
            }
        };
        Ok(BtBootstrapPlan {
            params: *self,
            models: battles.models.clone(),
            full_separation,
            full,
            units,
            resampling,
            anchor: None,
        })
    }
}

enum Units {
    Types(BattleTypes),
    Clusters(ClusterTotals),
}

/// A prepared bootstrap (see [`BtBootstrapParams::plan`]).
pub struct BtBootstrapPlan {
    params: BtBootstrapParams,
    models: Vec<String>,
    full: BradleyTerry,
    /// Per model, where the full data leave its rating unbounded.
    full_separation: Vec<Option<Side>>,
    units: Units,
    resampling: Resampling,
    anchor: Option<(usize, Anchor)>,
}

impl BtBootstrapPlan {
    /// Anchors the summary: the full-data Elo and every replicate are shifted so `anchor`'s
    /// model has `anchor.elo` ([`crate::rankings::anchor`]), so intervals measure ratings against it.
    ///
    /// # Errors
    /// Those of [`Anchor::resolve`].
    pub fn anchored(mut self, anchor: &Anchor) -> Result<Self> {
        self.anchor = Some((anchor.resolve(&self.models)?, anchor.clone()));
        Ok(self)
    }

    /// The full-data fit.
    pub fn full(&self) -> &BradleyTerry {
        &self.full
    }

    /// Runs rounds `rounds` (each drawn from its own stream, so any split gives the same
    /// replicates). Returns per round the Elo of every model (empty when that round's fit did
    /// not converge) and the models its resample separates ([`crate::rankings::separation`]).
    pub fn rounds(&self, rounds: std::ops::Range<usize>) -> Result<Vec<Replicate>> {
        let bootstrap = &self.params.bootstrap;
        rounds
            .map(|r| {
                let data = match &self.units {
                    Units::Types(types) => {
                        let weights: Vec<u64> = types.types.iter().map(|t| t.count).collect();
                        let counts = multinomial_counts(
                            &weights,
                            types.n_battles(),
                            &mut bootstrap.round_rng(r),
                        )?;
                        types.pairwise(counts)
                    }
                    Units::Clusters(totals) => {
                        let counts =
                            resample_counts(totals.clusters.len(), &mut bootstrap.round_rng(r));
                        totals.pairwise(&counts)
                    }
                };
                let fit = self.params.bt.fit_from(&data, &self.full.theta)?;
                let separated = separation(&data, &self.models)
                    .into_iter()
                    .enumerate()
                    .filter_map(|(i, side)| side.map(|side| (i, side)))
                    .collect();
                Ok(Replicate {
                    elo: if fit.converged { fit.elo() } else { Vec::new() },
                    separated,
                })
            })
            .collect()
    }

    /// Intervals, standard errors and CI-aware ranks from all rounds' replicates.
    ///
    /// A model separated in the full data ([`crate::rankings::separation`]) has its interval unbounded on
    /// its open side, and so has a model separated on that side in more than a (1 − level)/2
    /// share of the converged rounds: that percentile then falls among ratings set by λ alone.
    /// CI-aware ranks treat an unbounded side as ±∞.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when a replicate has the wrong number of models or names an
    /// unknown model; [`Error::Insufficient`] when fewer than two rounds converged.
    pub fn summarise(&self, replicates: &[Replicate]) -> Result<BtBootstrap> {
        let m = self.models.len();
        let converged: Vec<&Replicate> = replicates.iter().filter(|r| !r.elo.is_empty()).collect();
        if converged.iter().any(|r| r.elo.len() != m) {
            return Err(Error::param(
                "replicates",
                format!("expected {m} ratings per bootstrap round"),
            ));
        }
        let converged_rounds = converged.len();
        if converged_rounds < 2 {
            return Err(Error::Insufficient(format!(
                "only {converged_rounds} of {} bootstrap fits converged: expected at least \
                 2 (raise `max_iter` or `lambda`)",
                replicates.len()
            )));
        }
        let mut rounds_above = vec![0usize; m];
        let mut rounds_below = vec![0usize; m];
        let mut rounds_separated = vec![0usize; m];
        for r in &converged {
            for &(i, side) in &r.separated {
                if i >= m {
                    return Err(Error::param(
                        "replicates",
                        format!("a replicate separates model {i} of {m}"),
                    ));
                }
                rounds_separated[i] += 1;
                rounds_above[i] += usize::from(side.open_above());
                rounds_below[i] += usize::from(side.open_below());
            }
        }
        let mut full_elo = self.full.elo();
        let mut converged: Vec<Vec<f64>> = converged.into_iter().map(|r| r.elo.clone()).collect();
        if let Some((index, anchor)) = &self.anchor {
            for elo in std::iter::once(&mut full_elo).chain(converged.iter_mut()) {
                anchor.apply(*index, elo)?;
            }
        }
        let level = self.params.bootstrap.level;
        let tail = (1.0 - level) / 2.0 * converged_rounds as f64;
        let intervals: Vec<Interval> = (0..m)
            .map(|i| {
                let reps: Vec<f64> = converged.iter().map(|r| r[i]).collect();
                percentile_interval(full_elo[i], &reps, level)
            })
            .collect();
        let open: Vec<(bool, bool)> = (0..m)
            .map(|i| {
                let side = self.full_separation[i];
                (
                    side.is_some_and(Side::open_above) || rounds_above[i] as f64 > tail,
                    side.is_some_and(Side::open_below) || rounds_below[i] as f64 > tail,
                )
            })
            .collect();
        let (lower, upper): (Vec<f64>, Vec<f64>) = intervals
            .iter()
            .zip(&open)
            .map(|(interval, &(above, below))| {
                let lower = if below {
                    f64::NEG_INFINITY
                } else {
                    interval.lower
                };
                let upper = if above { f64::INFINITY } else { interval.upper };
                (lower, upper)
            })
            .unzip();
        let ranks = rank_ranges(&lower, &upper)?;
        let ratings = leaderboard_order(&full_elo, &self.models)
            .into_iter()
            .map(|i| BootstrapRating {
                model: self.models[i].clone(),
                index: i,
                theta: self.full.theta[i],
                elo: full_elo[i],
                interval: intervals[i],
                open_above: open[i].0,
                open_below: open[i].1,
                separated_rounds: rounds_separated[i],
                rank: ranks[i].rank,
                worst_rank: ranks[i].worst_rank,
            })
            .collect();
        Ok(BtBootstrap {
            settings: self.params,
            resampling: self.resampling,
            converged_rounds,
            converged: self.full.converged,
            anchor: self.anchor.as_ref().map(|(_, a)| a.clone()),
            ratings,
        })
    }
}

/// One bootstrap round: every model's Elo, and the models its resample separates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replicate {
    /// Elo per model; empty when the round's fit did not converge.
    pub elo: Vec<f64>,
    /// (model index, side) of each model whose rating this resample leaves unbounded.
    pub separated: Vec<(usize, Side)>,
}

/// Multinomial counts of `draws` draws over categories with probabilities ∝ `weights`, drawn as
/// sequential conditional binomials: n_k ~ Binomial(draws − Σ_(l<k) n_l, w_k / Σ_(l≥k) w_l).
/// Costs O(categories) whatever `draws` is.
///
/// # Errors
/// [`Error::Insufficient`] when `draws` > 0 but every weight is 0.
pub fn multinomial_counts(weights: &[u64], draws: u64, rng: &mut impl Rng) -> Result<Vec<u64>> {
    let mut weight_left: u64 = weights.iter().sum();
    if draws > 0 && weight_left == 0 {
        return Err(Error::Insufficient(format!(
            "cannot draw {draws} times from categories that all have weight 0"
        )));
    }
    let mut left = draws;
    let mut counts = Vec::with_capacity(weights.len());
    for &w in weights {
        let n = if left == 0 || w == 0 {
            0
        } else if w >= weight_left {
            left
        } else {
            binomial(left, w as f64 / weight_left as f64, rng)?
        };
        counts.push(n);
        left -= n;
        weight_left -= w;
    }
    Ok(counts)
}

/// Below this mean n·min(p, 1 − p), [`binomial`] draws by inversion.
const INVERSION_MAX_MEAN: f64 = 60.0;

/// One draw from Binomial(n, p), 0 < p < 1. With q = 1 − p ≥ p (else the draw is n minus one
/// from Binomial(n, q)) and mean n·p below [`INVERSION_MAX_MEAN`], by inversion
/// (Kachitvichyanukul & Schmeiser's BINV): walk the pmf up from P(0) = qⁿ with
/// P(x) = P(x − 1)·((n + 1)·s / x − s), s = p / q, until it has used up one uniform draw — O(mean)
/// work and no set-up, which is what the many small categories of a bootstrap round need.
/// Larger means use rand_distr's BTPE. The rare uniform that round-off leaves beyond the
/// representable pmf is redrawn.
fn binomial(n: u64, p: f64, rng: &mut impl Rng) -> Result<u64> {
    let (flip, p) = if p > 0.5 { (true, 1.0 - p) } else { (false, p) };
    let x = if n as f64 * p < INVERSION_MAX_MEAN {
        let s = p / (1.0 - p);
        let a = (n as f64 + 1.0) * s;
        let p0 = (n as f64 * (-p).ln_1p()).exp();
        'draw: loop {
            let mut u: f64 = rng.random();
            let (mut x, mut px) = (0, p0);
            while u > px {
                u -= px;
                x += 1;
                px *= a / x as f64 - s;
                if x > n || px == 0.0 {
                    continue 'draw;
                }
            }
            break x;
        }
    } else {
        Binomial::new(n, p)
            .map_err(|e| Error::Insufficient(format!("binomial({n}, {p}): {e}")))?
            .sample(rng)
    };
    Ok(if flip { n - x } else { x })
}

/// Battles of one type: the unordered pair of models `i` and `j` (`i`'s name sorts first) with
/// target `target` (the share won by `i`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BattleType {
    pub i: usize,
    pub j: usize,
    pub target: f64,
    pub count: u64,
}

/// The distinct battle types of a set of battles, sorted by the pair's model names then
/// target — never by model numbers, which follow the order of rows in a file. So a bootstrap's
/// draws depend on the battles, not on how the file happens to be sorted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BattleTypes {
    pub n_models: usize,
    pub types: Vec<BattleType>,
}

impl BattleTypes {
    /// Groups valid battles into types.
    pub fn from_battles(battles: &Battles) -> Result<Self> {
        let m = check_battles(battles)?;
        // Each model's place in the sorted names: the order types are kept in.
        let mut by_name: Vec<usize> = (0..m).collect();
        by_name.sort_by(|&x, &y| battles.models[x].cmp(&battles.models[y]));
        let mut rank = vec![0; m];
        for (r, &model) in by_name.iter().enumerate() {
            rank[model] = r;
        }
        let mut counts: BTreeMap<(usize, usize, u64), u64> = BTreeMap::new();
        for b in &battles.battles {
            let (i, j, w) = if rank[b.a] < rank[b.b] {
                (rank[b.a], rank[b.b], b.y)
            } else {
                (rank[b.b], rank[b.a], 1.0 - b.y)
            };
            *counts.entry((i, j, w.to_bits())).or_insert(0) += 1;
        }
        let types = counts
            .into_iter()
            .map(|((i, j, bits), count)| BattleType {
                i: by_name[i],
                j: by_name[j],
                target: f64::from_bits(bits),
                count,
            })
            .collect();
        Ok(Self { n_models: m, types })
    }

    pub fn n_battles(&self) -> u64 {
        self.types.iter().map(|t| t.count).sum()
    }

    /// Pair totals with `counts[k]` battles of type k.
    pub fn pairwise(&self, counts: impl IntoIterator<Item = u64>) -> Pairwise {
        let mut pairs: Vec<PairTotal> = Vec::new();
        for (t, c) in self.types.iter().zip(counts) {
            let n = c as f64;
            let (i, j, won) = oriented(t.i, t.j, t.target);
            match pairs.last_mut() {
                Some(p) if p.i == i && p.j == j => {
                    p.n += n;
                    p.wins_i += n * won;
                }
                _ => pairs.push(PairTotal {
                    i,
                    j,
                    n,
                    wins_i: n * won,
                }),
            }
        }
        Pairwise {
            n_models: self.n_models,
            pairs,
        }
    }
}

/// Pair totals of every cluster of battles: `pairs` lists the compared pairs `i < j` in order,
/// and each cluster lists `(pair index, battles, wins of i)` for the pairs it holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClusterTotals {
    pub n_models: usize,
    pub pairs: Vec<(usize, usize)>,
    pub clusters: Vec<Vec<(usize, f64, f64)>>,
}

impl ClusterTotals {
    /// Groups valid battles by cluster label (clusters ordered by label).
    pub fn new(battles: &Battles, labels: &[usize]) -> Result<Self> {
        let m = check_battles(battles)?;
        if labels.len() != battles.battles.len() {
            return Err(Error::param(
                "clusters",
                format!(
                    "expected one cluster label per battle ({}), found {}",
                    battles.battles.len(),
                    labels.len()
                ),
            ));
        }
        let mut rows: Vec<(usize, usize, usize, f64)> = battles
            .battles
            .iter()
            .zip(labels)
            .map(|(b, &c)| {
                let (i, j, w) = oriented(b.a, b.b, b.y);
                (c, i, j, w)
            })
            .collect();
        rows.sort_by_key(|x| (x.0, x.1, x.2));
        let mut pairs: Vec<(usize, usize)> = rows.iter().map(|r| (r.1, r.2)).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let clusters = rows
            .chunk_by(|x, y| x.0 == y.0)
            .map(|cluster| {
                cluster
                    .chunk_by(|x, y| (x.1, x.2) == (y.1, y.2))
                    .map(|run| {
                        let pair = (run[0].1, run[0].2);
                        let k = pairs.partition_point(|&p| p < pair);
                        (k, run.len() as f64, run.iter().map(|r| r.3).sum())
                    })
                    .collect()
            })
            .collect();
        Ok(Self {
            n_models: m,
            pairs,
            clusters,
        })
    }

    /// Pair totals of a resample holding cluster g `counts[g]` times.
    pub fn pairwise(&self, counts: &[u32]) -> Pairwise {
        let mut pairs: Vec<PairTotal> = self
            .pairs
            .iter()
            .map(|&(i, j)| PairTotal {
                i,
                j,
                n: 0.0,
                wins_i: 0.0,
            })
            .collect();
        for (cluster, &c) in self.clusters.iter().zip(counts) {
            if c == 0 {
                continue;
            }
            let c = f64::from(c);
            for &(k, n, wins) in cluster {
                pairs[k].n += c * n;
                pairs[k].wins_i += c * wins;
            }
        }
        Pairwise {
            n_models: self.n_models,
            pairs,
        }
    }
}

/// A battle as `(i, j, share won by i)` with `i < j`.
fn oriented(a: usize, b: usize, y: f64) -> (usize, usize, f64) {
    if a < b {
        (a, b, y)
    } else {
        (b, a, 1.0 - y)
    }
}

/// Checks that every battle names two different known models and has a target in [0, 1];
/// returns the number of models.
pub(crate) fn check_battles(battles: &Battles) -> Result<usize> {
    let m = battles.n_models();
    if m < 2 {
        return Err(Error::Insufficient(format!(
            "Bradley–Terry needs at least two models, found {m}"
        )));
    }
    if battles.battles.is_empty() {
        return Err(Error::Insufficient(
            "Bradley–Terry needs at least one battle, found none".to_owned(),
        ));
    }
    for (k, b) in battles.battles.iter().enumerate() {
        if b.a >= m || b.b >= m {
            return Err(Error::param(
                "battles",
                format!(
                    "battle {k} (0-based) names models {} and {}: expected indices below {m}",
                    b.a, b.b
                ),
            ));
        }
        if b.a == b.b {
            return Err(Error::param(
                "battles",
                format!("battle {k} (0-based) pits model {} against itself", b.a),
            ));
        }
        if !(0.0..=1.0).contains(&b.y) {
            return Err(Error::param(
                "battles",
                format!(
                    "battle {k} (0-based): expected a target in [0, 1], found {}",
                    b.y
                ),
            ));
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battle;

    #[test]
    fn types_orient_to_the_lower_index_and_rebuild_pair_totals() {
        let battles = Battles {
            models: vec!["a".into(), "b".into(), "c".into()],
            battles: vec![
                Battle { a: 1, b: 0, y: 1.0 },
                Battle { a: 0, b: 1, y: 0.0 },
                Battle { a: 0, b: 1, y: 0.5 },
                Battle {
                    a: 2,
                    b: 1,
                    y: 0.25,
                },
            ],
        };
        let types = BattleTypes::from_battles(&battles).unwrap();
        let got: Vec<(usize, usize, f64, u64)> = types
            .types
            .iter()
            .map(|t| (t.i, t.j, t.target, t.count))
            .collect();
        assert_eq!(got, [(0, 1, 0.0, 2), (0, 1, 0.5, 1), (1, 2, 0.75, 1)]);
        assert_eq!(
            types.pairwise([2, 1, 1]),
            Pairwise::from_battles(3, &battles.battles)
        );
    }

    #[test]
    fn cluster_totals_merge_pairs_within_a_cluster() {
        let battles = Battles {
            models: vec!["a".into(), "b".into(), "c".into()],
            battles: vec![
                Battle { a: 1, b: 0, y: 1.0 },
                Battle { a: 0, b: 1, y: 1.0 },
                Battle { a: 1, b: 2, y: 0.5 },
            ],
        };
        let totals = ClusterTotals::new(&battles, &[7, 7, 3]).unwrap();
        assert_eq!(totals.pairs, [(0, 1), (1, 2)]);
        assert_eq!(totals.clusters, [vec![(1, 1.0, 0.5)], vec![(0, 2.0, 1.0)]]);
        let p = totals.pairwise(&[2, 1]);
        assert_eq!((p.pairs[0].n, p.pairs[0].wins_i), (2.0, 1.0));
        assert_eq!((p.pairs[1].n, p.pairs[1].wins_i), (2.0, 1.0));
    }

    #[test]
    fn invalid_battles_and_labels_are_rejected() {
        let bad = |a, b, y| Battles {
            models: vec!["a".into(), "b".into()],
            battles: vec![Battle { a, b, y }],
        };
        for battles in [
            bad(0, 2, 1.0),
            bad(1, 1, 1.0),
            bad(0, 1, 1.5),
            bad(0, 1, f64::NAN),
        ] {
            assert!(matches!(
                BattleTypes::from_battles(&battles),
                Err(Error::InvalidParam {
                    name: "battles",
                    ..
                })
            ));
        }
        assert!(matches!(
            ClusterTotals::new(&bad(0, 1, 1.0), &[1, 2]),
            Err(Error::InvalidParam {
                name: "clusters",
                ..
            })
        ));
    }
}
