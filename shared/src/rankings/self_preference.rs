//! Self-preference: whether a judge favours the answers of its own model family more than the
//! humans' ratings of those models predict.
//!
//! Model: the humans' Bradley–Terry ratings θ come from the human labels (every vote),
//! P(a beats b) = σ(θ_a − θ_b). The judge's verdicts (one per judged comparison) follow
//!
//! ```text
//! P(the judge prefers a) = σ(γ + α (θ_a − θ_b) + β (F_a − F_b)),   F_m = 1 for the judge's family
//! ```
//!
//! α lets the judge be more or less decisive than the humans, γ is a preference for side a (the
//! position bias, when a is shown first), and β is self-preference: the log-odds the judge adds
//! to its family's side at equal human strength. β = 0 is no self-preference; strength is
//! controlled because the family's human ratings sit in θ.
//!
//! Estimation: θ by maximum likelihood on the human labels (unpenalised, one model's θ at 0),
//! then (γ, α, β) by the logistic regression of the judge's verdicts with θ̂ plugged in; a tie
//! counts ½ on both. Intervals: the sandwich of the two stacked estimating equations (Newey &
//! McFadden 1994, §6), V = A⁻¹ B A⁻ᵀ, with A the Jacobian of the summed scores and B the sum of
//! the outer products of each battle's scores (its human and judge parts together), so the
//! humans' uncertainty about θ widens β's interval. The test is Wald's, z = β̂ / se, two-sided.
//!
//! Beside β: the same in Elo points (β · 400 / ln 10), and on the win-rate scale — the mean,
//! over the judge's battles between its family and other models, of the family's win
//! probability with β minus that with β = 0 (delta-method interval); and the raw shares on
//! those battles: the family's win rate by the judge, by the humans where they labelled, and
//! what the humans' ratings predict.
//!
//! The reference need not be people: put another judge's verdicts in the `human` column to
//! ask whether this judge favours its family more than that one does.
//!
//! Arguments: [`ScoredBattles`] (the judge's signal, the human labels) and
//! [`SelfPreferenceParams`]. Returns: [`SelfPreference`]. Models that the human labels do not
//! rate (no human battle, one that never lost or never won among them, or outside the largest
//! connected part of the human comparisons) are left out with their battles, each named in a
//! warning. Errors: [`Error::InvalidParam`] for an empty family, an empty or repeated name, a
//! name that is no model of the battles, a family of every model, a level outside (0, 1);
//! [`Error::Insufficient`] when the human labels rate fewer than two models or none of the
//! family, when no judged battle pits the family against another rated model, when the judge's
//! verdicts on those battles all go one way (β is not identified: the message says so, with
//! the counts), or when a fit has no unique minimum.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::io::readable::p_text;
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::math::normal::{normal_cdf, normal_quantile, Estimate};
use crate::math::weighted_logistic::{SparseRows, WeightedLogistic};
use crate::rankings::battles::Battle;
use crate::rankings::bradley_terry::{elo, ELO_PER_THETA};
use crate::rankings::pairwise::Pairwise;
use crate::rankings::scored_battles::ScoredBattles;
use crate::rankings::separation::separation;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

/// Settings of a self-preference test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SelfPreferenceParams {
    /// The judge's own models as the battles name them, e.g. its own and its siblings
    /// (comma-separated).
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', required = true))]
    pub family: Vec<String>,
    /// Coverage of the intervals.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = SelfPreferenceParams::default().level, allow_negative_numbers = true)
    )]
    pub level: f64,
}

impl Default for SelfPreferenceParams {
    fn default() -> Self {
        Self {
            family: Vec::new(),
            level: 0.95,
        }
    }
}

/// A model's human rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HumanRating {
    pub model: String,
    pub family: bool,
    pub elo: f64,
}

