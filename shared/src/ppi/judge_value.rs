//! The judge value gauge: what a judge is worth before anyone spends labels on it, read from a
//! pilot — a labelled-battles file whose human-labelled rows are the pilot (the judge's label
//! on every row, as [`super::labelled_battles`] reads it).
//!
//! Model: on the n rows with a human label, with the judge's label f and the human's y (each
//! model_a's outcome in [0, 1]),
//! - **agreement**: the share of rows where the judge and the humans pick the same side (a label
//!   above ½: model_a; below: model_b; ½: a tie), with Wilson's interval at 1 − α, beside the
//!   agreement two independent raters with the same marginals would reach by chance
//!   (Σ_side p_judge(side) · p_human(side));
//! - **ρ**: Pearson's correlation of f and y, with Fisher's z interval
//!   tanh(atanh ρ ± z₁₋α/₂ / √(n − 3)) (scipy's `pearsonr(...).confidence_interval()`);
//! - **labels per label**: what prediction-powered inference makes of one human label with
//!   this file's N judge-only rows — [`super::ppi_mean::ppi_mean`]'s effective number of human
//!   labels over n, λ power-tuned (the PPI page's own computation);
//! - **the ceiling**: whatever debiasing is used, a judge whose labels correlate ρ with the
//!   humans' can make a human label count at most about 1 / (1 − ρ²) (the variance of
//!   y − λf is at least (1 − ρ²)·Var y; Dorner, Nastl & Hardt, ICLR 2025), so it can replace at
//!   most a share ρ² of the human labels (0 for ρ ≤ 0) — given at ρ's estimate and at the upper
//!   end of its interval;
//! - **the verdict**: worth running when ρ ≥ `worth_rho` (default 0.3: at most 9 % of the labels
//!   saved below it), in words.
//!
//! Arguments: the file's name and bytes, α in (0, 1), `worth_rho` in (0, 1). Returns:
//! [`JudgeValue`]. Errors: the file's located parse errors; [`Error::Insufficient`] for fewer
//! than two human-labelled rows. A ρ that is not identified (the judge's or the humans' labels
//! constant on the pilot) gives no ρ, no ceiling and a verdict that says so; n ≤ 3 gives ρ the
//! whole interval [−1, 1]; both are warnings.

use super::labelled_battles::parse_labelled_battles;
use super::ppi_mean::{ppi_mean, two_sided_z};
use crate::compare::sample_estimates::{wilson, MeanInterval};
use crate::io::checks::in_open_unit;
use crate::io::error::{Error, Result};
use crate::math::correlation::pearson;
use serde::{Deserialize, Serialize};

/// The gauge's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct JudgeValueParams {
    /// Error level of the intervals (coverage 1 − α).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = JudgeValueParams::default().alpha, allow_negative_numbers = true)
    )]
    pub alpha: f64,
    /// The correlation with the humans below which the judge is not worth running.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = JudgeValueParams::default().worth_rho, allow_negative_numbers = true)
    )]
    pub worth_rho: f64,
}

impl Default for JudgeValueParams {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            worth_rho: 0.3,
        }
    }
}

/// A correlation and its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
}

/// What a judge is worth on a pilot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeValue {
    pub source: String,
    /// Rows with a human label (the pilot).
    pub labelled: usize,
    /// Rows with the judge's label only.
    pub unlabelled: usize,
    /// Pilot rows where the judge and the humans pick the same side.
    pub agreed: usize,
    /// `agreed / labelled` with Wilson's interval.
    pub agreement: MeanInterval,
    /// The agreement of independent raters with the same marginals.
    pub chance_agreement: f64,
    /// Pearson's ρ of the judge's and the humans' labels; `None` when not identified.
    pub rho: Option<Correlation>,
    /// PPI's power-tuned λ on this file (`None` without judge-only rows).
    pub lambda: Option<f64>,
    /// What one human label counts for with this file's judge-only rows (PPI's effective n / n).
    pub labels_per_label: Option<f64>,
    /// The most any debiasing can make one human label count: 1 / (1 − ρ²).
    pub ceiling: Option<f64>,
    /// The largest share of human labels the judge can replace: ρ² (0 for ρ ≤ 0).
    pub replaceable_share: Option<f64>,
    /// The same at the upper end of ρ's interval.
    pub replaceable_share_upper: Option<f64>,
    pub worth_running: bool,
    /// The verdict in words.
    pub verdict: String,
    pub warnings: Vec<String>,
    pub settings: JudgeValueParams,
}

