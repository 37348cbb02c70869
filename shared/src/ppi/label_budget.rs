//! A label budget from a pilot: how wide a mean's interval is expected to be with n human
//! labels, with the judge's labels (PPI++) and without them, and the n a target width needs.
//!
//! From the pilot's n₀ human labels `y` with the judge's labels `ŷ` on the same items, and the
//! judge's labels on all M items (labelled or not): σ²_y = Var(y), c = Cov(y, ŷ) and
//! σ²_ŷ = Var(judge labels over the M items). With n of the M items labelled by humans and
//! N = M − n left to the judge, PPI++'s best weight is λ(n) = c / ((1 + n/N) σ²_ŷ), clipped to
//! [0, 1], and
//!
//! se²_PPI(n) = (σ²_y − 2 λ c + λ² σ²_ŷ) / n + λ² σ²_ŷ / N,  se²_human(n) = σ²_y / n,
//!
//! the width 2 z₁₋α/₂ se. (The moments are the pilot's estimates: the plan is as good as the
//! pilot is large; at n = n₀ the human-only width is the pilot's own.)
//!
//! Arguments: the pilot (`y`, `ŷ` of the labelled items and the judge's labels of the others),
//! α, the numbers of labels to plan for, and a target width if any. Returns: [`LabelBudget`]:
//! per planned n the two widths, and the smallest n < M reaching the target with and without
//! the judge (`None` when no n < M does). Errors: those of [`super::ppi_mean::ppi_mean`] on the
//! pilot; [`Error::InvalidParam`] for a planned n outside [2, M − 1] or a target width ≤ 0.

use super::ppi_mean::two_sided_z;
use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The expected widths at one number of human labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlannedWidth {
    pub n: usize,
    pub lambda: f64,
    pub with_judge: f64,
    pub human_only: f64,
}

/// The plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelBudget {
    pub pilot_n: usize,
    /// Items the judge labelled (M).
    pub items: usize,
    pub widths: Vec<PlannedWidth>,
    pub target_width: Option<f64>,
    /// The smallest n reaching the target with the judge's labels.
    pub n_with_judge: Option<usize>,
    /// The same from human labels alone.
    pub n_human_only: Option<usize>,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The pilot's moments: σ²_y, c, σ²_ŷ, M.
struct Moments {
    var_y: f64,
    cov: f64,
    var_judge: f64,
    items: usize,
}

impl Moments {
    fn of(y: &[f64], yhat: &[f64], unlabelled: &[f64]) -> Self {
        let (my, mh) = (mean(y), mean(yhat));
        let n = y.len() as f64;
        let all: Vec<f64> = yhat.iter().chain(unlabelled).copied().collect();
        let ma = mean(&all);
        Self {
            var_y: y.iter().map(|v| (v - my).powi(2)).sum::<f64>() / n,
            cov: y
                .iter()
                .zip(yhat)
                .map(|(a, b)| (a - my) * (b - mh))
                .sum::<f64>()
                / n,
            var_judge: all.iter().map(|v| (v - ma).powi(2)).sum::<f64>() / all.len() as f64,
            items: all.len(),
        }
    }

    /// λ(n) and the two standard errors at n human labels.
    fn at(&self, n: usize) -> (f64, f64, f64) {
        let (nf, big_n) = (n as f64, (self.items - n) as f64);
        let lambda = (self.cov / ((1.0 + nf / big_n) * self.var_judge)).clamp(0.0, 1.0);
        let lambda = if lambda.is_nan() { 0.0 } else { lambda };
        let rectifier = self.var_y - 2.0 * lambda * self.cov + lambda * lambda * self.var_judge;
        let ppi = (rectifier / nf + lambda * lambda * self.var_judge / big_n).sqrt();
        (lambda, ppi, (self.var_y / nf).sqrt())
    }
}