/// The judge's preference for its family, controlled for the family's human ratings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfPreference {
    /// β: log-odds the judge adds to its family's side at equal human strength.
    pub bias: Estimate,
    /// β in Elo points.
    pub elo_points: Estimate,
    /// The family's mean win probability by the judge with β minus with β = 0, over the
    /// judge's battles between its family and other models.
    pub win_rate_effect: Estimate,
    /// Wald's z = β / se and its two-sided p-value.
    pub z: f64,
    pub p_value: f64,
    /// α: the judge's log-odds per unit of human Δθ (1: as decisive as the humans).
    pub scale: Estimate,
    /// γ: the judge's log-odds for side a (`model_a`) at equal strength.
    pub position: Estimate,
    /// The judge's battles between its family and other rated models.
    pub cross_battles: usize,
    /// The family's share of those battles by the judge (ties ½).
    pub judge_win_rate: f64,
    /// The family's mean win probability on them by the humans' ratings.
    pub human_predicted_win_rate: f64,
    /// Those of them the humans labelled (every vote), and the family's share by the humans.
    pub human_cross_battles: usize,
    pub human_win_rate: Option<f64>,
    /// Judge verdicts and human labels used.
    pub judge_battles: usize,
    pub human_battles: usize,
    /// The human ratings the judge is compared with, in the battles' order of models.
    pub ratings: Vec<HumanRating>,
    pub params: SelfPreferenceParams,
    /// The result in one sentence.
    pub reading: String,
    pub warnings: Vec<String>,
}

const HUMAN_FIT: &str = "the humans' Bradley–Terry fit";
const JUDGE_FIT: &str = "the self-preference fit of the judge's verdicts";

impl SelfPreferenceParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the setting out of range.
    pub fn validate(&self) -> Result<()> {
        if self.family.is_empty() {
            return Err(Error::param(
                "family",
                "name the judge's own models (at least one), as the battles name them",
            ));
        }
        for (i, name) in self.family.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(Error::param("family", "a model name is empty"));
            }
            if self.family[..i].contains(name) {
                return Err(Error::param("family", format!("`{name}` is named twice")));
            }
        }
        in_open_unit("level", self.level)?;
        Ok(())
    }

    /// Tests `data`'s judge for self-preference.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn fit(&self, data: &ScoredBattles) -> Result<SelfPreference> {
        self.validate()?;
        let in_family = self.family_flags(data)?;
        let mut warnings = Vec::new();
        let rated = rated_models(data, &mut warnings);
        let kept: Vec<usize> = (0..data.models.len()).filter(|&m| rated[m]).collect();
        if kept.len() < 2 {
            return Err(Error::Insufficient(format!(
                "the human labels rate {} model(s); self-preference needs the humans' ratings \
                 of the family and of the models it played",
                kept.len()
            )));
        }
        if !kept.iter().any(|&m| in_family[m]) {
            return Err(Error::Insufficient(
                "the human labels rate none of the judge's family: its strength cannot be \
                 controlled for"
                    .to_owned(),
            ));
        }
        let problem = Problem::new(data, &kept, &in_family);
        problem.fit(self, kept, in_family, data, warnings)
    }

    /// Whether each model is of the family.
    fn family_flags(&self, data: &ScoredBattles) -> Result<Vec<bool>> {
        let mut flags = vec![false; data.models.len()];
        for name in &self.family {
            let m = data.models.iter().position(|model| model == name);
            let Some(m) = m else {
                let shown: Vec<&str> = data.models.iter().take(12).map(String::as_str).collect();
                return Err(Error::param(
                    "family",
                    format!(
                        "`{name}` is no model of the battles (they name {}{})",
                        shown.join(", "),
                        if data.models.len() > 12 { ", …" } else { "" }
                    ),
                ));
            };
            flags[m] = true;
        }
        if flags.iter().all(|&f| f) {
            return Err(Error::param(
                "family",
                "every model is of the family: there is nothing to prefer it to",
            ));
        }
        Ok(flags)
    }
}

