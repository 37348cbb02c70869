//! Features of the calibration heads (seed 000 §4): the rationale embedding φ(e), standardised by
//! a scaler fitted on training rows only, concatenated with one base-judge signal, φ(e) ⊕ b.
//!
//! Standardisation: z_j = (φ_j − m_j) / s_j, with m_j and s_j the mean and population standard
//! deviation (ddof 0, as scikit-learn's `StandardScaler`) of coordinate j over the training
//! embeddings. A constant coordinate (variance within rounding of 0, the bound of
//! scikit-learn's `_is_constant_feature`: var ≤ n·ε·var + (n·ε·m)²) gets s_j = 1, so it maps to
//! 0. With `standardize` off the scaler is the identity (m = 0, s = 1).
//!
//! Only the embedding is standardised. The base signal enters in the judge's own units, so
//! θ = 0_d ⊕ 1, c = 0 reproduces the base judge exactly and costs γ·1 of penalty. The signal of
//! each head ([`BaseSignal`]) is the seed's:
//!
//! ```text
//! LS  (Eq. 1)      b
//! MN  (Eq. 2)      log p_s          per class s, p renormalised to sum 1
//! BTL (Eq. 3)      log(p / (1 − p))
//! BTL2 (§4.4)      logit(b₁/(b₁+b₂)) = log b₁ − log b₂
//! K-way (App. C.1) log b_k          (see `plackett_luce_head` for why log)
//! ```
//!
//! Probabilities are clamped to [floor, 1 − floor] before a log or logit, so a judge that puts
//! all its mass on one token still gives finite features.
//!
//! Arguments: raw embeddings as rows, base-judge scores or probabilities. Returns: the n × d
//! embedding matrix, a [`Scaler`] and the transformed base signal; the heads assemble them.
//!
//! Errors are located: an input's rows are reported as 1-based lines of a source named after the
//! argument (`embeddings`, `scores`, …), a coordinate as the column. A ragged embedding, a test
//! embedding whose dimension differs from the training one, a non-finite value and a list whose
//! length differs from the embeddings' are [`Error::Input`].

use crate::io::error::{Error, Location, Result};
use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// Default clamp of base-judge probabilities before a log or logit.
pub const DEFAULT_PROBABILITY_FLOOR: f64 = 1e-6;

/// Which base-judge signal is appended to the embedding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseSignal {
    /// The base judge's score b (LS).
    Score,
    /// log p_s of the class being scored (MN).
    LogProbability,
    /// logit p of the first response being preferred (BTL).
    Logit,
    /// log b₁ − log b₂ of two absolute scores (BTL2).
    ScoreLogRatio,
    /// log b_k of each listed response (K-way BTL2).
    LogScore,
}

/// What a head's features are; recorded with every fitted head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeatureSpec {
    /// Embedding dimension d (0 is allowed: the head then recalibrates the base signal alone).
    pub embedding_dim: usize,
    /// Whether embeddings are standardised with a [`Scaler`] fitted on the training rows.
    pub standardize: bool,
    pub base: BaseSignal,
    /// Probabilities are clamped to [floor, 1 − floor] before a log or logit.
    pub probability_floor: f64,
}

impl FeatureSpec {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        check_probability_floor(self.probability_floor)
    }
}

/// Checks a probability floor: it must lie in (0, 0.5).
pub fn check_probability_floor(floor: f64) -> Result<()> {
    if floor > 0.0 && floor < 0.5 {
        Ok(())
    } else {
        Err(Error::param(
            "probability_floor",
            format!("must be in (0, 0.5), found {floor}"),
        ))
    }
}

/// Per-coordinate affine standardisation z = (x − mean) / scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaler {
    pub mean: Vec<f64>,
    /// Standard deviations, with 1 for constant coordinates; always > 0.
    pub scale: Vec<f64>,
}

impl Scaler {
    /// The identity transform in `dim` coordinates.
    pub fn identity(dim: usize) -> Self {
        Self {
            mean: vec![0.0; dim],
            scale: vec![1.0; dim],
        }
    }

    /// Fits the scaler on the rows of `x` (training rows only), or the identity when
    /// `standardize` is off or `x` has no rows.
    pub fn fit(x: &Array2<f64>, standardize: bool) -> Self {
        Self::fit_blocks(&[x], standardize)
    }

