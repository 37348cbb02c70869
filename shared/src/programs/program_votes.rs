//! From programs' scores to votes (seed 004 §3.3, App. C): per-program min–max normalisation,
//! the quality difference d = ŝ(a) − ŝ(b) ∈ [−1, 1], a dead-zone threshold τ_j chosen on a
//! validation split, votes in {−1, 0, +1}, and the top-k committee.
//!
//! Model: program j votes +1 when d_ij > τ_j, −1 when d_ij < −τ_j, and abstains (0) otherwise,
//! or when either score is missing (a user program that threw or returned a non-number). The
//! minimum and maximum of the normalisation are those of the validation rows' scores (both
//! responses); later scores are clipped to [0, 1]; a program constant on validation always
//! abstains. τ_j maximises the validation accuracy over the pairs it covers (labelled `a`/`b`
//! pairs only; smallest τ on ties). Programs whose best validation accuracy is not above
//! `min_accuracy` (chance, ½) are dropped; of the rest the `top_k` most accurate form the
//! committee (all of them without `top_k`; the earlier program on ties).
//!
//! Arguments: the score matrix (pairs × programs × two responses), the validation rows and the
//! pairs' labels. Returns: a [`VoteModel`] with each program's bounds, τ, validation coverage
//! and accuracy, whether it was selected, and the committee's votes on any rows.
//!
//! Errors: [`Error::InvalidParam`] for an empty or out-of-range τ grid, `min_accuracy` outside
//! [0, 1) or `top_k` = 0; [`Error::Insufficient`] when the validation rows hold no `a`/`b`
//! label, or no program is above `min_accuracy`.

use crate::io::error::{Error, Result};
use crate::programs::label_model::VoteMatrix;
use crate::programs::program_pairs::Preference;
use serde::{Deserialize, Serialize};

/// Scores of pairs under programs: `scores[(i·programs + j)]` = [score of `a`, score of `b`],
/// NaN where program j gave no number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreMatrix {
    pub programs: Vec<String>,
    pub pairs: usize,
    pub scores: Vec<[f64; 2]>,
}

impl ScoreMatrix {
    /// The scores of pair `i` under program `j`.
    pub fn get(&self, i: usize, j: usize) -> [f64; 2] {
        self.scores[i * self.programs.len() + j]
    }

    /// Scores of the same pairs under `self`'s programs then `other`'s (e.g. the built-in
    /// library and the user's programs).
    ///
    /// # Errors
    /// [`Error::Insufficient`] when the two cover different numbers of pairs or share a program
    /// name.
    pub fn join(&self, other: &Self) -> Result<Self> {
        if self.pairs != other.pairs {
            return Err(Error::Insufficient(format!(
                "expected scores of the same {} pairs, found {}",
                self.pairs, other.pairs
            )));
        }
        if let Some(name) = other.programs.iter().find(|p| self.programs.contains(p)) {
            return Err(Error::Insufficient(format!(
                "two programs are named `{name}`: expected unique program names"
            )));
        }
        let (k1, k2) = (self.programs.len(), other.programs.len());
        let mut scores = Vec::with_capacity(self.pairs * (k1 + k2));
        for i in 0..self.pairs {
            scores.extend_from_slice(&self.scores[i * k1..(i + 1) * k1]);
            scores.extend_from_slice(&other.scores[i * k2..(i + 1) * k2]);
        }
        Ok(Self {
            programs: self
                .programs
                .iter()
                .chain(&other.programs)
                .cloned()
                .collect(),
            pairs: self.pairs,
            scores,
        })
    }
}

/// Settings of the vote model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct VoteParams {
    /// Candidate dead-zone thresholds, each in [0, 1) (comma-separated).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_delimiter = ',', default_values_t = VoteParams::default().taus, allow_hyphen_values = true)
    )]
    pub taus: Vec<f64>,
    /// A program is kept only when its validation accuracy is above this.
    #[cfg_attr(feature = "cli", arg(skip = VoteParams::default().min_accuracy))]
    pub min_accuracy: f64,
    /// Committee size; `None` keeps every program above `min_accuracy`.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub top_k: Option<usize>,
}

impl Default for VoteParams {
    /// τ ∈ {0.00, 0.01, …, 0.14} as in App. C; drop programs at or below chance; keep all.
    fn default() -> Self {
        Self {
            taus: (0..15).map(|t| f64::from(t) / 100.0).collect(),
            min_accuracy: 0.5,
            top_k: None,
        }
    }
}

/// One program's fitted threshold and validation record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramFit {
    pub name: String,
    pub min: f64,
    pub max: f64,
    pub tau: f64,
    /// Share of validation pairs on which it votes at τ.
    pub coverage: f64,
    /// Accuracy on the labelled (`a`/`b`) validation pairs it votes on, at τ.
    pub accuracy: f64,
    /// Labelled validation pairs it votes on, at τ.
    pub covered_labelled: usize,
    pub selected: bool,
}