/// Which models the human labels rate: repeatedly leaves out those with an unbounded rating
/// and those outside the largest connected part, with a warning for each.
fn rated_models(data: &ScoredBattles, warnings: &mut Vec<String>) -> Vec<bool> {
    let k = data.models.len();
    let mut rated = vec![true; k];
    loop {
        let battles: Vec<Battle> = data
            .battles
            .iter()
            .filter(|b| rated[b.a] && rated[b.b])
            .filter_map(|b| b.human.map(|y| Battle { a: b.a, b: b.b, y }))
            .collect();
        let mut dropped = false;
        let largest = largest_part(k, &battles, &rated);
        for m in 0..k {
            if rated[m] && !largest[m] {
                rated[m] = false;
                dropped = true;
                warnings.push(format!(
                    "`{}` is left out: the human labels do not compare it with the largest \
                     connected group of models",
                    data.models[m]
                ));
            }
        }
        if dropped {
            continue;
        }
        let totals = Pairwise::from_battles(k, &battles);
        for (m, side) in separation(&totals, &data.models).into_iter().enumerate() {
            if let (true, Some(side)) = (rated[m], side) {
                rated[m] = false;
                dropped = true;
                warnings.push(format!(
                    "`{}` is left out: its human rating is not identified ({})",
                    data.models[m],
                    side.describe()
                ));
            }
        }
        if !dropped {
            return rated;
        }
    }
}

/// The models of the largest connected part of `battles` among `rated` (most models, then the
/// first model).
fn largest_part(k: usize, battles: &[Battle], rated: &[bool]) -> Vec<bool> {
    let mut part: Vec<usize> = (0..k).collect();
    fn root(part: &mut [usize], mut m: usize) -> usize {
        while part[m] != m {
            part[m] = part[part[m]];
            m = part[m];
        }
        m
    }
    for b in battles {
        let (ra, rb) = (root(&mut part, b.a), root(&mut part, b.b));
        part[ra.max(rb)] = ra.min(rb);
    }
    let mut played = vec![false; k];
    for b in battles {
        played[b.a] = true;
        played[b.b] = true;
    }
    let mut size = vec![0usize; k];
    for m in (0..k).filter(|&m| rated[m] && played[m]) {
        let r = root(&mut part, m);
        size[r] += 1;
    }
    let best = (0..k).max_by_key(|&r| (size[r], std::cmp::Reverse(r)));
    (0..k)
        .map(|m| rated[m] && played[m] && Some(root(&mut part, m)) == best)
        .collect()
}

/// The two stacked fits over the rated models: θ on free coordinates (the first rated model's
/// θ is 0), then η = (γ, α, β).
struct Problem {
    /// Free coordinates of θ.
    free: usize,
    /// Human rows: the free-coordinate row of e_a − e_b, the label, and the battle's index.
    human: Vec<Row>,
    /// Judge rows: the same, with the family difference F_a − F_b.
    judge: Vec<JudgeRow>,
}

struct Row {
    d: Vec<(usize, f64)>,
    y: f64,
    battle: usize,
}

struct JudgeRow {
    row: Row,
    family: f64,
}

