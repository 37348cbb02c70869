//! The comparison report: which system is better, by how much, where, and how sure (seed 001's
//! report: per-criterion pass rates per system, System A vs System B with intervals, results
//! sliced with Holm/BH correction).
//!
//! Model: per criterion, the item score ȳ_{s,i} (the mean over epochs) of each system s on
//! each item i; each system's mean with its interval ([`system_scores`]); for each pair — every
//! pair of systems, or each system against the `baseline` — the paired difference on the items
//! both have ([`paired_difference`]) with Holm's and Benjamini–Hochberg's adjustments across
//! every pair and criterion; a seeded paired bootstrap ([`bootstrap_intervals`]) when rounds
//! are asked for; slice tables ([`slice_table`]); and with human labels the judge-corrected
//! scores and differences ([`judge_correction`]). The reading says the headline in one
//! sentence, including the slice that reverses it when one does.
//!
//! Arguments: [`CompareParams`] and the scores file's name and bytes. Returns:
//! [`Comparison`]. Errors: [`Error::InvalidParam`] for α or power outside (0, 1), a target
//! difference that is not > 0, one bootstrap round, or a baseline that is not a system of the
//! file; the scores file's located errors ([`TableParams::parse`]). What the data cannot
//! identify (one item, one cluster, no shared items, a judge no better than chance) is NaN
//! (`null`) with a warning naming it.

use super::gold_join::{join_gold, GoldJoin};
use super::judge_correction::{judge_correction, ppi_of, JudgeCorrection};
use super::paired_differences::{paired_difference, PairSettings, PairedDifference};
use super::score_bootstrap::{bootstrap_intervals, CriterionDraws};
use super::score_grid::ScoreGrid;
use super::score_slices::{adjust, slice_table, SliceTable};
use super::score_table::{ScoreTable, TableParams};
use super::system_scores::{system_scores, SystemScore};
use crate::io::checks::{in_open_unit, positive};
use crate::io::error::{Error, Result};
use crate::io::readable::p_text;
use crate::math::resample::BootstrapParams;
use serde::{Deserialize, Serialize};

/// Settings of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct CompareParams {
    /// Column names, slice columns and the length column.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub table: TableParams,
    /// Compare each system with this one (default: every pair).
    #[cfg_attr(feature = "cli", arg(long))]
    pub baseline: Option<String>,
    /// Error level of the intervals and tests (coverage 1 − α).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CompareParams::default().alpha, allow_negative_numbers = true)
    )]
    pub alpha: f64,
    /// Power at which each pair's minimum detectable difference is given.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CompareParams::default().power, allow_negative_numbers = true)
    )]
    pub power: f64,
    /// A difference worth detecting (score units; 0.05 = 5 points of pass rate): each pair
    /// says how many items it needs.
    #[cfg_attr(feature = "cli", arg(long, allow_negative_numbers = true))]
    pub target_difference: Option<f64>,
    /// Rounds of the paired bootstrap (0: none).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CompareParams::default().bootstrap_rounds)
    )]
    pub bootstrap_rounds: usize,
    /// Seed of the bootstrap (recorded in the report's settings).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = CompareParams::default().seed))]
    pub seed: u64,
}

impl Default for CompareParams {
    fn default() -> Self {
        Self {
            table: TableParams::default(),
            baseline: None,
            alpha: 0.05,
            power: 0.8,
            target_difference: None,
            bootstrap_rounds: 1000,
            seed: 0,
        }
    }
}

/// The comparison of systems on pointwise scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub source: String,
    pub settings: CompareParams,
    /// Scores read, and rows left out for an empty score.
    pub n_scores: usize,
    pub empty_scores: usize,
    pub n_items: usize,
    pub systems: Vec<String>,
    pub criteria: Vec<String>,
    /// Per criterion: whether its scores are pass/fail.
    pub binary: Vec<bool>,
    /// Items are grouped by the cluster column into this many clusters.
    pub clusters: Option<usize>,
    /// Per criterion, per system.
    pub scores: Vec<SystemScore>,
    /// Per criterion, per pair (B − A).
    pub differences: Vec<PairedDifference>,
    pub slices: Vec<SliceTable>,
    /// Per criterion with human labels.
    pub judge_corrected: Vec<JudgeCorrection>,
    /// The gold file's join, when the labels came in a file of their own.
    #[serde(default)]
    pub gold: Option<GoldJoin>,
    /// The headline in one sentence.
    pub reading: String,
    pub warnings: Vec<String>,
}