impl ProgramFit {
    /// The program's vote on scores `s` (abstains on a missing score).
    pub fn vote(&self, s: [f64; 2]) -> i8 {
        let d = self.normalise(s[0]) - self.normalise(s[1]);
        if d > self.tau {
            1
        } else if d < -self.tau {
            -1
        } else {
            0
        }
    }

    fn normalise(&self, s: f64) -> f64 {
        if self.max > self.min {
            ((s - self.min) / (self.max - self.min)).clamp(0.0, 1.0)
        } else {
            0.5
        }
    }
}

/// Fitted thresholds of every program and the committee they select.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoteModel {
    pub params: VoteParams,
    /// Every program, in score-matrix order.
    pub programs: Vec<ProgramFit>,
    /// Indices (into `programs`) of the committee, most accurate first.
    pub committee: Vec<usize>,
}

impl VoteParams {
    fn validate(&self) -> Result<()> {
        if self.taus.is_empty() || self.taus.iter().any(|t| !(0.0..1.0).contains(t)) {
            return Err(Error::param(
                "taus",
                format!(
                    "expected one or more thresholds in [0, 1), found {:?}",
                    self.taus
                ),
            ));
        }
        if !(0.0..1.0).contains(&self.min_accuracy) {
            return Err(Error::param(
                "min_accuracy",
                format!("expected a share in [0, 1), found {}", self.min_accuracy),
            ));
        }
        if self.top_k == Some(0) {
            return Err(Error::param(
                "top_k",
                "expected at least 1 program, found 0",
            ));
        }
        Ok(())
    }

    /// Fits each program's normalisation and τ on `validation` rows of `scores`, whose labels
    /// are `labels[i]`, and selects the committee.
    pub fn fit(
        &self,
        scores: &ScoreMatrix,
        validation: &[usize],
        labels: &[Option<Preference>],
    ) -> Result<VoteModel> {
        self.validate()?;
        let truth: Vec<(usize, i8)> = validation
            .iter()
            .filter_map(|&i| match labels[i] {
                Some(Preference::A) => Some((i, 1)),
                Some(Preference::B) => Some((i, -1)),
                _ => None,
            })
            .collect();
        if truth.is_empty() {
            return Err(Error::Insufficient(
                "the validation pairs hold no `a` or `b` label to choose thresholds on".to_owned(),
            ));
        }
        let programs: Vec<ProgramFit> = (0..scores.programs.len())
            .map(|j| self.fit_program(scores, j, validation, &truth))
            .collect();
        let mut ranked: Vec<usize> = (0..programs.len())
            .filter(|&j| programs[j].accuracy > self.min_accuracy)
            .collect();
        ranked.sort_by(|&x, &y| programs[y].accuracy.total_cmp(&programs[x].accuracy));
        if let Some(k) = self.top_k {
            ranked.truncate(k);
        }
        if ranked.is_empty() {
            return Err(Error::Insufficient(format!(
                "no program is more accurate than {} on the validation pairs",
                self.min_accuracy
            )));
        }
        let mut programs = programs;
        for &j in &ranked {
            programs[j].selected = true;
        }
        Ok(VoteModel {
            params: self.clone(),
            programs,
            committee: ranked,
        })
    }

    fn fit_program(
        &self,
        scores: &ScoreMatrix,
        j: usize,
        validation: &[usize],
        truth: &[(usize, i8)],
    ) -> ProgramFit {
        let values = validation
            .iter()
            .flat_map(|&i| scores.get(i, j))
            .filter(|s| s.is_finite());
        let (min, max) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        let mut best: Option<ProgramFit> = None;
        for &tau in &self.taus {
            let fit = ProgramFit {
                name: scores.programs[j].clone(),
                min,
                max,
                tau,
                coverage: 0.0,
                accuracy: f64::NAN,
                covered_labelled: 0,
                selected: false,
            };
            let (mut covered, mut correct) = (0usize, 0usize);
            for &(i, y) in truth {
                let v = fit.vote(scores.get(i, j));
                if v != 0 {
                    covered += 1;
                    correct += usize::from(v == y);
                }
            }
            let voting = validation
                .iter()
                .filter(|&&i| fit.vote(scores.get(i, j)) != 0)
                .count();
            let fit = ProgramFit {
                coverage: voting as f64 / validation.len() as f64,
                accuracy: if covered > 0 {
                    correct as f64 / covered as f64
                } else {
                    f64::NAN
                },
                covered_labelled: covered,
                ..fit
            };
            let better = match &best {
                None => true,
                Some(b) => fit.accuracy > b.accuracy || (b.accuracy.is_nan() && covered > 0),
            };
            if better {
                best = Some(fit);
            }
        }
        best.unwrap_or_else(|| unreachable!("the τ grid is checked non-empty"))
    }
}