    /// Fits the scaler on the rows of several blocks with the same columns taken together
    /// (both sides of a pair, every item of a list).
    pub fn fit_blocks(blocks: &[&Array2<f64>], standardize: bool) -> Self {
        let d = blocks.first().map_or(0, |x| x.ncols());
        let n: usize = blocks.iter().map(|x| x.nrows()).sum();
        if !standardize || n == 0 {
            return Self::identity(d);
        }
        let nf = n as f64;
        let mut mean = vec![0.0; d];
        for row in blocks.iter().flat_map(|x| x.rows()) {
            for (m, &xj) in mean.iter_mut().zip(row) {
                *m += xj;
            }
        }
        mean.iter_mut().for_each(|m| *m /= nf);
        let mut var = vec![0.0; d];
        for row in blocks.iter().flat_map(|x| x.rows()) {
            for ((v, &xj), &mj) in var.iter_mut().zip(row).zip(&mean) {
                *v += (xj - mj) * (xj - mj);
            }
        }
        let eps = f64::EPSILON;
        let scale = var
            .iter()
            .zip(&mean)
            .map(|(&v, &m)| {
                let v = v / nf;
                let constant = v <= nf * eps * v + (nf * eps * m).powi(2);
                if constant {
                    1.0
                } else {
                    v.sqrt()
                }
            })
            .collect();
        Self { mean, scale }
    }

    /// Number of coordinates.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// Standardises the rows of `x` in place.
    pub fn apply(&self, x: &mut Array2<f64>) {
        for mut row in x.rows_mut() {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.scale) {
                *v = (*v - m) / s;
            }
        }
    }

    /// Checks that the scaler has `dim` coordinates with finite means and positive scales.
    pub fn validate(&self, dim: usize) -> Result<()> {
        if self.mean.len() != dim || self.scale.len() != dim {
            return Err(Error::param(
                "scaler",
                format!(
                    "expected {dim} means and scales like the embedding dimension, found {} and {}",
                    self.mean.len(),
                    self.scale.len()
                ),
            ));
        }
        if self.mean.iter().any(|m| !m.is_finite())
            || self.scale.iter().any(|s| !(s.is_finite() && *s > 0.0))
        {
            return Err(Error::param(
                "scaler",
                "means must be finite and scales finite and > 0",
            ));
        }
        Ok(())
    }
}

/// Where an embedding dimension is expected from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// Fitting: every row must match the first row.
    FirstRow,
    /// Predicting: every row must match the training embeddings' dimension.
    Training(usize),
    /// Fitting a second input: every row must match another input's dimension (named).
    SameAs(usize, &'static str),
}

/// Stacks embeddings into an n × d matrix, checking that every row has the expected dimension
/// and only finite coordinates. With [`Dim::FirstRow`], d is the first row's length (0 for no
/// rows).
pub fn embedding_matrix(source: &str, rows: &[Vec<f64>], dim: Dim) -> Result<Array2<f64>> {
    let (d, like) = match dim {
        Dim::FirstRow => (rows.first().map_or(0, Vec::len), "the first embedding"),
        Dim::Training(d) => (d, "the training embeddings"),
        Dim::SameAs(d, like) => (d, like),
    };
    let mut x = Array2::zeros((rows.len(), d));
    for (i, (row, mut out)) in rows.iter().zip(x.rows_mut()).enumerate() {
        if row.len() != d {
            return Err(Error::input(
                Location::line(source, i as u64 + 1),
                format!(
                    "expected an embedding of {d} numbers like {like}, found {}",
                    row.len()
                ),
            ));
        }
        for (j, (&v, o)) in row.iter().zip(out.iter_mut()).enumerate() {
            if !v.is_finite() {
                return Err(Error::input(
                    coordinate(source, i, j),
                    format!("expected a finite number, found {v}"),
                ));
            }
            *o = v;
        }
    }
    Ok(x)
}

/// Checks that a per-row list has one entry per embedding.
pub fn check_length(source: &str, found: usize, expected: usize) -> Result<()> {
    if found == expected {
        return Ok(());
    }
    Err(Error::input(
        Location::line(source, found.min(expected) as u64 + 1),
        format!("expected one value per embedding ({expected}), found {found}"),
    ))
}

/// Base scores b, checked finite (LS).
pub fn scores(source: &str, b: &[f64]) -> Result<Vec<f64>> {
    for (i, &v) in b.iter().enumerate() {
        if !v.is_finite() {
            return Err(Error::input(
                Location::line(source, i as u64 + 1),
                format!("expected a finite score, found {v}"),
            ));
        }
    }
    Ok(b.to_vec())
}

/// log b of positive base scores (BTL2, K-way BTL2).
pub fn log_scores(source: &str, b: &[f64]) -> Result<Vec<f64>> {
    b.iter()
        .enumerate()
        .map(|(i, &v)| {
            if v > 0.0 && v.is_finite() {
                Ok(v.ln())
            } else {
                Err(Error::input(
                    Location::line(source, i as u64 + 1),
                    format!(
                        "expected a finite score > 0 (the base probability is a ratio of scores; \
                         shift the scale so that scores are positive), found {v}"
                    ),
                ))
            }
        })
        .collect()
}

/// logit p of probabilities in [0, 1], clamped to [floor, 1 − floor] (BTL).
pub fn logits(source: &str, p: &[f64], floor: f64) -> Result<Vec<f64>> {
    p.iter()
        .enumerate()
        .map(|(i, &v)| {
            if (0.0..=1.0).contains(&v) {
                let q = v.clamp(floor, 1.0 - floor);
                Ok((q / (1.0 - q)).ln())
            } else {
                Err(Error::input(
                    Location::line(source, i as u64 + 1),
                    format!("expected a probability in [0, 1], found {v}"),
                ))
            }
        })
        .collect()
}