/// The plan from the pilot `y`, `yhat`, `unlabelled`.
///
/// # Errors
/// See the module documentation.
pub fn label_budget(
    (y, yhat, unlabelled): (&[f64], &[f64], &[f64]),
    alpha: f64,
    planned: &[usize],
    target_width: Option<f64>,
) -> Result<LabelBudget> {
    // The pilot must support a PPI estimate itself.
    super::ppi_mean::ppi_mean(y, yhat, unlabelled, None, alpha)?;
    let z = two_sided_z(alpha)?;
    let moments = Moments::of(y, yhat, unlabelled);
    let items = moments.items;
    if let Some(&n) = planned.iter().find(|&&n| n < 2 || n >= items) {
        return Err(Error::param(
            "planned",
            format!(
                "expected numbers of human labels in [2, {}], found {n}",
                items - 1
            ),
        ));
    }
    if let Some(w) = target_width.filter(|w| w.is_nan() || *w <= 0.0) {
        return Err(Error::param(
            "target_width",
            format!("expected a width > 0, found {w}"),
        ));
    }
    let widths = planned
        .iter()
        .map(|&n| {
            let (lambda, ppi, human) = moments.at(n);
            PlannedWidth {
                n,
                lambda,
                with_judge: 2.0 * z * ppi,
                human_only: 2.0 * z * human,
            }
        })
        .collect();
    let smallest = |pick: fn((f64, f64, f64)) -> f64| {
        let w = target_width?;
        (2..items).find(|&n| 2.0 * z * pick(moments.at(n)) <= w)
    };
    Ok(LabelBudget {
        pilot_n: y.len(),
        items,
        widths,
        target_width,
        n_with_judge: smallest(|(_, ppi, _)| ppi),
        n_human_only: smallest(|(_, _, human)| human),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ppi::ppi_mean::ppi_mean;
    use crate::ppi::tests::biased_items as items;
    use rand::SeedableRng;

    #[test]
    fn the_plan_predicts_the_width_that_labelling_n_items_gives() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let items_total = 8000;
        // A pilot of 2,000 labels, so that its moments are close to the population's (the
        // plan is as good as its pilot; a 60-label pilot can be off by 15 %).
        let (y, yhat) = items(&mut rng, 2000);
        let (_, rest) = items(&mut rng, items_total - 2000);
        let plan = label_budget((&y, &yhat, &rest), 0.05, &[2000, 400], Some(0.08)).unwrap();
        // At the pilot's own n the human-only width is the pilot's.
        let pilot = ppi_mean(&y, &yhat, &rest, None, 0.05).unwrap();
        let z = two_sided_z(0.05).unwrap();
        assert!((plan.widths[0].human_only - 2.0 * z * pilot.human_only.se).abs() < 1e-12);
        // Labelling 400 items for real (200 repetitions): the mean width is the planned one
        // within 5 %, and the judge's labels narrow it. (With the population's moments the
        // formula gives 0.0932 with the judge and 0.0980 without.)
        let mut realised = (0.0, 0.0);
        for _ in 0..200 {
            let (y, yhat) = items(&mut rng, 400);
            let (_, rest) = items(&mut rng, items_total - 400);
            let fit = ppi_mean(&y, &yhat, &rest, None, 0.05).unwrap();
            realised.0 += 2.0 * z * fit.ppi.se / 200.0;
            realised.1 += 2.0 * z * fit.human_only.se / 200.0;
        }
        let planned = plan.widths[1];
        assert!(
            (planned.with_judge / realised.0 - 1.0).abs() < 0.1,
            "{planned:?} {realised:?}"
        );
        assert!(
            (planned.human_only / realised.1 - 1.0).abs() < 0.1,
            "{planned:?} {realised:?}"
        );
        assert!(planned.with_judge < planned.human_only);
        // The target is reached with fewer labels when the judge's labels count.
        let (with, without) = (plan.n_with_judge.unwrap(), plan.n_human_only.unwrap());
        assert!(with < without, "{with} vs {without}");
        assert!(label_budget((&y, &yhat, &rest), 0.05, &[1], None).is_err());
        assert!(label_budget((&y, &yhat, &rest), 0.05, &[10], Some(0.0)).is_err());
    }
}