impl CompareParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn validate(&self) -> Result<()> {
        for (name, value) in [("alpha", self.alpha), ("power", self.power)] {
            in_open_unit(name, value)?;
        }
        if let Some(target) = self.target_difference {
            positive("target_difference", target)?;
        }
        if self.bootstrap_rounds == 1 {
            return Err(Error::param(
                "bootstrap_rounds",
                "expected 0 (no bootstrap) or at least 2 rounds, found 1",
            ));
        }
        Ok(())
    }

    /// Compares the systems of the scores file `source` (`bytes`).
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, source: &str, bytes: &[u8]) -> Result<Comparison> {
        self.fit_with_gold(source, bytes, None)
    }

    /// Compares the systems of the scores file `source` (`bytes`), with the human labels of a
    /// gold file (name, bytes) joined on item, system and criterion
    /// ([`super::gold_join`]).
    ///
    /// # Errors
    /// See the module documentation and [`super::gold_join`].
    pub fn fit_with_gold(
        &self,
        source: &str,
        bytes: &[u8],
        gold: Option<(&str, &[u8])>,
    ) -> Result<Comparison> {
        self.validate()?;
        let mut table = self.table.parse(source, bytes)?;
        let join = gold
            .map(|(name, gold)| join_gold(&mut table, &self.table.columns, name, gold))
            .transpose()?;
        let mut comparison = self.compare(&table)?;
        if let Some(join) = join {
            if join.unmatched > 0 {
                comparison.warnings.push(format!(
                    "{} of the gold file's {} labels name an answer the scores file does not \
                     have (another item, system or criterion): they are left out",
                    join.unmatched, join.rows
                ));
            }
            comparison.gold = Some(join);
        }
        Ok(comparison)
    }

    /// The pairs to difference: (baseline, other) for each other system, or every (A, B) with A
    /// before B.
    fn pairs(&self, table: &ScoreTable) -> Result<Vec<(usize, usize)>> {
        let n = table.systems.len();
        match &self.baseline {
            Some(name) => {
                let base = table
                    .systems
                    .iter()
                    .position(|s| s == name)
                    .ok_or_else(|| {
                        Error::param(
                            "baseline",
                            format!(
                                "`{name}` is not a system of the file; its systems are {}",
                                table.systems.join(", ")
                            ),
                        )
                    })?;
                Ok((0..n).filter(|&s| s != base).map(|s| (base, s)).collect())
            }
            None => Ok((0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect()),
        }
    }

    /// Compares the systems of a parsed table.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn compare(&self, table: &ScoreTable) -> Result<Comparison> {
        let pairs = self.pairs(table)?;
        let mut warnings = Vec::new();
        for name in &table.criteria_without_scores {
            warnings.push(format!(
                "criterion `{name}` has no scores (every row's score is empty): it is left out"
            ));
        }
        if table.empty_scores > 0 {
            warnings.push(format!(
                "{} rows with an empty score were left out",
                table.empty_scores
            ));
        }
        if pairs.is_empty() {
            warnings.push(format!(
                "the file has one system (`{}`): there is nothing to compare it with",
                table.systems.join("")
            ));
        }
        let clusters = table
            .cluster_of_item
            .as_ref()
            .map(|_| table.cluster_names.len());
        if clusters == Some(1) {
            warnings.push(
                "every item is in one cluster: a clustered interval needs at least two clusters, \
                 so none is given"
                    .to_owned(),
            );
        }
        let grids: Vec<ScoreGrid> = (0..table.criteria.len())
            .map(|c| ScoreGrid::of(table, c))
            .collect();
        let settings = PairSettings {
            alpha: self.alpha,
            power: self.power,
            target: self.target_difference,
            cluster_of_item: table.cluster_of_item.as_deref(),
        };
        let mut scores: Vec<SystemScore> = Vec::new();
        let mut differences: Vec<PairedDifference> = Vec::new();
        let mut per_criterion_scores: Vec<usize> = Vec::new();
        for (c, grid) in grids.iter().enumerate() {
            let these = system_scores(table, grid, c, self.alpha);
            per_criterion_scores.push(these.len());
            for s in &these {
                if s.n_items == 1 && !grid.binary {
                    warnings.push(format!(
                        "criterion `{}`: `{}` has one item: its interval is not identified",
                        s.criterion, s.system
                    ));
                }
            }
            scores.extend(these);
            let has_human = grid.has_human();
            for &(a, b) in &pairs {
                let mut d = paired_difference(
                    grid,
                    (a, b),
                    (&table.criteria[c], &table.systems),
                    &settings,
                );
                if d.n_shared == 0 {
                    warnings.push(format!(
                        "criterion `{}`: `{}` and `{}` share no item, so they are not compared",
                        d.criterion, d.a, d.b
                    ));
                } else if d.only_a + d.only_b > 0 {
                    warnings.push(format!(
                        "criterion `{}`: `{}` and `{}` are compared on the {} items both have; {} \
                         items only `{}` has and {} only `{}` has are not in their difference",
                        d.criterion, d.a, d.b, d.n_shared, d.only_a, d.a, d.only_b, d.b
                    ));
                }
                if has_human {
                    let row = |s: usize| grid.row(s);
                    let human = |s: usize| grid.human_row(s);
                    let diff: Vec<f64> = row(b).iter().zip(row(a)).map(|(y, x)| y - x).collect();
                    let human_diff: Vec<f64> =
                        human(b).iter().zip(human(a)).map(|(y, x)| y - x).collect();
                    d.judge_corrected = ppi_of(&diff, &human_diff, self.alpha).ok();
                }
                differences.push(d);
            }
        }
        let (holm, bh) = adjust(
            &differences
                .iter()
                .map(|d| d.tested_p_value)
                .collect::<Vec<_>>(),
        )?;
        for (d, (h, q)) in differences.iter_mut().zip(holm.into_iter().zip(bh)) {
            d.holm = h;
            d.bh = q;
        }
        if self.bootstrap_rounds > 0 {
            let criteria: Vec<CriterionDraws> = grids
                .iter()
                .map(|grid| CriterionDraws {
                    grid,
                    pairs: &pairs,
                })
                .collect();
            let params = BootstrapParams {
                rounds: self.bootstrap_rounds,
                seed: self.seed,
                level: 1.0 - self.alpha,
            };
            let intervals = bootstrap_intervals(
                &criteria,
                table.items.len(),
                table.cluster_of_item.as_deref(),
                &params,
            );
            let mut next = 0;
            for (c, per_system) in intervals.systems.into_iter().enumerate() {
                let kept = per_system.into_iter().flatten();
                for interval in kept.take(per_criterion_scores[c]) {
                    scores[next].bootstrap = Some(interval);
                    next += 1;
                }
            }
            for (d, interval) in differences
                .iter_mut()
                .zip(intervals.pairs.into_iter().flatten())
            {
                d.bootstrap = Some(interval);
            }
        }
        let slices = table
            .slices
            .iter()
            .map(|column| slice_table(table, column, &grids, &pairs, &differences, &settings))
            .collect::<Result<Vec<_>>>()?;
        let judge_corrected: Vec<JudgeCorrection> = grids
            .iter()
            .enumerate()
            .filter_map(|(c, grid)| {
                judge_correction(grid, &table.criteria[c], &table.systems, self.alpha)
            })
            .collect();
        for correction in &judge_corrected {
            warnings.extend(correction.warnings.iter().cloned());
        }
        let binary: Vec<bool> = grids.iter().map(|g| g.binary).collect();
        let reading = reading(&differences, &slices, &binary, &table.criteria, self.alpha);
        Ok(Comparison {
            source: table.source.clone(),
            settings: self.clone(),
            n_scores: table.rows,
            empty_scores: table.empty_scores,
            n_items: table.items.len(),
            systems: table.systems.clone(),
            criteria: table.criteria.clone(),
            binary,
            clusters,
            scores,
            differences,
            slices,
            judge_corrected,
            gold: None,
            reading,
            warnings,
        })
    }
}