impl Problem {
    fn new(data: &ScoredBattles, kept: &[usize], in_family: &[bool]) -> Self {
        let mut coordinate = vec![None; data.models.len()];
        for (j, &m) in kept.iter().enumerate().skip(1) {
            coordinate[m] = Some(j - 1);
        }
        let is_kept = |m: usize| kept.contains(&m);
        let design = |a: usize, b: usize| -> Vec<(usize, f64)> {
            let mut d = Vec::with_capacity(2);
            if let Some(c) = coordinate[a] {
                d.push((c, 1.0));
            }
            if let Some(c) = coordinate[b] {
                d.push((c, -1.0));
            }
            d
        };
        let mut human = Vec::new();
        let mut judge = Vec::new();
        for (i, b) in data.battles.iter().enumerate() {
            if !(is_kept(b.a) && is_kept(b.b)) {
                continue;
            }
            if let Some(y) = b.human {
                human.push(Row {
                    d: design(b.a, b.b),
                    y,
                    battle: i,
                });
            }
            if let (false, Some(t)) = (b.judge_repeat, b.hard_target()) {
                let family =
                    f64::from(u8::from(in_family[b.a])) - f64::from(u8::from(in_family[b.b]));
                judge.push(JudgeRow {
                    row: Row {
                        d: design(b.a, b.b),
                        y: t,
                        battle: i,
                    },
                    family,
                });
            }
        }
        Self {
            free: kept.len() - 1,
            human,
            judge,
        }
    }

    fn fit(
        &self,
        params: &SelfPreferenceParams,
        kept: Vec<usize>,
        in_family: Vec<bool>,
        data: &ScoredBattles,
        warnings: Vec<String>,
    ) -> Result<SelfPreference> {
        let cross: Vec<&JudgeRow> = self.judge.iter().filter(|r| r.family != 0.0).collect();
        if cross.is_empty() {
            return Err(Error::Insufficient(
                "the judge never compared its family with another rated model: self-preference \
                 cannot be measured"
                    .to_owned(),
            ));
        }
        let family_share = |r: &JudgeRow| {
            if r.family > 0.0 {
                r.row.y
            } else {
                1.0 - r.row.y
            }
        };
        let wins: f64 = cross.iter().map(|r| family_share(r)).sum();
        let n_cross = cross.len() as f64;
        if wins == 0.0 || wins == n_cross {
            return Err(Error::Insufficient(format!(
                "not identified: the judge ruled {} its family in all {} of its battles against \
                 other models, so no finite self-preference fits them (it is at least as large \
                 as the data can show); add battles, or compare with a judge outside the family",
                if wins == 0.0 { "against" } else { "for" },
                cross.len()
            )));
        }
        let theta = self.human_theta()?;
        let eta = self.judge_eta(&theta)?;
        let covariance = self.sandwich(&theta, &eta)?;
        let z = normal_quantile(0.5 + params.level / 2.0);
        let at = |j: usize| (covariance[[j, j]].max(0.0)).sqrt();
        let (g, a, b) = (self.free, self.free + 1, self.free + 2);
        let bias = Estimate::normal(eta[2], at(b), z);
        let z_stat = eta[2] / at(b);
        let p_value = 2.0 * (1.0 - normal_cdf(z_stat.abs()));
        let (effect, effect_se) = self.win_rate_effect(&theta, &eta, &covariance);
        let delta = |r: &JudgeRow| dot(&r.row.d, &theta);
        let human_predicted = cross
            .iter()
            .map(|r| sigmoid(r.family * delta(r)))
            .sum::<f64>()
            / n_cross;
        let human_cross: Vec<f64> = self
            .human
            .iter()
            .filter_map(|r| {
                let battle = &data.battles[r.battle];
                match (in_family[battle.a], in_family[battle.b]) {
                    (true, false) => Some(r.y),
                    (false, true) => Some(1.0 - r.y),
                    _ => None,
                }
            })
            .collect();
        let human_win_rate = (!human_cross.is_empty())
            .then(|| human_cross.iter().sum::<f64>() / human_cross.len() as f64);
        let full_theta = |m: usize| match kept.iter().position(|&k| k == m) {
            Some(0) | None => 0.0,
            Some(j) => theta[j - 1],
        };
        let ratings = kept
            .iter()
            .map(|&m| HumanRating {
                model: data.models[m].clone(),
                family: in_family[m],
                elo: elo(full_theta(m)),
            })
            .collect();
        let elo_points = Estimate::normal(ELO_PER_THETA * eta[2], ELO_PER_THETA * at(b), z);
        let win_rate_effect = Estimate::normal(effect, effect_se, z);
        let reading = reading(params, &elo_points, &win_rate_effect, p_value);
        Ok(SelfPreference {
            bias,
            elo_points,
            win_rate_effect,
            z: z_stat,
            p_value,
            scale: Estimate::normal(eta[1], at(a), z),
            position: Estimate::normal(eta[0], at(g), z),
            cross_battles: cross.len(),
            judge_win_rate: wins / n_cross,
            human_predicted_win_rate: human_predicted,
            human_cross_battles: human_cross.len(),
            human_win_rate,
            judge_battles: self.judge.len(),
            human_battles: self.human.len(),
            ratings,
            params: params.clone(),
            reading,
            warnings,
        })
    }