/// log p_s for rows of class probabilities (MN): each row must have one value per class, all in
/// [0, 1] with a positive sum; values are clamped below at `floor` and renormalised to sum 1.
pub fn log_probabilities(
    source: &str,
    rows: &[Vec<f64>],
    classes: usize,
    floor: f64,
) -> Result<Array2<f64>> {
    let mut out = Array2::zeros((rows.len(), classes));
    for (i, (row, mut o)) in rows.iter().zip(out.rows_mut()).enumerate() {
        if row.len() != classes {
            return Err(Error::input(
                Location::line(source, i as u64 + 1),
                format!(
                    "expected {classes} probabilities, one per class, found {}",
                    row.len()
                ),
            ));
        }
        for (j, &v) in row.iter().enumerate() {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::input(
                    coordinate(source, i, j),
                    format!("expected a probability in [0, 1], found {v}"),
                ));
            }
        }
        let clamped: Vec<f64> = row.iter().map(|&v| v.max(floor)).collect();
        let total: f64 = clamped.iter().sum();
        for (o, v) in o.iter_mut().zip(clamped) {
            *o = (v / total).ln();
        }
    }
    Ok(out)
}

fn coordinate(source: &str, row: usize, column: usize) -> Location {
    Location {
        source: source.to_owned(),
        line: row as u64 + 1,
        column: Some(column + 1),
        field: None,
        byte: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn scaler_matches_population_standardisation_and_handles_constants() {
        let mut x = array![[1.0, 5.0, 0.3], [3.0, 5.0, 0.3], [5.0, 5.0, 0.3]];
        let s = Scaler::fit(&x, true);
        assert_eq!(&s.mean[..2], [3.0, 5.0]);
        // Population sd of (1, 3, 5) is √(8/3).
        assert!((s.scale[0] - (8.0f64 / 3.0).sqrt()).abs() < 1e-15);
        // 0.3 is not exact in binary, so its mean carries rounding: still constant.
        assert_eq!(&s.scale[1..], [1.0, 1.0]);
        s.apply(&mut x);
        assert!((x[[0, 0]] + 1.5f64.sqrt()).abs() < 1e-15);
        assert!(x
            .column(1)
            .iter()
            .chain(x.column(2))
            .all(|&v| v.abs() < 1e-15));
        assert_eq!(Scaler::fit(&x, false), Scaler::identity(3));
    }

    #[test]
    fn ragged_and_mismatched_embeddings_are_located() {
        let rows = vec![vec![1.0, 2.0], vec![1.0]];
        let err = embedding_matrix("embeddings", &rows, Dim::FirstRow).unwrap_err();
        assert_eq!(
            err.to_string(),
            "embeddings, line 2: expected an embedding of 2 numbers like the first embedding, \
             found 1"
        );
        let err = embedding_matrix("embeddings", &rows[..1], Dim::Training(3)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "embeddings, line 1: expected an embedding of 3 numbers like the training \
             embeddings, found 2"
        );
        let err =
            embedding_matrix("embeddings", &[vec![0.0, f64::NAN]], Dim::FirstRow).unwrap_err();
        assert_eq!(
            err.to_string(),
            "embeddings, line 1, column 2: expected a finite number, found NaN"
        );
        assert_eq!(
            check_length("labels", 2, 3).unwrap_err().to_string(),
            "labels, line 3: expected one value per embedding (3), found 2"
        );
    }

    #[test]
    fn base_signals_are_the_seed_transforms() {
        let l = logits("p", &[0.5, 0.8, 1.0], 1e-6).unwrap();
        assert_eq!(l[0], 0.0);
        assert!((l[1] - 4f64.ln()).abs() < 1e-15);
        assert!((l[2] - ((1.0 - 1e-6) / 1e-6f64).ln()).abs() < 1e-9);
        assert!(logits("p", &[1.5], 1e-6).is_err());
        let lp = log_probabilities("p", &[vec![0.2, 0.6, 0.0]], 3, 0.2).unwrap();
        // Clamped to (0.2, 0.6, 0.2), renormalised to (0.2, 0.6, 0.2).
        assert!((lp[[0, 1]] - 0.6f64.ln()).abs() < 1e-15);
        assert!((lp[[0, 2]] - 0.2f64.ln()).abs() < 1e-15);
        let err = log_probabilities("p", &[vec![0.5, 0.5]], 3, 1e-6).unwrap_err();
        assert_eq!(
            err.to_string(),
            "p, line 1: expected 3 probabilities, one per class, found 2"
        );
        let err = log_scores("b", &[2.0, 0.0]).unwrap_err();
        assert_eq!(err.location().map(|l| l.line), Some(2));
        assert!(scores("b", &[f64::INFINITY]).is_err());
        assert!(check_probability_floor(0.5).is_err());
    }
}
