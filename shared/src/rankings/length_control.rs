//! Length-controlled win rates (AlpacaEval 2; Dubois et al. 2024): each model's win rate
//! against a baseline, and what it would be if its answers were as long as the baseline's.
//!
//! Model (AlpacaEval's GLM, its `length_controlled_minimal` formula): for the battles of model
//! m against the baseline, with p_i the judge's probability that m's answer wins (a verdict
//! counts 1, 0 or ½),
//!
//! ```text
//! P(m wins battle i) = σ(w_len · tanh(δ_i / s) + w_m),   δ_i = len(baseline's answer) − len(m's)
//! ```
//!
//! with s the sample standard deviation of δ over m's battles (δ is scaled, not centred, as
//! upstream). The length-controlled win rate is σ(w_m): the prediction at δ = 0. The fit is
//! the maximum-likelihood logistic regression with soft targets (upstream's default picks an L1
//! penalty by 5-fold CV, which on AlpacaEval's annotations ends at the same fit to within its
//! tolerance); its standard errors are the sandwich's, and the interval is σ(w_m ± z·se). The
//! raw win rate is the mean of p_i with the standard error of that mean, as upstream reports it.
//!
//! Upstream's leaderboard (`length_controlled_v1`) also gives each instruction a difficulty,
//! estimated once across its whole leaderboard, and regularises toward "gamed" baselines; from
//! a user's own battles neither exists, so this is the minimal GLM. On AlpacaEval's own
//! annotations of three models its LC win rates are within 0.7 points of the published v1 ones
//! (tested). Upstream's `lc_standard_error` is the standard error of the GLM's predictions over
//! instructions — zero for this formula, whatever the data — so it is not reproduced: the
//! sandwich standard error is.
//!
//! The baseline is the one named, else the one model in every battle (of two such models, the
//! one on side a of every battle, as AlpacaEval's annotations put it).
//!
//! Arguments: [`LengthBattles`] and [`LengthControlParams`]. Returns: [`LengthControl`], one row
//! per model. A model whose battles do not identify the fit (it never loses or never wins, or
//! its answers' lengths never differ from the baseline's) gets its raw win rate and no LC win
//! rate, with a note saying why. Errors: [`Error::InvalidParam`] for a level outside (0, 1) or a
//! baseline that no battle names; [`Error::Insufficient`] for no battles, no model that plays
//! in every battle when no baseline is given, or a battle without the baseline.

use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::math::normal::{normal_quantile, Estimate};
use crate::math::weighted_logistic::{SparseRows, WeightedLogistic};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

/// Battles with the judge's probability for side a and both answers' lengths.
#[derive(Debug, Clone, PartialEq)]
pub struct LengthBattles {
    pub models: Vec<String>,
    pub battles: Vec<LengthBattle>,
}

/// One battle: models `a` and `b`, P(a wins) by the judge, and the answers' lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LengthBattle {
    pub a: usize,
    pub b: usize,
    pub p_a: f64,
    pub length_a: f64,
    pub length_b: f64,
}

/// Settings of length-controlled win rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LengthControlParams {
    /// The model every other is compared with (default: the one model in every battle).
    #[cfg_attr(feature = "cli", arg(long))]
    pub baseline: Option<String>,
    /// Coverage of the intervals.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = LengthControlParams::default().level, allow_negative_numbers = true)
    )]
    pub level: f64,
}

impl Default for LengthControlParams {
    fn default() -> Self {
        Self {
            baseline: None,
            level: 0.95,
        }
    }
}

/// One model against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthControlled {
    pub model: String,
    pub battles: usize,
    /// Mean of the judge's probability that the model wins, in %, and its standard error.
    pub win_rate: f64,
    pub win_rate_se: f64,
    /// Battles the model won, lost and drew (P = ½) by the judge.
    pub n_wins: usize,
    pub n_wins_base: usize,
    pub n_draws: usize,
    /// σ(w_m) in %, its delta-method standard error and interval; `None` when not identified
    /// (see `note`).
    pub lc_win_rate: Option<f64>,
    pub lc_se: Option<f64>,
    pub lc_lower: Option<f64>,
    pub lc_upper: Option<f64>,
    /// w_len and w_m with their sandwich intervals.
    pub length_coefficient: Option<Estimate>,
    pub model_coefficient: Option<Estimate>,
    /// The sample standard deviation of δ = baseline's length − model's, and the mean lengths.
    pub delta_length_sd: f64,
    pub mean_length: f64,
    pub mean_baseline_length: f64,
    pub note: Option<String>,
}

/// Length-controlled win rates of every model against one baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthControl {
    pub baseline: String,
    /// Highest length-controlled win rate first (models without one last, by raw win rate).
    pub models: Vec<LengthControlled>,
    pub params: LengthControlParams,
    pub warnings: Vec<String>,
}