    /// θ̂ (free coordinates) from the human labels.
    fn human_theta(&self) -> Result<Array1<f64>> {
        let n = self.human.len() as f64;
        let rows = SparseRows(self.human.iter().map(|r| r.d.clone()).collect());
        WeightedLogistic {
            rows: &rows,
            c: vec![1.0 / n; self.human.len()],
            b: self.human.iter().map(|r| r.y / n).collect(),
            d: self.free,
            fit: HUMAN_FIT,
        }
        .solve(None)
    }

    /// The judge row's design (1, Δθ, ΔF).
    fn judge_design(r: &JudgeRow, theta: &Array1<f64>) -> [f64; 3] {
        [1.0, dot(&r.row.d, theta), r.family]
    }

    /// η̂ = (γ, α, β) from the judge's verdicts at θ.
    fn judge_eta(&self, theta: &Array1<f64>) -> Result<Array1<f64>> {
        let n = self.judge.len() as f64;
        let rows = SparseRows(
            self.judge
                .iter()
                .map(|r| {
                    let x = Self::judge_design(r, theta);
                    (0..3)
                        .map(|j| (j, x[j]))
                        .filter(|(_, v)| *v != 0.0)
                        .collect()
                })
                .collect(),
        );
        WeightedLogistic {
            rows: &rows,
            c: vec![1.0 / n; self.judge.len()],
            b: self.judge.iter().map(|r| r.row.y / n).collect(),
            d: 3,
            fit: JUDGE_FIT,
        }
        .solve(None)
    }

    /// The covariance of (θ, γ, α, β) by the stacked sandwich A⁻¹ B A⁻ᵀ, A = [[H, 0], [C, J]].
    fn sandwich(&self, theta: &Array1<f64>, eta: &Array1<f64>) -> Result<Array2<f64>> {
        let (f, p) = (self.free, self.free + 3);
        let mut h = Array2::zeros((f, f));
        let mut c = Array2::zeros((3, f));
        let mut jj = Array2::zeros((3, 3));
        let mut scores: std::collections::BTreeMap<usize, Array1<f64>> = Default::default();
        for r in &self.human {
            let pr = sigmoid(dot(&r.d, theta));
            let w = pr * (1.0 - pr);
            for &(i, vi) in &r.d {
                for &(j, vj) in &r.d {
                    h[[i, j]] += w * vi * vj;
                }
            }
            let s = scores.entry(r.battle).or_insert_with(|| Array1::zeros(p));
            for &(i, vi) in &r.d {
                s[i] += (pr - r.y) * vi;
            }
        }
        for r in &self.judge {
            let x = Self::judge_design(r, theta);
            let q = sigmoid(x[0] * eta[0] + x[1] * eta[1] + x[2] * eta[2]);
            let w = q * (1.0 - q);
            for i in 0..3 {
                for j in 0..3 {
                    jj[[i, j]] += w * x[i] * x[j];
                }
                for &(col, v) in &r.row.d {
                    c[[i, col]] += w * x[i] * eta[1] * v;
                }
            }
            for &(col, v) in &r.row.d {
                c[[1, col]] += (q - r.row.y) * v;
            }
            let s = scores
                .entry(r.row.battle)
                .or_insert_with(|| Array1::zeros(p));
            for i in 0..3 {
                s[f + i] += (q - r.row.y) * x[i];
            }
        }
        let h_inv = spd_inverse(&h).ok_or_else(|| {
            crate::math::weighted_logistic::not_identified(HUMAN_FIT, "its Hessian is singular")
        })?;
        let j_inv = spd_inverse(&jj).ok_or_else(|| {
            crate::math::weighted_logistic::not_identified(JUDGE_FIT, "its Hessian is singular")
        })?;
        let mut a_inv = Array2::zeros((p, p));
        a_inv.slice_mut(ndarray::s![..f, ..f]).assign(&h_inv);
        a_inv.slice_mut(ndarray::s![f.., f..]).assign(&j_inv);
        let lower = -j_inv.dot(&c).dot(&h_inv);
        a_inv.slice_mut(ndarray::s![f.., ..f]).assign(&lower);
        let mut b = Array2::zeros((p, p));
        for s in scores.values() {
            for i in 0..p {
                if s[i] != 0.0 {
                    for j in 0..p {
                        b[[i, j]] += s[i] * s[j];
                    }
                }
            }
        }
        Ok(a_inv.dot(&b).dot(&a_inv.t()))
    }