/// A difference in the criterion's units: percentage points for pass rates.
fn amount(value: f64, binary: bool) -> String {
    if binary {
        format!("{:.1} pp", value * 100.0)
    } else {
        format!("{value:.3}")
    }
}

/// The headline: the pair with the smallest adjusted p-value on the first criterion (or said
/// plainly that no difference stands out), and a slice that reverses it.
fn reading(
    differences: &[PairedDifference],
    slices: &[SliceTable],
    binary: &[bool],
    criteria: &[String],
    alpha: f64,
) -> String {
    let Some(best) = differences
        .iter()
        .filter(|d| d.holm.is_finite())
        .min_by(|x, y| x.holm.total_cmp(&y.holm))
    else {
        return "No two systems share an item with a defined difference, so nothing is compared."
            .to_owned();
    };
    let c = criteria
        .iter()
        .position(|c| *c == best.criterion)
        .unwrap_or(0);
    let is_binary = binary.get(c).copied().unwrap_or(false);
    let on = if criteria.len() > 1 {
        format!(" on `{}`", best.criterion)
    } else {
        String::new()
    };
    let interval = best.clustered.map_or(best.interval, |c| c.interval);
    let (hi, lo, gap) = if best.difference >= 0.0 {
        (&best.b, &best.a, best.difference)
    } else {
        (&best.a, &best.b, -best.difference)
    };
    let bounds = if best.difference >= 0.0 {
        (interval.lower, interval.upper)
    } else {
        (-interval.upper, -interval.lower)
    };
    let mut text = if best.holm <= alpha {
        format!(
            "`{hi}` scores {} above `{lo}`{on} [{}, {}] on {} shared items (Holm-adjusted {}).",
            amount(gap, is_binary),
            amount(bounds.0, is_binary),
            amount(bounds.1, is_binary),
            best.n_shared,
            p_text(best.holm)
        )
    } else {
        format!(
            "No difference between systems stands out{on}: the largest signal, `{hi}` over \
             `{lo}` by {} [{}, {}], has Holm-adjusted {}; with {} shared items the smallest \
             difference detectable at the chosen power is {}.",
            amount(gap, is_binary),
            amount(bounds.0, is_binary),
            amount(bounds.1, is_binary),
            p_text(best.holm),
            best.n_shared,
            amount(best.minimum_detectable, is_binary)
        )
    };
    let reversal = slices.iter().find_map(|table| {
        table
            .differences
            .iter()
            .find(|d| d.reverses && d.a == best.a && d.b == best.b && d.criterion == best.criterion)
            .map(|d| (table, d))
    });
    if let (Some((table, d)), true) = (reversal, best.holm <= alpha) {
        // The slice's difference of `hi` over `lo` is negative: say by how much `hi` is below.
        let orient = if best.difference >= 0.0 { 1.0 } else { -1.0 };
        let gap = orient * d.difference;
        let (lower, upper) = if orient > 0.0 {
            (d.interval.lower, d.interval.upper)
        } else {
            (-d.interval.upper, -d.interval.lower)
        };
        text.push_str(&format!(
            " But on `{} = {}` `{hi}` is {} below [{}, {}] ({} items).",
            table.column,
            d.value,
            amount(-gap, is_binary),
            amount(-upper, is_binary),
            amount(-lower, is_binary),
            d.n_shared
        ));
    }
    text
}