impl LengthControl {
    /// The report in one sentence: the model with the highest length-controlled win rate
    /// against the baseline (with its interval and raw rate), and the model whose rate length
    /// control changes most.
    pub fn reading(&self) -> String {
        let controlled: Vec<(&LengthControlled, f64)> = self
            .models
            .iter()
            .filter_map(|m| m.lc_win_rate.map(|lc| (m, lc)))
            .collect();
        let Some(&(best, lc)) = controlled.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            return format!(
                "No model's length-controlled win rate against {} could be estimated (see the notes).",
                self.baseline
            );
        };
        let bound = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}"));
        let mut text = format!(
            "At equal answer length, {} wins {lc:.1}% [{}, {}] against {} (as judged: {:.1}%)",
            best.model,
            bound(best.lc_lower),
            bound(best.lc_upper),
            self.baseline,
            best.win_rate
        );
        if let Some(&(moved, moved_lc)) = controlled.iter().max_by(|a, b| {
            (a.1 - a.0.win_rate)
                .abs()
                .total_cmp(&(b.1 - b.0.win_rate).abs())
        }) {
            text.push_str(&format!(
                "; length control changes {}'s rate most: {:.1}% → {moved_lc:.1}%",
                moved.model, moved.win_rate
            ));
        }
        text.push('.');
        text
    }
}

impl LengthControlParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the setting out of range.
    pub fn validate(&self) -> Result<()> {
        in_open_unit("level", self.level)?;
        if let Some(name) = &self.baseline {
            if name.trim().is_empty() {
                return Err(Error::param("baseline", "the model name is empty"));
            }
        }
        Ok(())
    }

    /// Each model's raw and length-controlled win rate against the baseline.
    ///
    /// # Errors
    /// See the [module documentation](self).
    pub fn fit(&self, data: &LengthBattles) -> Result<LengthControl> {
        self.validate()?;
        if data.battles.is_empty() {
            return Err(Error::Insufficient(
                "length control needs battles, found none".to_owned(),
            ));
        }
        let baseline = self.baseline_of(data)?;
        let z = normal_quantile(0.5 + self.level / 2.0);
        let mut per_model: Vec<Vec<(f64, f64)>> = vec![Vec::new(); data.models.len()];
        let mut lengths: Vec<Vec<(f64, f64)>> = vec![Vec::new(); data.models.len()];
        for (i, b) in data.battles.iter().enumerate() {
            let (model, p, own, base) = if b.a == baseline {
                (b.b, 1.0 - b.p_a, b.length_b, b.length_a)
            } else if b.b == baseline {
                (b.a, b.p_a, b.length_a, b.length_b)
            } else {
                return Err(Error::Insufficient(format!(
                    "battle {} ({} against {}) does not involve the baseline `{}`: length-\
                     controlled win rates compare every model with one baseline",
                    i + 1,
                    data.models[b.a],
                    data.models[b.b],
                    data.models[baseline]
                )));
            };
            per_model[model].push((p, base - own));
            lengths[model].push((own, base));
        }
        let mut models: Vec<LengthControlled> = (0..data.models.len())
            .filter(|&m| m != baseline && !per_model[m].is_empty())
            .map(|m| fit_model(&data.models[m], &per_model[m], &lengths[m], z))
            .collect();
        models.sort_by(|x, y| {
            let key = |r: &LengthControlled| {
                (r.lc_win_rate.is_some(), r.lc_win_rate.unwrap_or(r.win_rate))
            };
            let (kx, ky) = (key(x), key(y));
            ky.0.cmp(&kx.0).then(ky.1.total_cmp(&kx.1))
        });
        let warnings = models
            .iter()
            .filter_map(|r| r.note.as_ref().map(|n| format!("{}: {n}", r.model)))
            .collect();
        Ok(LengthControl {
            baseline: data.models[baseline].clone(),
            models,
            params: self.clone(),
            warnings,
        })
    }

    /// The baseline's index: the one named, or the one model in every battle.
    fn baseline_of(&self, data: &LengthBattles) -> Result<usize> {
        match &self.baseline {
            Some(name) => data.models.iter().position(|m| m == name).ok_or_else(|| {
                Error::param("baseline", format!("`{name}` is no model of the battles"))
            }),
            None => {
                let everywhere: Vec<usize> = (0..data.models.len())
                    .filter(|&m| data.battles.iter().all(|b| b.a == m || b.b == m))
                    .collect();
                match everywhere.as_slice() {
                    [one] => Ok(*one),
                    [a, b] => {
                        // Two models only: AlpacaEval's layout puts the baseline on side a.
                        let always_a = |m: usize| data.battles.iter().all(|x| x.a == m);
                        match (always_a(*a), always_a(*b)) {
                            (true, false) => Ok(*a),
                            (false, true) => Ok(*b),
                            _ => Err(Error::Insufficient(format!(
                                "both `{}` and `{}` play in every battle, on either side: \
                                 name the baseline",
                                data.models[*a], data.models[*b]
                            ))),
                        }
                    }
                    _ => Err(Error::Insufficient(
                        "no model plays in every battle: name the baseline".to_owned(),
                    )),
                }
            }
        }
    }
}