/// The side a label picks: 1 for model_a, −1 for model_b, 0 for a tie.
fn side(label: f64) -> i8 {
    if label > 0.5 {
        1
    } else if label < 0.5 {
        -1
    } else {
        0
    }
}

/// A share of the human labels as a whole percentage (`0.117` → `12 %`).
fn percent(share: f64) -> String {
    format!("{:.0} %", 100.0 * share)
}

impl JudgeValueParams {
    /// # Errors
    /// [`Error::InvalidParam`] for α or `worth_rho` outside (0, 1).
    pub fn validate(&self) -> Result<()> {
        in_open_unit("alpha", self.alpha)?;
        in_open_unit("worth_rho", self.worth_rho)
    }

    /// The gauge on the labelled battles `bytes` (named `source`).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, source: &str, bytes: &[u8]) -> Result<JudgeValue> {
        self.validate()?;
        let z = two_sided_z(self.alpha)?;
        let data = parse_labelled_battles(source, bytes)?;
        let (mut judge, mut human, mut judge_only) = (Vec::new(), Vec::new(), Vec::new());
        for battle in &data.battles {
            match battle.human {
                Some(h) => {
                    judge.push(battle.judge);
                    human.push(h);
                }
                None => judge_only.push(battle.judge),
            }
        }
        let n = human.len();
        if n < 2 {
            return Err(Error::Insufficient(format!(
                "{source}: the judge value gauge needs at least 2 rows with a human label (the \
                 pilot), found {n}"
            )));
        }
        let mut warnings = Vec::new();
        let agreed = judge
            .iter()
            .zip(&human)
            .filter(|(f, y)| side(**f) == side(**y))
            .count();
        let agreement = wilson(agreed as f64, n as f64, self.alpha);
        let share = |labels: &[f64], s: i8| {
            labels.iter().filter(|v| side(**v) == s).count() as f64 / n as f64
        };
        let chance_agreement = [-1, 0, 1]
            .iter()
            .map(|&s| share(&judge, s) * share(&human, s))
            .sum();
        let r = pearson(&judge, &human)?;
        let rho = (!r.is_nan()).then(|| {
            if n <= 3 {
                warnings.push(format!(
                    "ρ from {n} labelled rows: its interval is the whole range [−1, 1] (Fisher's \
                     interval needs at least 4)"
                ));
                return Correlation {
                    estimate: r,
                    lower: -1.0,
                    upper: 1.0,
                };
            }
            let (centre, half) = (r.atanh(), z / (n as f64 - 3.0).sqrt());
            Correlation {
                estimate: r,
                lower: (centre - half).tanh(),
                upper: (centre + half).tanh(),
            }
        });
        if rho.is_none() {
            warnings.push(format!(
                "ρ is not identified: the {} labels are the same on every one of the {n} \
                 labelled rows",
                if judge.iter().all(|v| *v == judge[0]) {
                    "judge's"
                } else {
                    "humans'"
                }
            ));
        }
        let ppi = match judge_only.is_empty() {
            true => {
                warnings.push(
                    "every row has a human label: there is no judge-only row for PPI to use, so \
                     no labels per label here (the ceiling says what such rows could bring)"
                        .to_owned(),
                );
                None
            }
            false => Some(ppi_mean(&human, &judge, &judge_only, None, self.alpha)?),
        };
        let replaceable = |r: f64| r.max(0.0).powi(2);
        let ceiling = rho.and_then(|r| {
            let saved = replaceable(r.estimate);
            (saved < 1.0).then(|| 1.0 / (1.0 - saved))
        });
        let worth_running = rho.is_some_and(|r| r.estimate >= self.worth_rho);
        let verdict = match rho {
            None => "not identified: the pilot's labels do not vary, so it cannot say what the \
                     judge is worth; label a pilot where both sides occur"
                .to_owned(),
            Some(r) if r.estimate <= 0.0 => format!(
                "not worth running: its labels do not rise with the humans' (ρ = {:.2}), so no \
                 debiasing can save human labels with it",
                r.estimate
            ),
            Some(r) => format!(
                "{}: it can replace at most {} of your human labels (ρ = {:.2}; {} at the top \
                 of ρ's interval [{:.2}, {:.2}]){}",
                if worth_running {
                    "worth running"
                } else {
                    "not worth running"
                },
                percent(replaceable(r.estimate)),
                r.estimate,
                percent(replaceable(r.upper)),
                r.lower,
                r.upper,
                if worth_running {
                    String::new()
                } else {
                    format!("; below ρ = {} a judge saves too little", self.worth_rho)
                }
            ),
        };
        if agreement.upper < chance_agreement {
            warnings.push(format!(
                "the judge agrees with the humans less than chance would ({:.3} against {:.3})",
                agreement.estimate, chance_agreement
            ));
        }
        Ok(JudgeValue {
            source: source.to_owned(),
            labelled: n,
            unlabelled: judge_only.len(),
            agreed,
            agreement,
            chance_agreement,
            rho,
            lambda: ppi.map(|p| p.lambda),
            labels_per_label: ppi.map(|p| p.effective_n / n as f64),
            ceiling,
            replaceable_share: rho.map(|r| replaceable(r.estimate)),
            replaceable_share_upper: rho.map(|r| replaceable(r.upper)),
            worth_running,
            verdict,
            warnings,
            settings: *self,
        })
    }
}

