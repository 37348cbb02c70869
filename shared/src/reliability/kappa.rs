//! Cohen's κ and weighted κ for two raters, with the confusion matrix and percent agreement.
//!
//! Model (seed 001, Part IV): κ = (P_o − P_e) / (1 − P_e), with P_o the observed agreement and
//! P_e the agreement expected by chance from the two raters' marginal distributions. With
//! disagreement weights w_ij over the ordered categories, the confusion matrix o_ij (counts of
//! items rater *a* put in category i and rater *b* in j, n items) and the chance matrix
//! e_ij = r_i c_j / n (row and column totals),
//!
//! ```text
//! κ_w = 1 − Σ w_ij o_ij / Σ w_ij e_ij
//! w_ij = [i ≠ j]                  (unweighted)
//! w_ij = |i − j| / (k − 1)        (linear)
//! w_ij = (i − j)² / (k − 1)²      (quadratic)
//! ```
//!
//! which equals (P_o − P_e) / (1 − P_e) with P_o = 1 − Σ w o / n and P_e = 1 − Σ w e / n
//! (unweighted: the guide's formula). Weights use category *positions* i, j (as scikit-learn's
//! `cohen_kappa_score`), so the category list matters: by default it holds the values either
//! rater used, ascending; [`KappaParams::categories`] fixes the full scale (e.g. 1–5 when no one
//! used 3).
//!
//! Arguments: two equally long slices of scores (numbers, or nominal category codes from
//! [`crate::reliability::ratings`]), paired by item. Returns: [`Kappa`]. The bootstrap
//! ([`KappaParams::bootstrap`]) resamples items with
//! [`crate::math::resample::replicates_by_kind`], an item's kind being its confusion cell (a
//! sufficient statistic), keeping the full-data categories, so a round costs O(n + k²); the κ
//! and percent-agreement intervals come from the same rounds.
//!
//! Degenerate input: when both raters use one and the same category for every item, P_e = 1
//! and κ is undefined: it is NaN and [`Kappa::warnings`] says why, naming that category (two
//! constant raters in different categories give κ = 0). This module knows scores only as
//! numbers; [`Kappa::warnings_with`] words the same warnings with the caller's names for them
//! (a nominal code's label). Errors: [`Error::InvalidParam`] for slices of different
//! lengths, non-finite scores, categories that are not strictly ascending or miss a score;
//! [`Error::Insufficient`] for no items.

use crate::io::error::{Error, Result};
use crate::math::resample::{percentile_interval, replicates_by_kind, BootstrapParams, Interval};
use serde::{Deserialize, Serialize};

/// Disagreement weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KappaWeights {
    /// Cohen's κ: every disagreement counts fully.
    #[default]
    Unweighted,
    /// Disagreement proportional to the distance between categories.
    Linear,
    /// Disagreement proportional to the squared distance.
    Quadratic,
}

/// Settings of Cohen's κ.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct KappaParams {
    pub weights: KappaWeights,
    /// The ordered categories (strictly ascending). `None`: the values either rater used.
    pub categories: Option<Vec<f64>>,
}

/// Cohen's κ of two raters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kappa {
    pub weights: KappaWeights,
    /// The categories, ascending; they index the confusion matrix.
    pub categories: Vec<f64>,
    /// `confusion[i][j]`: items rater *a* put in category i and rater *b* in category j.
    pub confusion: Vec<Vec<u64>>,
    pub n_items: usize,
    /// Share of items with identical scores (the confusion diagonal).
    pub percent_agreement: f64,
    /// P_o: 1 − the mean weighted disagreement (equal to `percent_agreement` unweighted).
    pub observed_agreement: f64,
    /// P_e: the agreement expected from the marginals alone.
    pub chance_agreement: f64,
    pub kappa: f64,
    pub warnings: Vec<String>,
}

impl Kappa {
    /// The warnings of this result, each score written by `score`: e.g. a nominal code as the
    /// label it stands for. [`Kappa::warnings`] holds them with `score` = the number.
    pub fn warnings_with(&self, score: &dyn Fn(f64) -> String) -> Vec<String> {
        warnings_of(&self.categories, &self.confusion, score)
    }
}