/// One model's raw and length-controlled win rate from its (p, δ) rows.
fn fit_model(model: &str, rows: &[(f64, f64)], lengths: &[(f64, f64)], z: f64) -> LengthControlled {
    let n = rows.len() as f64;
    let mean = rows.iter().map(|r| r.0).sum::<f64>() / n;
    let sem = if rows.len() > 1 {
        (rows.iter().map(|r| (r.0 - mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt()
    } else {
        f64::NAN
    };
    let delta_mean = rows.iter().map(|r| r.1).sum::<f64>() / n;
    let sd = if rows.len() > 1 {
        (rows.iter().map(|r| (r.1 - delta_mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let mut out = LengthControlled {
        model: model.to_owned(),
        battles: rows.len(),
        win_rate: 100.0 * mean,
        win_rate_se: 100.0 * sem,
        n_wins: rows.iter().filter(|r| r.0 > 0.5).count(),
        n_wins_base: rows.iter().filter(|r| r.0 < 0.5).count(),
        n_draws: rows.iter().filter(|r| r.0 == 0.5).count(),
        lc_win_rate: None,
        lc_se: None,
        lc_lower: None,
        lc_upper: None,
        length_coefficient: None,
        model_coefficient: None,
        delta_length_sd: sd,
        mean_length: lengths.iter().map(|l| l.0).sum::<f64>() / n,
        mean_baseline_length: lengths.iter().map(|l| l.1).sum::<f64>() / n,
        note: None,
    };
    if sd.is_nan() || sd <= 0.0 {
        out.note = Some(
            "its answers' lengths never differ from the baseline's by varying amounts: no \
             length effect can be estimated, so no length-controlled win rate"
                .to_owned(),
        );
        return out;
    }
    let x: Vec<f64> = rows.iter().map(|r| (r.1 / sd).tanh()).collect();
    let design = SparseRows(x.iter().map(|&v| vec![(0, v), (1, 1.0)]).collect());
    let fit = WeightedLogistic {
        rows: &design,
        c: vec![1.0 / n; rows.len()],
        b: rows.iter().map(|r| r.0 / n).collect(),
        d: 2,
        fit: "the length-controlled GLM",
    }
    .solve(None);
    let w = match fit {
        Ok(w) => w,
        Err(e) => {
            out.note = Some(format!(
                "{e} (the judge's verdicts against the baseline are one-sided once length is \
                 accounted for): no length-controlled win rate"
            ));
            return out;
        }
    };
    let Some(se) = sandwich(&x, rows, &w) else {
        out.note = Some("the GLM's Hessian is singular: no length-controlled win rate".to_owned());
        return out;
    };
    let lc = sigmoid(w[1]);
    out.lc_win_rate = Some(100.0 * lc);
    out.lc_se = Some(100.0 * lc * (1.0 - lc) * se[1]);
    out.lc_lower = Some(100.0 * sigmoid(w[1] - z * se[1]));
    out.lc_upper = Some(100.0 * sigmoid(w[1] + z * se[1]));
    out.length_coefficient = Some(Estimate::normal(w[0], se[0], z));
    out.model_coefficient = Some(Estimate::normal(w[1], se[1], z));
    out
}

/// Sandwich standard errors H⁻¹ (Σ g gᵀ) H⁻¹ of (w_len, w_m).
fn sandwich(x: &[f64], rows: &[(f64, f64)], w: &Array1<f64>) -> Option<[f64; 2]> {
    let mut h = Array2::zeros((2, 2));
    let mut g = Array2::zeros((2, 2));
    for (&xi, &(p, _)) in x.iter().zip(rows) {
        let q = sigmoid(w[0] * xi + w[1]);
        let v = [xi, 1.0];
        for r in 0..2 {
            for c in 0..2 {
                h[[r, c]] += q * (1.0 - q) * v[r] * v[c];
                g[[r, c]] += (q - p).powi(2) * v[r] * v[c];
            }
        }
    }
    let inverse = spd_inverse(&h)?;
    let v = inverse.dot(&g).dot(&inverse);
    Some([v[[0, 0]].max(0.0).sqrt(), v[[1, 1]].max(0.0).sqrt()])
}

crate::analysis::warnings::own_warnings!(LengthControl);