crate::analysis::warnings::own_warnings!(JudgeValue);

#[cfg(test)]
mod tests {
    use super::*;

    fn gauge(csv: &str) -> JudgeValue {
        JudgeValueParams::default()
            .fit("t.csv", csv.as_bytes())
            .unwrap()
    }

    /// Six labelled rows and two judge-only rows, computed by hand: the judge's sides
    /// (A, A, B, B, tie, A) against the humans' (A, B, B, B, A, A) agree on 4 of 6.
    #[test]
    fn a_small_pilot_equals_hand_computation() {
        let csv = "model_a,model_b,judge,human\n\
                   x,y,1,1\nx,y,1,0\nx,y,0,0\nx,y,0,0.25\nx,y,0.5,0.75\nx,y,1,1\nx,y,1,\nx,y,0,\n";
        let g = gauge(csv);
        assert_eq!((g.labelled, g.unlabelled, g.agreed), (6, 2, 4));
        assert!((g.agreement.estimate - 4.0 / 6.0).abs() < 1e-15);
        // Chance: judge sides A 3/6, B 2/6, tie 1/6; humans A 3/6, B 3/6, tie 0.
        assert!((g.chance_agreement - (0.25 + 1.0 / 6.0)).abs() < 1e-15);
        // ρ: f = (1,1,0,0,.5,1), mean 7/12; y = (1,0,0,.25,.75,1), mean 0.5.
        // Σ(f−f̄)(y−ȳ) = 5/12·½ + 5/12·(−½) − 7/12·(−½) − 7/12·(−¼) − 1/12·¼ + 5/12·½ = 0.625;
        // Σ(f−f̄)² = 3·25/144 + 2·49/144 + 1/144 = 174/144; Σ(y−ȳ)² = 1.125.
        let r = 0.625 / ((174.0f64 / 144.0).sqrt() * 1.125f64.sqrt());
        let rho = g.rho.unwrap();
        assert!((rho.estimate - r).abs() < 1e-12, "{}", rho.estimate);
        let half = 1.959_963_984_540_054 / 3f64.sqrt();
        assert!((rho.lower - (r.atanh() - half).tanh()).abs() < 1e-9);
        assert!((rho.upper - (r.atanh() + half).tanh()).abs() < 1e-9);
        assert!((g.replaceable_share.unwrap() - r * r).abs() < 1e-12);
        assert!((g.ceiling.unwrap() - 1.0 / (1.0 - r * r)).abs() < 1e-12);
        assert!(
            g.worth_running && g.verdict.starts_with("worth running"),
            "{}",
            g.verdict
        );
    }