/// The category both raters gave every item, which leaves κ undefined (P_e = 1 under every
/// weighting), from a confusion matrix over `categories`; `None` otherwise.
pub fn constant_category(categories: &[f64], confusion: &[Vec<u64>]) -> Option<f64> {
    let n: u64 = confusion.iter().flatten().sum();
    let c = (0..confusion.len()).find(|&c| n > 0 && confusion[c].get(c) == Some(&n))?;
    categories.get(c).copied()
}

/// The warnings of κ on a confusion matrix over `categories`, scores written by `score` (see
/// [`Kappa::warnings_with`]).
pub fn warnings_of(
    categories: &[f64],
    confusion: &[Vec<u64>],
    score: &dyn Fn(f64) -> String,
) -> Vec<String> {
    constant_category(categories, confusion)
        .map(|c| {
            format!(
                "both raters gave every item the same score ({}): chance agreement is 1 and κ \
                 is undefined (NaN)",
                score(c)
            )
        })
        .into_iter()
        .collect()
}

/// κ with bootstrap intervals over items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KappaBootstrap {
    pub kappa: Kappa,
    pub kappa_interval: Interval,
    pub percent_agreement_interval: Interval,
    /// The bootstrap settings, seed included.
    pub bootstrap: BootstrapParams,
}

impl KappaParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        if let Some(categories) = &self.categories {
            if categories.is_empty() {
                return Err(Error::param(
                    "categories",
                    "expected at least one category, found none",
                ));
            }
            if categories.iter().any(|c| !c.is_finite()) {
                return Err(Error::param(
                    "categories",
                    "every category must be a finite number",
                ));
            }
            if categories.windows(2).any(|w| w[0] >= w[1]) {
                return Err(Error::param(
                    "categories",
                    format!("expected strictly ascending categories, found {categories:?}"),
                ));
            }
        }
        Ok(())
    }

    /// Cohen's κ of raters `a` and `b` (scores paired by item).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compute(&self, a: &[f64], b: &[f64]) -> Result<Kappa> {
        Ok(self.summarise(self.table(a, b)?))
    }

    fn summarise(&self, table: Table) -> Kappa {
        let k = table.categories.len();
        let mut counts = vec![0u64; k * k];
        for &cell in &table.cells {
            counts[cell] += 1;
        }
        let stats = kappa_from_counts(&counts, k, self.weights);
        let mut kappa = Kappa {
            weights: self.weights,
            confusion: counts.chunks(k).map(<[u64]>::to_vec).collect(),
            categories: table.categories,
            n_items: table.cells.len(),
            percent_agreement: stats.percent_agreement,
            observed_agreement: stats.observed_agreement,
            chance_agreement: stats.chance_agreement,
            kappa: stats.kappa,
            warnings: Vec::new(),
        };
        kappa.warnings = kappa.warnings_with(&|score| score.to_string());
        kappa
    }

    /// κ and percent agreement with percentile intervals from resampling items.
    ///
    /// # Errors
    /// Those of [`compute`](Self::compute), invalid bootstrap settings, and
    /// [`Error::Insufficient`] for fewer than 2 items.
    pub fn bootstrap(
        &self,
        a: &[f64],
        b: &[f64],
        boot: &BootstrapParams,
    ) -> Result<KappaBootstrap> {
        let table = self.table(a, b)?;
        let k = table.categories.len();
        // An item's kind is its confusion cell: a round counts its draws by cell. Both
        // intervals come from the same resamples (one seed).
        let cells: Vec<u32> = table.cells.iter().map(|&c| c as u32).collect();
        let kappa = self.summarise(table);
        let replicates = replicates_by_kind(&cells, k * k, boot, |counts| {
            let counts: Vec<u64> = counts.iter().map(|&c| u64::from(c)).collect();
            let r = kappa_from_counts(&counts, k, self.weights);
            (r.kappa, r.percent_agreement)
        })?;
        let (kappas, agreements): (Vec<f64>, Vec<f64>) = replicates.into_iter().unzip();
        let kappa_interval = percentile_interval(kappa.kappa, &kappas, boot.level);
        let percent_agreement_interval =
            percentile_interval(kappa.percent_agreement, &agreements, boot.level);
        Ok(KappaBootstrap {
            kappa,
            kappa_interval,
            percent_agreement_interval,
            bootstrap: *boot,
        })
    }

    /// Checks the data and codes each item by its confusion cell `i·k + j`.
    fn table(&self, a: &[f64], b: &[f64]) -> Result<Table> {
        self.validate()?;
        if a.len() != b.len() {
            return Err(Error::param(
                "b",
                format!(
                    "expected one score per item for each rater: rater a has {}, rater b has {}",
                    a.len(),
                    b.len()
                ),
            ));
        }
        if let Some(v) = a.iter().chain(b).find(|v| !v.is_finite()) {
            return Err(Error::param(
                "a",
                format!("every score must be a finite number, found {v}"),
            ));
        }
        if a.is_empty() {
            return Err(Error::Insufficient(
                "Cohen's κ needs at least one item scored by both raters, found none".into(),
            ));
        }
        let categories = match &self.categories {
            Some(c) => c.clone(),
            None => {
                let mut c: Vec<f64> = a.iter().chain(b).copied().collect();
                c.sort_by(f64::total_cmp);
                c.dedup();
                c
            }
        };
        let position = |v: f64| -> Result<usize> {
            categories
                .binary_search_by(|c| c.total_cmp(&v))
                .map_err(|_| {
                    Error::param(
                        "categories",
                        format!("the score {v} is not among the categories {categories:?}"),
                    )
                })
        };
        let k = categories.len();
        let cells = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| Ok(position(x)? * k + position(y)?))
            .collect::<Result<Vec<usize>>>()?;
        Ok(Table { categories, cells })
    }
}

