//! Prediction-powered estimates from human labels drawn with known, unequal probabilities
//! (active inference: Zrnic & Candès 2024, with PPI++'s power tuning): every one of the N rows
//! has the judge's label f_i, and row i was sent to the humans with probability π_i > 0,
//! independently of the others (Poisson sampling, as [`super::label_plan`] draws it; a row
//! labelled before the draw has π_i = 1). With ξ_i = 1 for a labelled row and w_i = ξ_i / π_i,
//! each row contributes
//!
//! ψ_i(λ) = λ f_i + w_i (y_i − λ f_i)
//!
//! to the mean, θ̂ = mean(ψ), se² = Var₀(ψ)/N: the judge's label everywhere, corrected by each
//! human label weighted by the inverse of its chance of being drawn, so that labelling the rows
//! where the judge is least sure does not bias the estimate. The logistic (Bradley–Terry) fit
//! minimises the same weighted loss, Σ_i λ(1 − w_i) ℓ(f_i, x_iᵀθ) + w_i ℓ(y_i, x_iᵀθ) (a
//! [`WeightedLogistic`] with c_i = λ + w_i(1 − λ) ≥ 0), with covariance H⁻¹ Var₀(ψ) H⁻¹ / N,
//! ψ_i the rows' gradients and H = Σ c_i σ'(x_iᵀθ) x_i x_iᵀ / N the loss's Hessian.
//! λ is tuned to minimise the trace of that covariance (ψ = λA + B: λ = −tr(H⁻¹(C_AB + C_BA)H⁻¹)
//! / 2 tr(H⁻¹C_AA H⁻¹), clipped to [0, 1]) at the human labels' estimate (λ = 0) and once more
//! at the tuned one; where the loss of a λ has no minimum (a label drawn with a small π
//! weighs a target far outside [0, 1]), λ is halved until it has one. Beside it: the human labels alone (λ = 0, the
//! Horvitz–Thompson estimate) and the judge alone (no coverage guarantee).
//!
//! With every π_i = 1 for labelled rows the estimate is the exact mean over the labelled rows
//! plus the judge's mean over the others, corrected by nothing: π_i must be the probability the
//! row had *before* the draw, which the plan records in its `label_probability` column.
//!
//! Arguments: [`Drawn`] (the rows' judge labels, human labels and probabilities; for the fit,
//! the design rows), λ (`None`: tuned) and α. Returns: [`PpiMean`] or [`PpiLogistic`] with
//! `n` the human labels and `unlabelled` the other rows. Errors: [`Error::InvalidParam`] for
//! lengths that differ, α outside (0, 1), λ outside [0, 1], a probability outside (0, 1];
//! [`Error::Insufficient`] for fewer than two human labels or no unlabelled row, and (saying
//! "not identified") for a fit without a finite minimum.

use super::ppi_logistic::PpiLogistic;
use super::ppi_mean::{check_lambda, check_sample, two_sided_z, PpiMean};
use crate::io::error::{Error, Result};
use crate::math::linalg::spd_inverse;
use crate::math::logistic::sigmoid;
use crate::math::normal::Estimate;
use crate::math::weighted_logistic::{not_identified, Design, SparseRows, WeightedLogistic};
use ndarray::{Array1, Array2, Axis};

/// Rows whose human labels were drawn with known probabilities.
#[derive(Debug, Clone, Copy)]
pub struct Drawn<'a> {
    pub judge: &'a [f64],
    pub human: &'a [Option<f64>],
    pub probability: &'a [f64],
}

impl Drawn<'_> {
    /// Checks lengths, labels and probabilities; returns (labels, unlabelled rows).
    fn check(&self, what: &str) -> Result<(usize, usize)> {
        let n = self.judge.len();
        if self.human.len() != n || self.probability.len() != n {
            return Err(Error::param(
                "rows",
                "expected a judge label, a human cell and a probability for every row",
            ));
        }
        if let Some(p) = self.probability.iter().find(|p| !(**p > 0.0 && **p <= 1.0)) {
            return Err(Error::param(
                "label_probability",
                format!("expected probabilities in (0, 1], found {p}"),
            ));
        }
        let in_range = |v: &f64| (0.0..=1.0).contains(v);
        if !self.judge.iter().all(in_range) || !self.human.iter().flatten().all(in_range) {
            return Err(Error::param("labels", "expected labels in [0, 1]"));
        }
        let labels = self.human.iter().flatten().count();
        check_sample(labels, n - labels, what)?;
        Ok((labels, n - labels))
    }

    /// w_i = ξ_i / π_i and y_i (0 where not labelled).
    fn weights(&self) -> (Vec<f64>, Vec<f64>) {
        self.human
            .iter()
            .zip(self.probability)
            .map(|(h, p)| match h {
                Some(y) => (1.0 / p, *y),
                None => (0.0, 0.0),
            })
            .unzip()
    }
}

