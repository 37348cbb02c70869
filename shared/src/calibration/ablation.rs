//! Ablations and training-size curves of a calibration (seed 000 §5: what a head gains from the
//! judge's score, from the rationale embedding, from part of the embedding, and from more
//! human labels).
//!
//! An ablation rewrites the calibration rows of both files the same way before fitting:
//!
//! ```text
//! no-score       the judge's signal becomes uninformative: LS score 0, MN p uniform, BTL p = ½,
//!                BTL2 and Plackett–Luce scores all 1 — a constant the intercept absorbs, so the
//!                head predicts from φ(e) alone (the "base judge" metrics of an ablated file
//!                are then those of that constant)
//! no-embedding   every embedding becomes the single coordinate 0 (a constant the scaler maps to
//!                0), so the head is a 1-D recalibration of the judge's signal
//! drop p         ⌊p·d⌋ embedding coordinates, drawn without replacement from a ChaCha8 stream
//!                seeded with `seed`, are removed from every row (at least one is kept)
//! ```
//!
//! A training-size curve fits the calibration on R random subsets of each size (rows drawn
//! without replacement from seed `seed + r`) and reports, per size, the mean and sd over the R
//! repeats of the head's and the base judge's test metric: MSE for LS, accuracy for the
//! classifying heads (MN, BTL, BTL2, Plackett–Luce top-1).
//!
//! Arguments: [`CalibrationData`], an [`Ablation`] or [`TrainingCurveParams`] with the
//! [`CalibrationParams`]. Returns: rewritten data, or a [`TrainingCurve`]. Errors:
//! [`Error::InvalidParam`] for a drop fraction outside [0, 1), no sizes, zero repeats or a size
//! above the training rows; the calibration's own errors (e.g. a size below the folds).

use crate::calibration::calibration_data::CalibrationData;
use crate::calibration::{Calibration, CalibrationParams};
use crate::io::error::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What an ablation removes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ablation", rename_all = "snake_case")]
pub enum Ablation {
    NoScore,
    NoEmbedding,
    DropFeatures { fraction: f64, seed: u64 },
}

impl std::str::FromStr for Ablation {
    type Err = String;

    /// `no-score`, `no-embedding` or `drop:F` (F a fraction; the seed 0 until the caller sets
    /// it).
    fn from_str(value: &str) -> std::result::Result<Self, String> {
        match value {
            "no-score" => Ok(Self::NoScore),
            "no-embedding" => Ok(Self::NoEmbedding),
            _ => value
                .strip_prefix("drop:")
                .and_then(|f| f.parse::<f64>().ok())
                .map(|fraction| Self::DropFeatures { fraction, seed: 0 })
                .ok_or_else(|| {
                    format!(
                        "expected `no-score`, `no-embedding` or `drop:F` with F a fraction, \
                         found `{value}`"
                    )
                }),
        }
    }
}

impl Ablation {
    /// The coordinates of a `d`-dimensional embedding that survive, ascending.
    fn kept(&self, d: usize) -> Result<Vec<usize>> {
        match *self {
            Self::DropFeatures { fraction, seed } => {
                if !(0.0..1.0).contains(&fraction) {
                    return Err(Error::param(
                        "fraction",
                        format!("expected a fraction of coordinates in [0, 1), found {fraction}"),
                    ));
                }
                let drop = ((fraction * d as f64).floor() as usize).min(d.saturating_sub(1));
                let mut order: Vec<usize> = (0..d).collect();
                order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
                let mut kept = order.split_off(drop);
                kept.sort_unstable();
                Ok(kept)
            }
            Self::NoScore | Self::NoEmbedding => Ok((0..d).collect()),
        }
    }