impl crate::analysis::warnings::Warned for Comparison {
    fn warnings(&self) -> Vec<crate::analysis::warnings::Warning> {
        crate::analysis::warnings::gather(
            &self.warnings,
            crate::analysis::warnings::each("judge_corrected", &self.judge_corrected),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(params: &CompareParams, text: &str) -> Comparison {
        params.fit("s.csv", text.as_bytes()).unwrap()
    }

    #[test]
    fn one_item_every_pass_and_a_lone_cluster_are_said() {
        let c = compare(
            &CompareParams {
                bootstrap_rounds: 0,
                ..CompareParams::default()
            },
            "item,system,score,cluster\nq1,A,1,c\nq1,B,1,c\n",
        );
        assert_eq!(c.scores.len(), 2);
        // A pass rate of 1 on one item: Wilson, not zero width.
        assert!(c.scores[0].interval.lower < 1.0);
        assert!(
            c.warnings.iter().any(|w| w.contains("one cluster")),
            "{:?}",
            c.warnings
        );
        assert!(c.scores[0].clustered.unwrap().interval.se.is_nan());
    }

    #[test]
    fn a_slice_that_reverses_the_headline_is_read_out() {
        let mut text = "item,system,score,difficulty\n".to_owned();
        // Easy items: B passes 80 of 80, A 40 of 80. Hard items: A passes 20, B 8 of 20.
        for i in 0..80 {
            text.push_str(&format!(
                "e{i},A,{},easy\ne{i},B,1,easy\n",
                u8::from(i % 2 == 0)
            ));
        }
        for i in 0..20 {
            text.push_str(&format!("h{i},A,1,hard\nh{i},B,{},hard\n", u8::from(i < 8)));
        }
        let params = CompareParams {
            table: TableParams {
                slices: vec!["difficulty".to_owned()],
                ..TableParams::default()
            },
            bootstrap_rounds: 200,
            seed: 3,
            ..CompareParams::default()
        };
        let c = compare(&params, &text);
        let d = &c.differences[0];
        // (88 − 60) / 100
        assert!((d.difference - 0.28).abs() < 1e-12);
        assert!(
            c.reading.starts_with("`B` scores 28.0 pp above `A`"),
            "{}",
            c.reading
        );
        let hard = c.slices[0]
            .differences
            .iter()
            .find(|d| d.value == "hard")
            .unwrap();
        assert!(hard.reverses, "{hard:?}");
        assert!(c.reading.contains("`difficulty = hard`"), "{}", c.reading);
        assert!(c.reading.contains("60.0 pp below"), "{}", c.reading);
        // The bootstrap is seeded: the same seed, the same interval.
        assert_eq!(
            compare(&params, &text).differences[0].bootstrap,
            d.bootstrap
        );
    }

    #[test]
    fn a_baseline_that_is_not_a_system_is_refused() {
        let e = CompareParams {
            baseline: Some("C".to_owned()),
            ..CompareParams::default()
        }
        .fit("s.csv", b"item,system,score\nq1,A,1\nq1,B,0\n")
        .unwrap_err();
        assert!(e.to_string().contains("A, B"), "{e}");
    }
}