/// Column covariances (divided by the count) of rows `a` and `b`: C_ab.
fn cross_covariance(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let centre = |m: &Array2<f64>| match m.mean_axis(Axis(0)) {
        Some(mean) => m - &mean,
        None => m.clone(),
    };
    centre(a).t().dot(&centre(b)) / a.nrows() as f64
}

/// The λ ∈ [0, 1] that minimises tr(H⁻¹ Var(λA + B) H⁻¹); 0 when A does not vary.
fn tuned_lambda(a: &Array2<f64>, b: &Array2<f64>, inv_hessian: &Array2<f64>) -> f64 {
    let trace = |m: &Array2<f64>| inv_hessian.dot(m).dot(inv_hessian).diag().sum();
    let cab = cross_covariance(a, b);
    let lambda = -trace(&(&cab + &cab.t())) / (2.0 * trace(&cross_covariance(a, a)));
    if lambda.is_finite() {
        lambda.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The active prediction-powered mean.
///
/// # Errors
/// See the module documentation.
pub fn active_mean(drawn: Drawn, lambda: Option<f64>, alpha: f64) -> Result<PpiMean> {
    let z = two_sided_z(alpha)?;
    check_lambda(lambda)?;
    let (labels, unlabelled) = drawn.check("mean")?;
    let (w, y) = drawn.weights();
    let big_n = drawn.judge.len();
    let column = |v: Vec<f64>| Array2::from_shape_vec((big_n, 1), v);
    let a: Vec<f64> = (drawn.judge.iter().zip(&w))
        .map(|(f, w)| f * (1.0 - w))
        .collect();
    let b: Vec<f64> = w.iter().zip(&y).map(|(w, y)| w * y).collect();
    let lambda = match lambda {
        Some(l) => l,
        None => match (column(a.clone()), column(b.clone())) {
            (Ok(a), Ok(b)) => tuned_lambda(&a, &b, &Array2::eye(1)),
            _ => 0.0,
        },
    };
    let at = |l: f64| {
        let psi: Vec<f64> = a.iter().zip(&b).map(|(a, b)| l * a + b).collect();
        let mean = psi.iter().sum::<f64>() / big_n as f64;
        let var = psi.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / big_n as f64;
        Estimate::normal(mean, (var / big_n as f64).sqrt(), z)
    };
    let (ppi, human_only) = (at(lambda), at(0.0));
    let judge_mean = drawn.judge.iter().sum::<f64>() / big_n as f64;
    let judge_var = (drawn.judge.iter())
        .map(|f| (f - judge_mean).powi(2))
        .sum::<f64>()
        / big_n as f64;
    Ok(PpiMean {
        n: labels,
        unlabelled,
        lambda,
        ppi,
        human_only,
        judge_only: Estimate::normal(judge_mean, (judge_var / big_n as f64).sqrt(), z),
        effective_n: labels as f64 * (human_only.se / ppi.se).powi(2),
    })
}

/// The design rows with the draw's weights, for fits at any λ.
struct ActiveFit<'a> {
    rows: &'a SparseRows,
    d: usize,
    judge: &'a [f64],
    w: Vec<f64>,
    y: Vec<f64>,
}

/// An estimate with its covariance (÷ N already).
struct Fitted {
    theta: Array1<f64>,
    covariance: Array2<f64>,
}

impl ActiveFit<'_> {
    /// θ̂ of the loss with weights c_i on ℓ(·, x_iᵀθ) and targets t_i = b_i / c_i.
    fn solve(&self, c: Vec<f64>, b: Vec<f64>) -> Result<Array1<f64>> {
        WeightedLogistic {
            rows: self.rows,
            c,
            b,
            d: self.d,
            fit: crate::ppi::PPI_FIT,
        }
        .solve(None)
    }

    /// H⁻¹ at θ: the loss's own Hessian Σ c_i σ'(x_iᵀθ) x_i x_iᵀ / N, c_i = λ + w_i(1 − λ)
    /// (the judge-only fit: c_i = 1). At λ = 0 it reads the labelled rows alone, so a fit the
    /// human labels alone do not pin down is singular here, not given a narrow interval.
    fn inv_hessian(&self, theta: &Array1<f64>, lambda: f64) -> Result<Array2<f64>> {
        let big_n = self.judge.len() as f64;
        let curv: Vec<f64> = (self.rows.dot(theta).into_iter().zip(&self.w))
            .map(|(e, w)| {
                let s = sigmoid(e);
                (lambda + w * (1.0 - lambda)) * s * (1.0 - s)
            })
            .collect();
        spd_inverse(&(self.rows.gram(&curv, self.d) / big_n))
            .ok_or_else(|| not_identified(crate::ppi::PPI_FIT, "its Hessian is singular"))
    }

    /// The gradient parts A (times λ) and B of every row at θ.
    fn gradient_parts(&self, theta: &Array1<f64>) -> (Array2<f64>, Array2<f64>) {
        let s: Vec<f64> = self.rows.dot(theta).into_iter().map(sigmoid).collect();
        let a: Vec<f64> = (0..s.len())
            .map(|i| (s[i] - self.judge[i]) * (1.0 - self.w[i]))
            .collect();
        let b: Vec<f64> = (0..s.len())
            .map(|i| self.w[i] * (s[i] - self.y[i]))
            .collect();
        (self.rows.scaled(&a, self.d), self.rows.scaled(&b, self.d))
    }

    /// θ̂_λ of the active loss.
    fn theta(&self, lambda: f64) -> Result<Array1<f64>> {
        let big_n = self.judge.len() as f64;
        let c = self.w.iter().map(|w| (lambda + w * (1.0 - lambda)) / big_n);
        let b = (0..self.w.len())
            .map(|i| (lambda * self.judge[i] * (1.0 - self.w[i]) + self.w[i] * self.y[i]) / big_n);
        self.solve(c.collect(), b.collect())
    }

    /// θ̂_λ with its sandwich covariance.
    fn fit(&self, lambda: f64) -> Result<Fitted> {
        let theta = self.theta(lambda)?;
        let inv_h = self.inv_hessian(&theta, lambda)?;
        let (a, b) = self.gradient_parts(&theta);
        let psi = a * lambda + b;
        Ok(Fitted {
            covariance: inv_h.dot(&cross_covariance(&psi, &psi)).dot(&inv_h)
                / self.judge.len() as f64,
            theta,
        })
    }

    /// λ tuned at θ̂_λ.
    fn tuned_at(&self, lambda: f64) -> Result<f64> {
        let theta = self.theta(lambda)?;
        let inv_h = self.inv_hessian(&theta, lambda)?;
        let (a, b) = self.gradient_parts(&theta);
        Ok(tuned_lambda(&a, &b, &inv_h))
    }

    /// The tuned fit: λ tuned at the human labels' estimate (λ = 0: at λ = 1 a label drawn
    /// with a small π makes a target far outside [0, 1], and the loss can fall without end),
    /// then at the fit of that λ; where a λ's loss has no minimum, half of it, down to 0.
    fn tuned(&self) -> Result<(f64, Fitted)> {
        let first = self.tuned_at(0.0)?;
        let mut lambda = self.tuned_at(first).unwrap_or(first);
        loop {
            match self.fit(lambda) {
                Ok(fitted) => return Ok((lambda, fitted)),
                Err(e) if lambda < 1e-3 => return Err(e),
                Err(_) => lambda /= 2.0,
            }
        }
    }

    /// The judge's labels on every row as if they were the truth.
    fn judge_only(&self) -> Result<Fitted> {
        let big_n = self.judge.len() as f64;
        let c = vec![1.0 / big_n; self.judge.len()];
        let b = self.judge.iter().map(|f| f / big_n).collect();
        let theta = self.solve(c, b)?;
        let inv_h = self.inv_hessian(&theta, 1.0)?;
        let s: Vec<f64> = self.rows.dot(&theta).into_iter().map(sigmoid).collect();
        let r: Vec<f64> = s.iter().zip(self.judge).map(|(s, f)| s - f).collect();
        let psi = self.rows.scaled(&r, self.d);
        Ok(Fitted {
            covariance: inv_h.dot(&cross_covariance(&psi, &psi)).dot(&inv_h) / big_n,
            theta,
        })
    }
}

