//! A Bradley–Terry leaderboard: the fit of [`crate::rankings::bradley_terry`] joined with model names,
//! per-model counts and sandwich standard errors, sorted by rating, optionally with bootstrap
//! intervals and CI-aware ranks ([`Leaderboard::with_bootstrap`]) and anchored to one model's
//! Elo ([`Leaderboard::anchored`], [`crate::rankings::anchor`]). This is the one serialisable result that
//! the CLI prints and the app renders, so both show the same numbers.

use crate::io::error::Result;
use crate::math::correlation::{kendall_tau_b, spearman, tie_rounding_differences};
use crate::math::resample::BootstrapParams;
use crate::rankings::anchor::Anchor;
use crate::rankings::battles::Battles;
use crate::rankings::bradley_terry::{BradleyTerryParams, ELO_BASE, ELO_PER_THETA};
use crate::rankings::bt_bootstrap::{BtBootstrap, Resampling};
use crate::rankings::bt_standard_errors::BtStandardErrorsParams;
use crate::rankings::pairwise::Pairwise;
use crate::rankings::separation::{separation, Side};
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
    /// Battles won outright (y = 1 for the model).
    pub wins: u64,
    /// Battles lost outright.
    pub losses: u64,
    pub ties: u64,
    /// Sandwich (robust) standard error of the Elo rating ([`crate::rankings::bt_standard_errors`]); of
    /// the difference to the anchor on an anchored leaderboard (0 for the anchor). `None` when
    /// the rating is not identified (`separation`): a curvature SE there measures λ, not data.
    pub se: Option<f64>,
    /// Where the data leave this rating unbounded ([`crate::rankings::separation`]); `None` when the
    /// data identify it. Its `elo` is then set by the penalty λ alone.
    pub separation: Option<Side>,
    /// The bootstrap interval, when the leaderboard has one ([`Leaderboard::with_bootstrap`]).
    pub bootstrap: Option<RowInterval>,
}

/// A row's bootstrap interval on the Elo scale and its CI-aware rank range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RowInterval {
    /// `None`: unbounded below (the model is separated, see [`RatingRow::separation`] and
    /// `separated_rounds`).
    pub lower: Option<f64>,
    /// `None`: unbounded above.
    pub upper: Option<f64>,
    /// Bootstrap rounds whose resample separated the model.
    pub separated_rounds: usize,
    /// Standard deviation of the bootstrap replicates.
    pub se: f64,
    /// 1 + #models whose lower bound exceeds this model's upper bound.
    pub rank: usize,
    /// The worst rank compatible with the intervals.
    pub worst_rank: usize,
}

/// How the bootstrap of a leaderboard was run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSummary {
    pub settings: BootstrapParams,
    pub resampling: Resampling,
    pub converged_rounds: usize,
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
    /// The model whose Elo is fixed, when the leaderboard is anchored.
    pub anchor: Option<Anchor>,
    /// The bootstrap behind the rows' intervals, when there is one.
    pub bootstrap: Option<BootstrapSummary>,
    pub ratings: Vec<RatingRow>,
}

impl Leaderboard {
    /// Adds a bootstrap's intervals and CI-aware ranks to the rows (matched by model name).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] when the bootstrap is of other models or anchored
    /// differently.
    pub fn with_bootstrap(mut self, bootstrap: &BtBootstrap) -> Result<Self> {
        if bootstrap.anchor != self.anchor {
            return Err(crate::Error::param(
                "bootstrap",
                format!(
                    "the bootstrap is anchored to {:?} but the leaderboard to {:?}: anchor both \
                     the same way",
                    bootstrap.anchor, self.anchor
                ),
            ));
        }
        let rounds = bootstrap.converged_rounds;
        for row in &mut self.ratings {
            let b = bootstrap
                .ratings
                .iter()
                .find(|b| b.model == row.model)
                .ok_or_else(|| {
                    crate::Error::param(
                        "bootstrap",
                        format!("the bootstrap has no model `{}`", row.model),
                    )
                })?;
            row.bootstrap = Some(RowInterval {
                lower: (!b.open_below).then_some(b.interval.lower),
                upper: (!b.open_above).then_some(b.interval.upper),
                separated_rounds: b.separated_rounds,
                se: b.interval.se,
                rank: b.rank,
                worst_rank: b.worst_rank,
            });
            if row.separation.is_none() && (b.open_above || b.open_below) {
                let side = match (b.open_above, b.open_below) {
                    (true, true) => "both ways",
                    (true, false) => "above",
                    _ => "below",
                };
                self.warnings.push(format!(
                    "`{}` is separated in {} of {rounds} bootstrap rounds (it won or lost every \
                     battle of the resample against the rest): its interval is unbounded {side}",
                    row.model, b.separated_rounds
                ));
            }
        }
        self.bootstrap = Some(BootstrapSummary {
            settings: bootstrap.settings.bootstrap,
            resampling: bootstrap.resampling,
            converged_rounds: bootstrap.converged_rounds,
        });
        Ok(self)
    }
}

