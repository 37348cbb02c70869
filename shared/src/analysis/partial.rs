//! [`Partial`]: what a range of a split run's parts computed (see [`super::split`]), the one
//! thing a kind's parts hand to its finish. It reads nothing of the registry, so the kinds and
//! the split both import it without a cycle.

use crate::io::error::{Error, Result};
use crate::rankings::bt_bootstrap::Replicate;
use serde::{Deserialize, Serialize};

/// What a range of parts computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Partial {
    /// Bradley–Terry bootstrap replicates, one per round, in round order.
    Replicates(Vec<Replicate>),
    /// Cross-validation folds' validation losses at every γ, one row per fold, in fold order.
    FoldLosses(Vec<Vec<f64>>),
}

impl Partial {
    /// The replicates of `parts`, joined in order.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a partial of another kind.
    pub fn replicates(parts: Vec<Self>) -> Result<Vec<Replicate>> {
        let mut all = Vec::new();
        for part in parts {
            match part {
                Self::Replicates(r) => all.extend(r),
                Self::FoldLosses(_) => return Err(wrong("bootstrap replicates")),
            }
        }
        Ok(all)
    }

    /// The fold losses of `parts`, joined in order.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a partial of another kind.
    pub fn fold_losses(parts: Vec<Self>) -> Result<Vec<Vec<f64>>> {
        let mut all = Vec::new();
        for part in parts {
            match part {
                Self::FoldLosses(l) => all.extend(l),
                Self::Replicates(_) => return Err(wrong("cross-validation fold losses")),
            }
        }
        Ok(all)
    }
}

fn wrong(expected: &str) -> Error {
    Error::param(
        "parts",
        format!("expected {expected}, found another kind of part"),
    )
}