    /// The rows with this ablation applied.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a drop fraction outside [0, 1).
    pub fn apply(&self, data: &CalibrationData) -> Result<CalibrationData> {
        let kept = self.kept(data.dim())?;
        let embed = |rows: &[Vec<f64>]| -> Vec<Vec<f64>> {
            match self {
                Self::NoEmbedding => vec![vec![0.0]; rows.len()],
                _ => rows
                    .iter()
                    .map(|e| kept.iter().map(|&j| e[j]).collect())
                    .collect(),
            }
        };
        let no_score = matches!(self, Self::NoScore);
        let constant = |v: &[f64], c: f64| -> Vec<f64> {
            if no_score {
                vec![c; v.len()]
            } else {
                v.to_vec()
            }
        };
        Ok(match data {
            CalibrationData::Ls(d) => {
                let mut d = d.clone();
                d.embeddings = embed(&d.embeddings);
                d.scores = constant(&d.scores, 0.0);
                CalibrationData::Ls(d)
            }
            CalibrationData::Mn(d) => {
                let mut d = d.clone();
                d.embeddings = embed(&d.embeddings);
                if no_score {
                    let k = d.classes.len() as f64;
                    for p in &mut d.probabilities {
                        p.fill(1.0 / k);
                    }
                }
                CalibrationData::Mn(d)
            }
            CalibrationData::Btl(d) => {
                let mut d = d.clone();
                d.embeddings = embed(&d.embeddings);
                d.probabilities = constant(&d.probabilities, 0.5);
                CalibrationData::Btl(d)
            }
            CalibrationData::Btl2(d) => {
                let mut d = d.clone();
                d.first_embeddings = embed(&d.first_embeddings);
                d.second_embeddings = embed(&d.second_embeddings);
                d.first_scores = constant(&d.first_scores, 1.0);
                d.second_scores = constant(&d.second_scores, 1.0);
                CalibrationData::Btl2(d)
            }
            CalibrationData::PlackettLuce(d) => {
                let mut d = d.clone();
                for list in &mut d.lists {
                    list.embeddings = embed(&list.embeddings);
                    list.scores = constant(&list.scores, 1.0);
                }
                CalibrationData::PlackettLuce(d)
            }
        })
    }
}

/// Settings of a training-size curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TrainingCurveParams {
    /// Training-set sizes (rows; lists for Plackett–Luce), e.g. `100,200,500`: also fit on
    /// random training subsets of these sizes and report the test metric's mean and sd.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "train-sizes",
            id = "train_sizes",
            value_name = "SIZES",
            value_delimiter = ',',
            required = false,
            allow_hyphen_values = true
        )
    )]
    pub sizes: Vec<usize>,
    /// Random subsets per size.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            default_value_t = 5,
            requires = "train_sizes",
            allow_negative_numbers = true
        )
    )]
    pub repeats: usize,
    /// Subset r of every size is drawn with seed `seed + r`. Not an option of its own: a
    /// command's one `--seed` sets it.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub seed: u64,
}

/// One size of a training-size curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub size: usize,
    /// `mse` (LS) or `accuracy` (the classifying heads), on the test rows.
    pub metric: String,
    pub head_mean: f64,
    pub head_sd: f64,
    pub base_mean: f64,
    /// The head's metric in each repeat.
    pub head: Vec<f64>,
}

/// A training-size curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingCurve {
    pub settings: TrainingCurveParams,
    pub points: Vec<CurvePoint>,
}