impl Leaderboard {
    /// Fixes `anchor`'s Elo: every rating becomes `anchor.elo` + its difference to the anchor,
    /// and every standard error the sandwich SE of that difference ([`crate::rankings::anchor`]).
    /// `battles` must be those the leaderboard was fitted on. Add a bootstrap afterwards,
    /// anchored the same way ([`crate::rankings::bt_bootstrap::BtBootstrapPlan::anchored`]).
    ///
    /// # Errors
    /// [`crate::Error::InvalidParam`] for an unknown model or non-finite Elo, when the
    /// leaderboard already has a bootstrap, or when `battles` are not the leaderboard's.
    pub fn anchored(mut self, anchor: &Anchor, battles: &Battles) -> Result<Self> {
        if self.bootstrap.is_some() {
            return Err(crate::Error::param(
                "anchor",
                "anchor the leaderboard before adding its bootstrap",
            ));
        }
        let a = anchor.resolve(&battles.models)?;
        if battles.n_models() != self.n_models || battles.battles.len() != self.n_battles {
            return Err(crate::Error::param(
                "battles",
                format!(
                    "expected the leaderboard's {} battles of {} models, found {} of {}",
                    self.n_battles,
                    self.n_models,
                    battles.battles.len(),
                    battles.n_models()
                ),
            ));
        }
        let rows = self
            .ratings
            .iter()
            .map(|row| {
                battles
                    .models
                    .iter()
                    .position(|m| *m == row.model)
                    .ok_or_else(|| {
                        crate::Error::param(
                            "battles",
                            format!("the battles have no model `{}`", row.model),
                        )
                    })
            })
            .collect::<Result<Vec<usize>>>()?;
        let mut theta = vec![0.0; battles.n_models()];
        for (row, &i) in self.ratings.iter().zip(&rows) {
            theta[i] = row.theta;
        }
        let covariance = BtStandardErrorsParams { bt: self.settings }
            .compute_at(battles, &theta, None)?
            .sandwich;
        let anchor_identified = self
            .ratings
            .iter()
            .zip(&rows)
            .all(|(row, &i)| i != a || row.separation.is_none());
        for (row, &i) in self.ratings.iter_mut().zip(&rows) {
            row.elo = anchor.elo + ELO_PER_THETA * (row.theta - theta[a]);
            row.se = if i == a {
                Some(0.0)
            } else {
                (anchor_identified && row.separation.is_none())
                    .then(|| covariance.se_difference(i, a))
            };
        }
        self.elo_scale = format!(
            "elo = {} + {ELO_PER_THETA} * (theta - theta[{}])",
            anchor.elo, anchor.model
        );
        self.anchor = Some(anchor.clone());
        Ok(self)
    }
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
    let se = BtStandardErrorsParams { bt: *params }
        .compute_at(battles, &fit.theta, None)?
        .sandwich
        .se;
    let separated = separation(&data, &battles.models);

    let mut counts = vec![0u64; m];
    let mut ties = vec![0u64; m];
    let mut wins = vec![0u64; m];
    let mut losses = vec![0u64; m];
    let mut score = vec![0.0; m];
    for b in &battles.battles {
        counts[b.a] += 1;
        counts[b.b] += 1;
        score[b.a] += b.y;
        score[b.b] += 1.0 - b.y;
        if b.y == 0.5 {
            ties[b.a] += 1;
            ties[b.b] += 1;
        } else if b.y == 1.0 {
            wins[b.a] += 1;
            losses[b.b] += 1;
        } else if b.y == 0.0 {
            wins[b.b] += 1;
            losses[b.a] += 1;
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
            "not converged after {} iterations (last step {:e}, max |gradient| {:e})",
            fit.iterations, fit.last_step, fit.max_abs_gradient
        ));
    }

    for (i, side) in separated.iter().enumerate() {
        if let Some(side) = side {
            warnings.push(format!(
                "`{}` is separated (wins {}, losses {}, ties {} in {} battles): no finite \
                 rating fits its results against the others, so its Elo {:.1} is set by the \
                 penalty λ = {} alone; its rating is {}: no standard error, and its interval \
                 is open where it is unbounded",
                battles.models[i],
                wins[i],
                losses[i],
                ties[i],
                counts[i],
                elo[i],
                params.lambda,
                side.describe()
            ));
        }
    }

    // Ratings equal up to rounding share a rank and sort by name on every machine.
    let ranked = tie_rounding_differences(&elo);
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| {
        ranked[j]
            .total_cmp(&ranked[i])
            .then_with(|| battles.models[i].cmp(&battles.models[j]))
    });
    let ratings = order
        .iter()
        .map(|&i| RatingRow {
            rank: 1 + ranked.iter().filter(|&&e| e > ranked[i]).count(),
            model: battles.models[i].clone(),
            theta: fit.theta[i],
            elo: elo[i],
            battles: counts[i],
            score: score[i],
            wins: wins[i],
            losses: losses[i],
            ties: ties[i],
            se: separated[i].is_none().then_some(se[i]),
            separation: separated[i],
            bootstrap: None,
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
        convergence: "max |Newton step in theta| <= tol in the directions the data identify"
            .to_owned(),
        last_step: fit.last_step,
        max_abs_gradient: fit.max_abs_gradient,
        log_likelihood: fit.log_likelihood,
        components,
        warnings,
        anchor: None,
        bootstrap: None,
        ratings,
    })
}

