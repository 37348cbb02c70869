//! Anchoring a leaderboard: fixing one model's Elo.
//!
//! Model: the Bradley–Terry strengths θ are identified only up to a shift (the L2 penalty of
//! [`crate::rankings::bradley_terry`] centres them, so Elo = 1500 + (400 / ln 10)·θ puts the mean model at
//! 1500). Anchoring model a at Elo E reports instead
//!
//! ```text
//! Eloᵢ = E + (400 / ln 10) · (θᵢ − θₐ)
//! ```
//!
//! so every rating is a difference against the anchor, and so is its uncertainty: the anchor's
//! standard error is 0, model i's sandwich SE is that of θᵢ − θₐ (√(Vᵢᵢ + Vₐₐ − 2Vᵢₐ), from
//! [`crate::rankings::bt_standard_errors::Covariance::se_difference`]), and a bootstrap anchors every
//! replicate before taking percentiles (Eloᵢ* − Eloₐ* + E, [`Anchor::apply`]), as public
//! leaderboards do when they pin a reference model. Ratings from two fits anchored to the same
//! model and Elo are on one scale even when the rest of the field differs.
//!
//! Arguments: the anchor model's name and its Elo. Returns: the model's index among a fit's
//! models ([`Anchor::resolve`]) and anchored replicates. Errors: [`Error::InvalidParam`] for an
//! Elo that is not finite, a model the fit does not have, or a replicate of the wrong length.

use crate::io::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A model whose Elo is fixed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    pub model: String,
    pub elo: f64,
}

impl std::str::FromStr for Anchor {
    type Err = String;

    /// `MODEL=ELO`, e.g. `gpt-4=1200` (the model name may itself hold `=`: the last one splits).
    fn from_str(value: &str) -> std::result::Result<Self, String> {
        let (model, elo) = value
            .rsplit_once('=')
            .ok_or_else(|| format!("expected MODEL=ELO, found `{value}`"))?;
        let elo: f64 = elo
            .parse()
            .map_err(|_| format!("expected a number after `=` in `{value}`, found `{elo}`"))?;
        Ok(Self {
            model: model.to_owned(),
            elo,
        })
    }
}

impl Anchor {
    /// Checks the Elo is finite and finds the model among `models`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the models there are when the anchor is not one of them.
    pub fn resolve(&self, models: &[String]) -> Result<usize> {
        if !self.elo.is_finite() {
            return Err(Error::param(
                "anchor",
                format!(
                    "expected a finite Elo for `{}`, found {}",
                    self.model, self.elo
                ),
            ));
        }
        models.iter().position(|m| *m == self.model).ok_or_else(|| {
            Error::param(
                "anchor",
                format!(
                    "no model `{}` to anchor: expected one of {}",
                    self.model,
                    models.join(", ")
                ),
            )
        })
    }

    /// Shifts one set of Elo ratings (one per model, in `models` order, the anchor at
    /// `index`) so the anchor's equals [`Anchor::elo`].
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when `index` is out of range.
    pub fn apply(&self, index: usize, elo: &mut [f64]) -> Result<()> {
        let shift = self.elo
            - elo.get(index).ok_or_else(|| {
                Error::param(
                    "anchor",
                    format!("model index {index} out of range for {} ratings", elo.len()),
                )
            })?;
        for e in elo.iter_mut() {
            *e += shift;
        }
        // Exactly the anchor's Elo, not E + (x − x) with round-off.
        elo[index] = self.elo;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_every_rating_by_the_anchor_offset() {
        let anchor = Anchor {
            model: "b".into(),
            elo: 1000.0,
        };
        let models = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let index = anchor.resolve(&models).unwrap();
        assert_eq!(index, 1);
        let mut elo = [1600.0, 1450.5, 1449.5];
        anchor.apply(index, &mut elo).unwrap();
        assert_eq!(elo, [1149.5, 1000.0, 999.0]);
        assert!(anchor.apply(3, &mut elo).is_err());
    }

    #[test]
    fn unknown_models_and_non_finite_elo_are_rejected() {
        let models = ["a".to_owned(), "b".to_owned()];
        let err = Anchor {
            model: "z".into(),
            elo: 1.0,
        }
        .resolve(&models)
        .unwrap_err()
        .to_string();
        assert!(err.contains("`z`") && err.contains("a, b"), "{err}");
        assert!(Anchor {
            model: "a".into(),
            elo: f64::NAN
        }
        .resolve(&models)
        .is_err());
    }
}