    /// The family's mean win probability by the judge with β minus with β = 0, over the cross
    /// battles, and its delta-method standard error.
    fn win_rate_effect(
        &self,
        theta: &Array1<f64>,
        eta: &Array1<f64>,
        covariance: &Array2<f64>,
    ) -> (f64, f64) {
        let f = self.free;
        let effect = |theta: &Array1<f64>, eta: &Array1<f64>| -> f64 {
            let cross = self.judge.iter().filter(|r| r.family != 0.0);
            let (mut sum, mut n) = (0.0, 0.0);
            for r in cross {
                let x = Self::judge_design(r, theta);
                let base = eta[0] + eta[1] * x[1];
                let with = sigmoid(base + eta[2] * x[2]);
                let without = sigmoid(base);
                sum += x[2] * (with - without);
                n += 1.0;
            }
            sum / n
        };
        let value = effect(theta, eta);
        let mut gradient = Array1::zeros(f + 3);
        let step = 1e-6;
        for j in 0..f + 3 {
            let (mut t_up, mut e_up) = (theta.clone(), eta.clone());
            let (mut t_down, mut e_down) = (theta.clone(), eta.clone());
            if j < f {
                t_up[j] += step;
                t_down[j] -= step;
            } else {
                e_up[j - f] += step;
                e_down[j - f] -= step;
            }
            gradient[j] = (effect(&t_up, &e_up) - effect(&t_down, &e_down)) / (2.0 * step);
        }
        let variance = gradient.dot(&covariance.dot(&gradient));
        (value, variance.max(0.0).sqrt())
    }
}

fn dot(row: &[(usize, f64)], theta: &Array1<f64>) -> f64 {
    row.iter().map(|&(j, v)| v * theta[j]).sum()
}

/// The result in one sentence.
fn reading(
    params: &SelfPreferenceParams,
    points: &Estimate,
    win_rate: &Estimate,
    p_value: f64,
) -> String {
    let coverage = 100.0 * params.level;
    let verdict = if points.lower > 0.0 {
        "the judge favours its own family"
    } else if points.upper < 0.0 {
        "the judge disfavours its own family"
    } else {
        "no self-preference is shown at this sample size (the interval includes 0)"
    };
    format!(
        "At equal human strength the judge gives its family {:+.0} Elo points ({coverage}% \
         interval {:+.0} to {:+.0}; {}), {:+.1} points of win rate: {verdict}.",
        points.estimate,
        points.lower,
        points.upper,
        p_text(p_value),
        100.0 * win_rate.estimate
    )
}

crate::analysis::warnings::own_warnings!(SelfPreference);