/// One model's rating on two leaderboards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingDifference {
    pub model: String,
    pub reference_elo: f64,
    pub candidate_elo: f64,
    /// candidate − reference.
    pub difference: f64,
}

/// How a candidate leaderboard (a judge's) agrees with a reference one (humans').
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardComparison {
    pub n_common: usize,
    pub only_reference: Vec<String>,
    pub only_candidate: Vec<String>,
    /// Spearman ρ and Kendall τ-b of the common models' ratings (NaN when undefined).
    pub spearman: f64,
    pub kendall_tau_b: f64,
    /// Mean |candidate − reference| Elo over the common models.
    pub mae: f64,
    /// Common models in the reference's order.
    pub rows: Vec<RatingDifference>,
}

/// Compares two leaderboards on the models they share (matched by name).
///
/// # Errors
/// [`crate::Error::Insufficient`] when fewer than two models are common.
pub fn compare_leaderboards(
    reference: &Leaderboard,
    candidate: &Leaderboard,
) -> Result<LeaderboardComparison> {
    let by_name: std::collections::HashMap<&str, f64> = candidate
        .ratings
        .iter()
        .map(|r| (r.model.as_str(), r.elo))
        .collect();
    let rows: Vec<RatingDifference> = reference
        .ratings
        .iter()
        .filter_map(|r| {
            by_name.get(r.model.as_str()).map(|&c| RatingDifference {
                model: r.model.clone(),
                reference_elo: r.elo,
                candidate_elo: c,
                difference: c - r.elo,
            })
        })
        .collect();
    if rows.len() < 2 {
        return Err(crate::Error::Insufficient(format!(
            "the leaderboards share {} model(s): expected at least 2 to compare",
            rows.len()
        )));
    }
    let reference_names: std::collections::HashSet<&str> =
        reference.ratings.iter().map(|r| r.model.as_str()).collect();
    let x = tie_rounding_differences(&rows.iter().map(|r| r.reference_elo).collect::<Vec<_>>());
    let y = tie_rounding_differences(&rows.iter().map(|r| r.candidate_elo).collect::<Vec<_>>());
    Ok(LeaderboardComparison {
        n_common: rows.len(),
        only_reference: reference
            .ratings
            .iter()
            .filter(|r| !by_name.contains_key(r.model.as_str()))
            .map(|r| r.model.clone())
            .collect(),
        only_candidate: candidate
            .ratings
            .iter()
            .filter(|r| !reference_names.contains(r.model.as_str()))
            .map(|r| r.model.clone())
            .collect(),
        spearman: spearman(&x, &y)?,
        kendall_tau_b: kendall_tau_b(&x, &y)?,
        mae: rows.iter().map(|r| r.difference.abs()).sum::<f64>() / rows.len() as f64,
        rows,
    })
}

crate::analysis::warnings::own_warnings!(Leaderboard);

#[cfg(test)]
mod tests {
    #[test]
    fn comparison_of_two_hand_leaderboards() {
        let params = BradleyTerryParams::default();
        let human = Battles::from_named([
            ("a", "b", 1.0),
            ("b", "c", 1.0),
            ("a", "c", 1.0),
            ("c", "d", 1.0),
        ]);
        let judge = Battles::from_named([
            ("b", "a", 1.0),
            ("b", "c", 1.0),
            ("a", "c", 1.0),
            ("a", "e", 0.5),
        ]);
        let h = bradley_terry_leaderboard("h", &human, &params).unwrap();
        let j = bradley_terry_leaderboard("j", &judge, &params).unwrap();
        let c = compare_leaderboards(&h, &j).unwrap();
        assert_eq!(c.n_common, 3);
        assert_eq!(
            (c.only_reference.as_slice(), c.only_candidate.as_slice()),
            (&["d".to_owned()][..], &["e".to_owned()][..])
        );
        // Human order a > b > c; judge order b > a > c: one discordant pair of three.
        assert!((c.kendall_tau_b - 1.0 / 3.0).abs() < 1e-12);
        assert!((c.spearman - 0.5).abs() < 1e-12);
        let mae = c
            .rows
            .iter()
            .map(|r| (r.candidate_elo - r.reference_elo).abs())
            .sum::<f64>()
            / 3.0;
        assert_eq!(c.mae, mae);
        let lone = bradley_terry_leaderboard("x", &Battles::from_named([("x", "y", 1.0)]), &params)
            .unwrap();
        assert!(compare_leaderboards(&h, &lone).is_err());
    }

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