impl VoteModel {
    /// The committee's votes on `rows` of `scores` (programs in committee order).
    pub fn votes(&self, scores: &ScoreMatrix, rows: &[usize]) -> VoteMatrix {
        let k = self.committee.len();
        let mut votes = Vec::with_capacity(rows.len() * k);
        for &i in rows {
            for &j in &self.committee {
                votes.push(self.programs[j].vote(scores.get(i, j)));
            }
        }
        VoteMatrix {
            programs: self
                .committee
                .iter()
                .map(|&j| self.programs[j].name.clone())
                .collect(),
            items: rows.len(),
            votes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(scores: &[[f64; 2]]) -> ScoreMatrix {
        ScoreMatrix {
            programs: vec!["p".to_owned()],
            pairs: scores.len(),
            scores: scores.to_vec(),
        }
    }

    #[test]
    fn normalises_on_validation_and_picks_the_most_accurate_tau() {
        // Scores span [0, 10]: d = (s_a − s_b)/10. Labels: the pairs with |d| ≥ 0.1 are
        // right, the one with d = 0.04 is wrong: τ = 0 gives 3/4, τ = 0.05 gives 3/3.
        let scores = matrix(&[[10.0, 0.0], [3.0, 5.0], [4.0, 3.6], [2.0, 1.0]]);
        let labels = [
            Some(Preference::A),
            Some(Preference::B),
            Some(Preference::B),
            Some(Preference::A),
        ];
        let params = VoteParams {
            taus: vec![0.0, 0.05, 0.1],
            ..VoteParams::default()
        };
        let model = params.fit(&scores, &[0, 1, 2, 3], &labels).unwrap();
        let p = &model.programs[0];
        assert_eq!((p.min, p.max), (0.0, 10.0));
        assert_eq!(p.tau, 0.05, "the smallest τ reaching 3/3");
        assert_eq!(p.accuracy, 1.0);
        assert_eq!(p.coverage, 0.75);
        assert_eq!(p.covered_labelled, 3);
        let votes = model.votes(&scores, &[0, 1, 2, 3]);
        assert_eq!(votes.votes, [1, -1, 0, 1]);
        // Out-of-range and missing scores: clipped, and abstain.
        assert_eq!(p.vote([20.0, -5.0]), 1);
        assert_eq!(p.vote([f64::NAN, 1.0]), 0);
    }

    #[test]
    fn drops_programs_at_chance_and_keeps_the_top_k() {
        let scores = ScoreMatrix {
            programs: vec!["good".into(), "chance".into(), "better".into()],
            pairs: 4,
            // Rows are pairs; per pair the programs good, chance, better.
            scores: vec![
                [1.0, 0.0],
                [1.0, 0.0],
                [1.0, 0.0],
                [1.0, 0.0],
                [0.0, 1.0],
                [1.0, 0.0],
                [1.0, 0.0],
                [1.0, 0.0],
                [0.0, 1.0],
                [0.0, 1.0],
                [0.0, 1.0],
                [0.0, 1.0],
            ],
        };
        // Labels a, a, b, b: "good" 3/4, "chance" 2/4, "better" 4/4.
        let labels = [
            Some(Preference::A),
            Some(Preference::A),
            Some(Preference::B),
            Some(Preference::B),
        ];
        let rows = [0, 1, 2, 3];
        let model = VoteParams::default().fit(&scores, &rows, &labels).unwrap();
        assert_eq!(model.committee, [2, 0]);
        assert!(!model.programs[1].selected);
        let top1 = VoteParams {
            top_k: Some(1),
            ..VoteParams::default()
        };
        assert_eq!(top1.fit(&scores, &rows, &labels).unwrap().committee, [2]);
        let err = VoteParams::default()
            .fit(&scores, &rows, &[None, None, Some(Preference::Tie), None])
            .unwrap_err();
        assert!(matches!(err, Error::Insufficient(_)));
        let joined = matrix(&[[1.0, 2.0]]).join(&ScoreMatrix {
            programs: vec!["q".to_owned()],
            pairs: 1,
            scores: vec![[3.0, f64::NAN]],
        });
        let joined = joined.unwrap();
        assert_eq!(joined.programs, ["p", "q"]);
        assert_eq!(joined.get(0, 1)[0], 3.0);
        assert!(matrix(&[[1.0, 2.0]]).join(&matrix(&[[1.0, 2.0]])).is_err());
        let err = VoteParams {
            taus: vec![1.5],
            ..VoteParams::default()
        }
        .fit(&scores, &rows, &labels)
        .unwrap_err();
        assert!(err.to_string().starts_with("invalid setting `taus`"));
    }
}
