//! A Bradley–Terry leaderboard: the fit of [`crate::bradley_terry`] joined with model names and
//! per-model counts, sorted by rating. This is the one serialisable result that the CLI prints
//! and the app renders, so both show the same numbers.

use crate::battles::Battles;
use crate::bradley_terry::{BradleyTerryParams, ELO_BASE, ELO_PER_THETA};
use crate::error::Result;
use crate::pairwise::Pairwise;
use serde::{Deserialize, Serialize};

/// One model's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingRow {
    /// 1 + the number of models with a strictly higher rating.
    pub rank: usize,
    pub model: String,
    pub theta: f64,
    pub elo: f64,
    pub battles: u64,
    /// Σ y over the model's battles (a tie counts ½).
    pub score: f64,
    pub ties: u64,
}

/// A fitted leaderboard with its settings and diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub statistic: String,
    pub source: String,
    pub settings: BradleyTerryParams,
    pub elo_scale: String,
    pub n_battles: usize,
    pub n_models: usize,
    pub n_ties: usize,
    pub iterations: usize,
    pub converged: bool,
    pub convergence: String,
    pub last_step: f64,
    pub max_abs_gradient: f64,
    pub log_likelihood: f64,
    /// Connected components of the comparison graph; ratings compare only within one.
    pub components: usize,
    pub warnings: Vec<String>,
    pub ratings: Vec<RatingRow>,
}

/// Fits Bradley–Terry on `battles` and builds the leaderboard.
///
/// # Errors
/// Those of [`BradleyTerryParams::fit`].
pub fn bradley_terry_leaderboard(
    source: &str,
    battles: &Battles,
    params: &BradleyTerryParams,
) -> Result<Leaderboard> {
    let m = battles.n_models();
    let data = Pairwise::from_battles(m, &battles.battles);
    let fit = params.fit(&data)?;
    let elo = fit.elo();

    let mut counts = vec![0u64; m];
    let mut ties = vec![0u64; m];
    let mut score = vec![0.0; m];
    for b in &battles.battles {
        counts[b.a] += 1;
        counts[b.b] += 1;
        score[b.a] += b.y;
        score[b.b] += 1.0 - b.y;
        if b.y == 0.5 {
            ties[b.a] += 1;
            ties[b.b] += 1;
        }
    }

    let components = data.components().into_iter().max().map_or(0, |c| c + 1);
    let mut warnings = Vec::new();
    if components > 1 {
        warnings.push(format!(
            "the comparison graph has {components} disconnected parts: ratings are comparable \
             only within a part (the L2 penalty sets each part's scale)"
        ));
    }
    if !fit.converged {
        warnings.push(format!(
            "not converged after {} iterations (last step {:e})",
            fit.iterations, fit.last_step
        ));
    }

    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| {
        elo[j]
            .total_cmp(&elo[i])
            .then_with(|| battles.models[i].cmp(&battles.models[j]))
    });
    let ratings = order
        .iter()
        .map(|&i| RatingRow {
            rank: 1 + elo.iter().filter(|&&e| e > elo[i]).count(),
            model: battles.models[i].clone(),
            theta: fit.theta[i],
            elo: elo[i],
            battles: counts[i],
            score: score[i],
            ties: ties[i],
        })
        .collect();

    Ok(Leaderboard {
        statistic: "bradley_terry".to_owned(),
        source: source.to_owned(),
        settings: *params,
        elo_scale: format!("elo = {ELO_BASE} + {ELO_PER_THETA} * theta"),
        n_battles: battles.battles.len(),
        n_models: m,
        n_ties: battles.n_ties(),
        iterations: fit.iterations,
        converged: fit.converged,
        convergence: "max |Newton step in theta| <= tol".to_owned(),
        last_step: fit.last_step,
        max_abs_gradient: fit.max_abs_gradient,
        log_likelihood: fit.log_likelihood,
        components,
        warnings,
        ratings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_with_counts() {
        let battles = Battles::from_named([
            ("b", "a", 1.0),
            ("b", "c", 0.5),
            ("a", "c", 1.0),
            ("b", "a", 1.0),
        ]);
        let lb = bradley_terry_leaderboard("t", &battles, &BradleyTerryParams::default()).unwrap();
        let names: Vec<&str> = lb.ratings.iter().map(|r| r.model.as_str()).collect();
        assert_eq!(names[0], "b");
        let b = &lb.ratings[0];
        assert_eq!((b.rank, b.battles, b.score, b.ties), (1, 3, 2.5, 1));
        assert_eq!(
            (lb.n_battles, lb.n_models, lb.n_ties, lb.components),
            (4, 3, 1, 1)
        );
        assert!(lb.warnings.is_empty());
    }

    #[test]
    fn disconnected_graph_warns_and_equal_ratings_share_rank() {
        let battles = Battles::from_named([("a", "b", 1.0), ("c", "d", 1.0)]);
        let lb = bradley_terry_leaderboard("t", &battles, &BradleyTerryParams::default()).unwrap();
        assert_eq!(lb.components, 2);
        assert!(lb.warnings[0].contains("2 disconnected parts"));
        let ranks: Vec<usize> = lb.ratings.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [1, 1, 3, 3]);
    }
}