fn estimates(f: &Fitted, z: f64) -> Vec<Estimate> {
    f.theta
        .iter()
        .zip(f.covariance.diag())
        .map(|(&t, &v)| Estimate::normal(t, v.max(0.0).sqrt(), z))
        .collect()
}

fn rows_of(m: &Array2<f64>) -> Vec<Vec<f64>> {
    m.outer_iter().map(|r| r.to_vec()).collect()
}

/// The active prediction-powered logistic fit of design `x` (N × d).
///
/// # Errors
/// See the module documentation.
pub fn active_logistic(
    x: &Design,
    drawn: Drawn,
    lambda: Option<f64>,
    alpha: f64,
) -> Result<PpiLogistic> {
    let z = two_sided_z(alpha)?;
    check_lambda(lambda)?;
    let (labels, unlabelled) = drawn.check("fit")?;
    if x.len() != drawn.judge.len() || !x.is_consistent() {
        return Err(Error::param("rows", "expected one design row per label"));
    }
    let (w, y) = drawn.weights();
    let fit = ActiveFit {
        rows: &x.rows,
        d: x.columns,
        judge: drawn.judge,
        w,
        y,
    };
    let (lambda, ppi) = match lambda {
        Some(l) => (l, fit.fit(l)?),
        None => fit.tuned()?,
    };
    let mut notes = Vec::new();
    let mut beside = |result: Result<Fitted>, what: &str| match result {
        Ok(fitted) => Some(fitted),
        Err(e) => {
            notes.push(format!("{what}: {e}"));
            None
        }
    };
    let human_only = beside(fit.fit(0.0), "human labels only");
    let judge_only = beside(fit.judge_only(), "judge labels only");
    Ok(PpiLogistic {
        n: labels,
        unlabelled,
        lambda,
        ppi: estimates(&ppi, z),
        ppi_covariance: rows_of(&ppi.covariance),
        human_only_covariance: human_only.as_ref().map(|h| rows_of(&h.covariance)),
        human_only: human_only.as_ref().map(|h| estimates(h, z)),
        judge_only: judge_only.as_ref().map(|j| estimates(j, z)),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With every row labelled at π = 1 the active mean is the plain mean of the labels,
    /// whatever λ, and its se is the population one.
    #[test]
    fn all_labelled_rows_give_the_mean_of_the_labels() {
        let judge = [0.9, 0.2, 0.7, 0.4, 0.5];
        let human = [Some(1.0), Some(0.0), None, Some(1.0), None];
        let probability = [1.0, 1.0, 0.5, 1.0, 0.25];
        let drawn = Drawn {
            judge: &judge,
            human: &human,
            probability: &probability,
        };
        // λ = 1: ψ = f + w (y − f): rows 0,1,3 give y; rows 2,4 give f.
        let m = active_mean(drawn, Some(1.0), 0.05).unwrap();
        let psi = [1.0, 0.0, 0.7, 1.0, 0.5];
        let mean = psi.iter().sum::<f64>() / 5.0;
        assert!((m.ppi.estimate - mean).abs() < 1e-12);
        let var = psi.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / 5.0;
        assert!((m.ppi.se - (var / 5.0).sqrt()).abs() < 1e-12);
        // λ = 0: Horvitz–Thompson, unlabelled rows contribute 0.
        assert!((m.human_only.estimate - 2.0 / 5.0).abs() < 1e-12);
    }

    /// A label drawn at π = ½ counts twice.
    #[test]
    fn labels_are_weighted_by_the_inverse_probability() {
        let judge = [0.5, 0.5, 0.5, 0.5];
        let human = [Some(1.0), None, Some(0.0), None];
        let probability = [0.5, 0.5, 1.0, 1.0 / 3.0];
        let drawn = Drawn {
            judge: &judge,
            human: &human,
            probability: &probability,
        };
        let m = active_mean(drawn, Some(0.0), 0.05).unwrap();
        assert!((m.ppi.estimate - 2.0 / 4.0).abs() < 1e-12);
        let m = active_mean(drawn, Some(1.0), 0.05).unwrap();
        // ψ = 0.5 + w(y − 0.5): 0.5 + 2·0.5, 0.5, 0.5 − 0.5, 0.5.
        assert!((m.ppi.estimate - (1.5 + 0.5 + 0.0 + 0.5) / 4.0).abs() < 1e-12);
    }

    #[test]
    fn a_zero_probability_is_refused() {
        let drawn = Drawn {
            judge: &[0.5, 0.5, 0.5],
            human: &[Some(1.0), Some(0.0), None],
            probability: &[1.0, 1.0, 0.0],
        };
        let err = active_mean(drawn, None, 0.05).unwrap_err();
        assert!(err.to_string().contains("(0, 1]"), "{err}");
    }
}