    /// On LLMFAO — GPT-4 with the crowd's labels on 300 of its 2,139 pairs, and SmolLM2-135M
    /// on the study's 248 pairs with the crowd's labels on half — every number equals the
    /// independent computation with statsmodels, scipy and ppi-python
    /// (`tests/fixtures/make_judge_value_reference.py`).
    #[test]
    fn llmfao_gauges_equal_statsmodels_scipy_and_ppi_python() {
        let reference: serde_json::Value = serde_json::from_str(include_str!(
            "../../../tests/fixtures/judge_value_reference.json"
        ))
        .unwrap();
        let files = [
            (
                "gpt4",
                include_str!("../../../tests/fixtures/ppi-llmfao-battles.csv"),
            ),
            (
                "smollm2",
                include_str!("../../../tests/fixtures/judge-value-smollm2.csv"),
            ),
        ];
        for (name, csv) in files {
            let want = &reference[name];
            let g = gauge(csv);
            let close = |ours: f64, theirs: &serde_json::Value, what: &str| {
                let theirs = theirs.as_f64().unwrap();
                assert!(
                    (ours - theirs).abs() < 1e-9,
                    "{name} {what}: {ours} vs {theirs}"
                );
            };
            assert_eq!(g.labelled as u64, want["labelled"].as_u64().unwrap());
            assert_eq!(g.unlabelled as u64, want["unlabelled"].as_u64().unwrap());
            assert_eq!(g.agreed as u64, want["agreed"].as_u64().unwrap());
            close(g.agreement.estimate, &want["agreement"][0], "agreement");
            close(g.agreement.lower, &want["agreement"][1], "agreement lower");
            close(g.agreement.upper, &want["agreement"][2], "agreement upper");
            close(g.chance_agreement, &want["chance_agreement"], "chance");
            let rho = g.rho.unwrap();
            close(rho.estimate, &want["rho"][0], "rho");
            close(rho.lower, &want["rho"][1], "rho lower");
            close(rho.upper, &want["rho"][2], "rho upper");
            close(
                g.labels_per_label.unwrap(),
                &want["labels_per_label"],
                "labels per label",
            );
            close(g.ceiling.unwrap(), &want["ceiling"], "ceiling");
            close(
                g.replaceable_share.unwrap(),
                &want["replaceable_share"],
                "share",
            );
        }
        // GPT-4 is worth running (ρ ≈ 0.34); SmolLM2 is not (ρ ≈ −0.04).
        assert!(gauge(files[0].1).worth_running);
        let smol = gauge(files[1].1);
        assert!(!smol.worth_running);
        assert!(smol
            .verdict
            .starts_with("not worth running: its labels do not rise"));
    }

    #[test]
    fn a_constant_judge_is_not_identified_and_an_anticorrelated_one_not_worth_running() {
        let constant = gauge("model_a,model_b,judge,human\nx,y,1,1\nx,y,1,0\nx,y,1,1\nx,y,1,\n");
        assert_eq!(constant.rho, None);
        assert_eq!(constant.ceiling, None);
        assert!(!constant.worth_running);
        assert!(constant.verdict.starts_with("not identified"));
        assert!(constant.warnings[0].contains("judge's labels are the same"));
        // A judge that says the opposite of the humans.
        let mut csv = String::from("model_a,model_b,judge,human\n");
        for k in 0..20 {
            csv.push_str(&format!("x,y,{},{}\n", k % 2, 1 - k % 2));
        }
        csv.push_str("x,y,1,\n");
        let opposite = gauge(&csv);
        assert_eq!(opposite.agreed, 0);
        assert_eq!(opposite.replaceable_share, Some(0.0));
        assert!(opposite
            .verdict
            .starts_with("not worth running: its labels do not rise"));
        assert!(opposite
            .warnings
            .iter()
            .any(|w| w.contains("less than chance")));
        // Every row labelled: no labels per label, said.
        let all =
            gauge("model_a,model_b,judge,human\nx,y,1,1\nx,y,0,0\nx,y,1,0\nx,y,0,1\nx,y,1,1\n");
        assert_eq!(all.labels_per_label, None);
        assert!(all
            .warnings
            .iter()
            .any(|w| w.contains("every row has a human label")));
        // One labelled row is refused.
        let one = JudgeValueParams::default()
            .fit("t.csv", b"model_a,model_b,judge,human\nx,y,1,1\nx,y,1,\n");
        assert!(matches!(one, Err(Error::Insufficient(_))));
        let bad = JudgeValueParams {
            worth_rho: 1.0,
            ..Default::default()
        };
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("worth_rho"));
    }
}