struct Table {
    categories: Vec<f64>,
    cells: Vec<usize>,
}

/// The κ statistics of a k × k confusion matrix.
struct KappaStats {
    percent_agreement: f64,
    observed_agreement: f64,
    chance_agreement: f64,
    kappa: f64,
}

/// Disagreement weight of categories at positions `i` and `j` out of `k`, in [0, 1].
fn weight(weights: KappaWeights, i: usize, j: usize, k: usize) -> f64 {
    if i == j {
        return 0.0;
    }
    let d = i.abs_diff(j) as f64 / (k - 1) as f64;
    match weights {
        KappaWeights::Unweighted => 1.0,
        KappaWeights::Linear => d,
        KappaWeights::Quadratic => d * d,
    }
}

/// κ statistics from row-major k × k confusion counts.
fn kappa_from_counts(counts: &[u64], k: usize, weights: KappaWeights) -> KappaStats {
    let n: u64 = counts.iter().sum();
    let nf = n as f64;
    let mut rows = vec![0u64; k];
    let mut cols = vec![0u64; k];
    let mut diagonal = 0u64;
    for i in 0..k {
        for j in 0..k {
            let c = counts[i * k + j];
            rows[i] += c;
            cols[j] += c;
            if i == j {
                diagonal += c;
            }
        }
    }
    let (mut observed, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let w = weight(weights, i, j, k);
            observed += w * counts[i * k + j] as f64;
            expected += w * rows[i] as f64 * cols[j] as f64;
        }
    }
    let observed = observed / nf;
    let expected = expected / (nf * nf);
    KappaStats {
        percent_agreement: diagonal as f64 / nf,
        observed_agreement: 1.0 - observed,
        chance_agreement: 1.0 - expected,
        kappa: if expected > 0.0 {
            1.0 - observed / expected
        } else {
            f64::NAN
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_guide_example() {
        // Seed 001, Part IV: 40 pass/pass, 10 pass/fail, 5 fail/pass, 45 fail/fail → κ = 0.70.
        let mut a = Vec::new();
        let mut b = Vec::new();
        for (x, y, n) in [
            (1.0, 1.0, 40),
            (1.0, 0.0, 10),
            (0.0, 1.0, 5),
            (0.0, 0.0, 45),
        ] {
            a.extend(std::iter::repeat_n(x, n));
            b.extend(std::iter::repeat_n(y, n));
        }
        let k = KappaParams::default().compute(&a, &b).unwrap();
        assert!((k.kappa - 0.70).abs() < 1e-12, "{}", k.kappa);
        assert!((k.percent_agreement - 0.85).abs() < 1e-12);
        assert!((k.chance_agreement - 0.50).abs() < 1e-12);
        assert_eq!(k.categories, [0.0, 1.0]);
        assert_eq!(k.confusion, [vec![45, 5], vec![10, 40]]);
    }

    #[test]
    fn degenerate_raters() {
        let p = KappaParams::default();
        let same = p.compute(&[2.0, 2.0, 2.0], &[2.0, 2.0, 2.0]).unwrap();
        assert!(same.kappa.is_nan());
        assert_eq!(same.warnings.len(), 1);
        assert_eq!(same.percent_agreement, 1.0);
        let apart = p.compute(&[1.0, 1.0], &[2.0, 2.0]).unwrap();
        assert_eq!(apart.kappa, 0.0);
        assert!(apart.warnings.is_empty());
        assert!(matches!(p.compute(&[], &[]), Err(Error::Insufficient(_))));
        assert!(p.compute(&[1.0], &[1.0, 2.0]).is_err());
        assert!(p.compute(&[f64::NAN], &[1.0]).is_err());
        let scale = KappaParams {
            weights: KappaWeights::Linear,
            categories: Some(vec![1.0, 2.0, 3.0]),
        };
        assert!(scale.compute(&[1.0], &[4.0]).is_err());
        let unsorted = KappaParams {
            categories: Some(vec![2.0, 1.0]),
            ..Default::default()
        };
        assert!(unsorted.validate().is_err());
    }

    #[test]
    fn undefined_kappa_names_the_category_both_gave() {
        // On the full scale 0–2 both raters always gave 2: the warning names 2, not the
        // scale's first category.
        let p = KappaParams {
            categories: Some(vec![0.0, 1.0, 2.0]),
            ..Default::default()
        };
        let k = p.compute(&[2.0, 2.0], &[2.0, 2.0]).unwrap();
        assert!(k.kappa.is_nan());
        assert_eq!(
            k.warnings,
            [
                "both raters gave every item the same score (2): chance agreement is 1 and κ is \
              undefined (NaN)"
            ]
        );
        let labels = ["bad", "ok", "good"];
        let named = k.warnings_with(&|c| format!("`{}`", labels[c as usize]));
        assert!(named[0].starts_with("both raters gave every item the same score (`good`)"));
        assert_eq!(constant_category(&k.categories, &k.confusion), Some(2.0));
        let apart = p.compute(&[1.0, 1.0], &[2.0, 2.0]).unwrap();
        assert!(apart.warnings_with(&|c| c.to_string()).is_empty());
    }

    #[test]
    fn weighted_hand_case() {
        // Three items on a 3-point scale: (1,1), (1,2), (3,1). Linear weights 0, ½, 1.
        // Rows r = (2,0,1), columns c = (2,1,0). Σ w o = ½ + 1 = 1.5; Σ w r c / n with
        // products r_i c_j: (1,2)·½·2·1, (3,1)·1·1·2, (3,2)·½·1·1 = 1 + 2 + ½ = 3.5 → /3.
        let k = KappaParams {
            weights: KappaWeights::Linear,
            categories: None,
        }
        .compute(&[1.0, 1.0, 3.0], &[1.0, 2.0, 1.0])
        .unwrap();
        let want = 1.0 - (1.5 / 3.0) / (3.5 / 9.0);
        assert!((k.kappa - want).abs() < 1e-15, "{} vs {want}", k.kappa);
    }
}