/// The test metric a curve follows, for the head and the base judge.
fn metric(c: &Calibration) -> Option<(&'static str, f64, f64)> {
    match (&c.regression, &c.classification) {
        (_, Some(k)) => Some((
            "accuracy",
            k.accuracy.head.estimate,
            k.accuracy.base.estimate,
        )),
        (Some(r), None) => Some(("mse", r.mse.head.estimate, r.mse.base.estimate)),
        (None, None) => None,
    }
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

impl TrainingCurveParams {
    /// Fits `params` on random subsets of `train` of each size and scores each on `test`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(
        &self,
        params: &CalibrationParams,
        train: &CalibrationData,
        test: &CalibrationData,
    ) -> Result<TrainingCurve> {
        if self.sizes.is_empty() || self.repeats == 0 {
            return Err(Error::param(
                "sizes",
                "expected at least one training size and one repeat",
            ));
        }
        let n = train.len();
        let mut points = Vec::with_capacity(self.sizes.len());
        for &size in &self.sizes {
            if size > n {
                return Err(Error::param(
                    "sizes",
                    format!("a training size of {size} exceeds the {n} training rows"),
                ));
            }
            let mut head = Vec::with_capacity(self.repeats);
            let mut base = Vec::with_capacity(self.repeats);
            let mut name = "";
            for r in 0..self.repeats {
                let mut rows: Vec<usize> = (0..n).collect();
                rows.shuffle(&mut ChaCha8Rng::seed_from_u64(self.seed + r as u64));
                rows.truncate(size);
                let fitted = params.fit(&train.select(&rows), test)?;
                let (m, h, b) = metric(&fitted).ok_or_else(|| {
                    Error::Insufficient("the test rows give no metric to follow".to_owned())
                })?;
                name = m;
                head.push(h);
                base.push(b);
            }
            let (head_mean, head_sd) = mean_sd(&head);
            points.push(CurvePoint {
                size,
                metric: name.to_owned(),
                head_mean,
                head_sd,
                base_mean: mean_sd(&base).0,
                head,
            });
        }
        Ok(TrainingCurve {
            settings: self.clone(),
            points,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::ls_head::LsData;

    fn ls() -> CalibrationData {
        CalibrationData::Ls(LsData {
            embeddings: vec![vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0, 7.0, 8.0]],
            scores: vec![3.0, 4.0],
            labels: vec![2.0, 5.0],
        })
    }

    #[test]
    fn ablations_rewrite_the_rows() {
        let CalibrationData::Ls(d) = Ablation::NoScore.apply(&ls()).unwrap() else {
            panic!("ls")
        };
        assert_eq!((d.scores, d.embeddings.len()), (vec![0.0, 0.0], 2));
        let CalibrationData::Ls(d) = Ablation::NoEmbedding.apply(&ls()).unwrap() else {
            panic!("ls")
        };
        assert_eq!(d.embeddings, [vec![0.0], vec![0.0]]);
        assert_eq!(d.scores, [3.0, 4.0]);
        let drop = Ablation::DropFeatures {
            fraction: 0.5,
            seed: 9,
        };
        let CalibrationData::Ls(d) = drop.apply(&ls()).unwrap() else {
            panic!("ls")
        };
        // Two of four coordinates kept, the same ones in every row, in order.
        assert_eq!(d.embeddings[0].len(), 2);
        let kept: Vec<usize> = d.embeddings[0].iter().map(|&x| x as usize - 1).collect();
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            d.embeddings[1],
            kept.iter().map(|&j| 5.0 + j as f64).collect::<Vec<_>>()
        );
        assert_eq!(drop.apply(&ls()).unwrap(), drop.apply(&ls()).unwrap());
        let all_but_one = Ablation::DropFeatures {
            fraction: 0.99,
            seed: 1,
        };
        assert_eq!(all_but_one.apply(&ls()).unwrap().dim(), 1);
        assert!(Ablation::DropFeatures {
            fraction: 1.0,
            seed: 1
        }
        .apply(&ls())
        .is_err());
    }

    #[test]
    fn an_ablation_is_read_from_its_text_and_the_seeds_of_a_spec_follow_one_seed() {
        use crate::calibration::calibration_data::HeadKind;
        use crate::calibration::kinds::CalibrationSpec;
        use crate::calibration::CalibrationParams;
        assert_eq!("no-score".parse::<Ablation>(), Ok(Ablation::NoScore));
        assert_eq!(
            "no-embedding".parse::<Ablation>(),
            Ok(Ablation::NoEmbedding)
        );
        assert_eq!(
            "drop:0.25".parse::<Ablation>(),
            Ok(Ablation::DropFeatures {
                fraction: 0.25,
                seed: 0
            })
        );
        for bad in ["drop:x", "drop", "no_score", ""] {
            let err = bad.parse::<Ablation>().unwrap_err();
            assert!(err.contains(&format!("found `{bad}`")), "{err}");
        }
        let spec = CalibrationSpec {
            head: HeadKind::Ls,
            calibration: CalibrationParams::default(),
            ablation: Some("drop:0.5".parse().unwrap()),
            training_curve: Some(TrainingCurveParams {
                sizes: vec![10],
                repeats: 2,
                seed: 0,
            }),
        }
        .seeded(7);
        assert_eq!(spec.calibration.cv.seed, 7);
        assert_eq!(spec.calibration.bootstrap.seed, 7);
        assert_eq!(
            spec.ablation,
            Some(Ablation::DropFeatures {
                fraction: 0.5,
                seed: 7
            })
        );
        assert_eq!(spec.training_curve.map(|c| c.seed), Some(7));
    }
}
