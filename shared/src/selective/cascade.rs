//! Cascades of judges with a guaranteed agreement with humans (Jung, Brahman & Choi 2025,
//! "Trust or Escalate", §3): the judges in order — a cheap one first, humans last — each keep
//! the items they are confident on and hand the rest to the next. Each tier's threshold is
//! calibrated ([`super::guarantee`]) on the calibration items that reach it, at level δ/T for
//! T tiers, so that with probability at least 1 − δ every tier's agreement on the items it
//! keeps, and therefore the cascade's, is at least 1 − α (Bonferroni over the tiers).
//!
//! Input: one CSV of judgments, a row per item and judge — `item,judge,verdict,confidence` and
//! the item's `human` label (blank where no person labelled; the same on every row of an
//! item), with optionally `cost` (tokens or seconds the judgment took) and `split`
//! (`calibration` or `test` for each labelled item; without it the labelled items are split by
//! a seed). A verdict agrees when it equals the human label as text. An item with no row for a
//! tier's judge is one that judge abstains on.
//!
//! Arguments: the file and [`CascadeParams`]. Returns: [`CascadeReport`]: each tier's threshold
//! with its calibration curve and its share of the held-out test items, the cascade's coverage
//! and observed agreement on them, each judge calibrated alone and without abstaining, and the
//! route of the unlabelled items (those left to humans by id). Errors: located
//! [`Error::Input`] for a malformed file, a missing column, a confidence that is not a finite
//! number, an item with two human labels or two splits, a judge with two rows for one item;
//! [`Error::InvalidParam`] for α, δ or the calibration share out of range and a tier naming no
//! judge of the file; [`Error::Insufficient`] for a file with no labelled item.

use super::guarantee::{calibrate_threshold, powered_start, Threshold};
use crate::io::checks::in_open_unit;
use crate::io::csv_row::{column, csv_error, find_unique, read_header, Row};
use crate::io::error::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The header names of a judgments file's columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct JudgmentColumns {
    /// The column naming the item.
    #[cfg_attr(feature = "cli", arg(long = "item-column", default_value = "item"))]
    pub item: String,
    /// The column naming the judge (a tier).
    #[cfg_attr(feature = "cli", arg(long = "judge-column", default_value = "judge"))]
    pub judge: String,
    /// The column holding the judge's verdict.
    #[cfg_attr(
        feature = "cli",
        arg(long = "verdict-column", default_value = "verdict")
    )]
    pub verdict: String,
    /// The column holding the judge's confidence (higher: more confident).
    #[cfg_attr(
        feature = "cli",
        arg(long = "confidence-column", default_value = "confidence")
    )]
    pub confidence: String,
    /// The column holding the item's human label (empty where none).
    #[cfg_attr(feature = "cli", arg(long = "human-column", default_value = "human"))]
    pub human: String,
    /// The column holding the judgment's cost, tokens or seconds (read when present).
    #[cfg_attr(feature = "cli", arg(long = "cost-column", default_value = "cost"))]
    pub cost: String,
    /// The column saying `calibration` or `test` for each labelled item (read when present).
    #[cfg_attr(feature = "cli", arg(long = "split-column", default_value = "split"))]
    pub split: String,
}

impl Default for JudgmentColumns {
    fn default() -> Self {
        Self {
            item: "item".to_owned(),
            judge: "judge".to_owned(),
            verdict: "verdict".to_owned(),
            confidence: "confidence".to_owned(),
            human: "human".to_owned(),
            cost: "cost".to_owned(),
            split: "split".to_owned(),
        }
    }
}

/// Settings of a cascade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct CascadeParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: JudgmentColumns,
    /// The judges in order, cheapest first (repeatable; default: every judge of the file in
    /// the order first seen). Items no judge keeps go to humans.
    #[cfg_attr(feature = "cli", arg(long = "tier"))]
    pub tiers: Vec<String>,
    /// Disagreement allowed on the kept items: their agreement with humans is at least 1 − α.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = CascadeParams::default().alpha))]
    pub alpha: f64,
    /// The guarantee fails with probability at most δ (over the draw of calibration items).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = CascadeParams::default().delta))]
    pub delta: f64,
    /// Share of the labelled items that calibrate the thresholds; the rest test them (1: all
    /// calibrate, nothing is tested). Ignored when the file has a split column.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = CascadeParams::default().calibration_share)
    )]
    pub calibration_share: f64,
    /// Seed of the calibration/test split (recorded in the report's settings).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = CascadeParams::default().seed))]
    pub seed: u64,
    /// Each tier's test walks down from its strictest threshold, starting at the first that
    /// keeps at least this many calibration items (and at least the fewest that could pass);
    /// default: where a judge twice as good as asked passes half the time (it depends on α and
    /// δ alone). A later start survives a few disagreements among the most confident items.
    #[cfg_attr(feature = "cli", arg(long))]
    pub start_kept: Option<usize>,
}

impl Default for CascadeParams {
    fn default() -> Self {
        Self {
            columns: JudgmentColumns::default(),
            tiers: Vec::new(),
            alpha: 0.15,
            delta: 0.1,
            calibration_share: 0.5,
            seed: 0,
            start_kept: None,
        }
    }
}

/// Items of the file by what they are used for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemCounts {
    pub items: usize,
    pub labelled: usize,
    pub calibration: usize,
    pub test: usize,
    pub unlabelled: usize,
}

/// What a judge, or the cascade, did on the test items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Test items offered, and kept (decided without humans).
    pub items: usize,
    pub kept: usize,
    /// kept / items (`None` with no test item).
    pub coverage: Option<f64>,
    /// Agreement with humans on the kept items (`None` when none was kept).
    pub agreement: Option<f64>,
    /// Mean cost per test item of the judgments made (`None` without a cost column).
    pub cost_per_item: Option<f64>,
}

/// One tier of the cascade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tier {
    pub judge: String,
    /// The level its threshold is calibrated at: δ / T.
    pub delta: f64,
    /// Calibration items that reached it (earlier tiers abstained on them).
    pub reached: usize,
    /// Its threshold, chosen on the calibration items that reached it, and the curve.
    pub calibration: Threshold,
    /// Test items that reached it, those it kept, and its agreement on them.
    pub test: Outcome,
    /// Mean cost of one of its judgments (`None` without a cost column).
    pub cost: Option<f64>,
}

/// One judge calibrated alone at the same (α, δ), and the same judge deciding every item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alone {
    pub judge: String,
    pub threshold: Option<f64>,
    /// On the test items, abstaining below its threshold.
    pub selective: Outcome,
    /// On the test items, never abstaining: its plain agreement with humans.
    pub no_abstention: Outcome,
}

/// The unlabelled items routed through the calibrated cascade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routing {
    /// Items each tier decides, in the tiers' order.
    pub decided: Vec<usize>,
    /// The items left to humans, by id, in the file's order: what to label next.
    pub to_humans: Vec<String>,
}

/// A calibrated cascade and how it did on held-out items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CascadeReport {
    pub settings: CascadeParams,
    /// 1 − α, guaranteed with probability 1 − δ on the items the judges keep.
    pub guaranteed_agreement: f64,
    pub guarantee_probability: f64,
    pub items: ItemCounts,
    pub tiers: Vec<Tier>,
    /// The whole cascade on the test items.
    pub cascade: Outcome,
    /// Each judge alone, in the tiers' order (the last is usually the strongest).
    pub alone: Vec<Alone>,
    pub unlabelled: Routing,
    pub warnings: Vec<String>,
}

crate::analysis::warnings::own_warnings!(CascadeReport);

/// One judgment.
#[derive(Debug, Clone, Copy)]
struct Verdict {
    label: usize,
    confidence: f64,
}

/// An item: its id, human label and split.
struct Item {
    id: String,
    human: Option<usize>,
    test: Option<bool>,
}

/// A judgments file, read.
struct Judgments {
    items: Vec<Item>,
    judges: Vec<String>,
    /// `verdicts[judge][item]`.
    verdicts: Vec<Vec<Option<Verdict>>>,
    /// Each judge's summed cost and the judgments it was summed over (`None` without a cost
    /// column).
    costs: Option<Vec<(f64, usize)>>,
}

/// The index of `key` in `names`, added when new.
fn intern(index: &mut HashMap<String, usize>, names: &mut Vec<String>, key: &str) -> usize {
    *index.entry(key.to_owned()).or_insert_with(|| {
        names.push(key.to_owned());
        names.len() - 1
    })
}

/// Reads a judgments file. See the module documentation.
fn read(source: &str, bytes: &[u8], columns: &JudgmentColumns) -> Result<Judgments> {
    let c = columns;
    let expected = format!(
        "{},{},{},{},{}[,{}][,{}]",
        c.item, c.judge, c.verdict, c.confidence, c.human, c.cost, c.split
    );
    let (mut reader, headers) = read_header(source, bytes, &expected)?;
    let at = |name: &str| column(source, &headers, name, &expected);
    let (item_at, judge_at, verdict_at) = (at(&c.item)?, at(&c.judge)?, at(&c.verdict)?);
    let (confidence_at, human_at) = (at(&c.confidence)?, at(&c.human)?);
    let cost_at = find_unique(source, &headers, &c.cost)?;
    let split_at = find_unique(source, &headers, &c.split)?;
    let (mut item_index, mut item_ids) = (HashMap::new(), Vec::new());
    let (mut judge_index, mut judges) = (HashMap::new(), Vec::new());
    let (mut label_index, mut labels) = (HashMap::new(), Vec::new());
    let mut items: Vec<Item> = Vec::new();
    let mut first_line: Vec<u64> = Vec::new();
    let mut seen: HashMap<(usize, usize), u64> = HashMap::new();
    let mut rows: Vec<(usize, usize, Verdict)> = Vec::new();
    let mut costs: Vec<(f64, usize)> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(source, &e))?;
        let row = Row::new(source, &record);
        let id = row.required(item_at, &c.item)?;
        let judge_name = row.required(judge_at, &c.judge)?;
        let verdict = row.required(verdict_at, &c.verdict)?;
        let confidence = row.number(confidence_at, &c.confidence)?;
        let human = Some(row.value(human_at)).filter(|h| !h.is_empty());
        let test = match split_at {
            Some(at) => match (row.value(at), human) {
                ("calibration", _) => Some(false),
                ("test", _) => Some(true),
                ("", None) => None,
                (found, _) => {
                    return Err(row.error(
                        at,
                        &c.split,
                        format!(
                            "expected `calibration` or `test` for a labelled item, found `{found}`"
                        ),
                    ))
                }
            },
            None => None,
        };
        let item = intern(&mut item_index, &mut item_ids, id);
        let human = human.map(|h| intern(&mut label_index, &mut labels, h));
        if item == items.len() {
            items.push(Item {
                id: id.to_owned(),
                human,
                test,
            });
            first_line.push(row.line);
        } else if items[item].human != human {
            let was = items[item].human.map_or("", |h| labels[h].as_str());
            return Err(row.error(
                human_at,
                &c.human,
                format!(
                    "item `{id}` has the human label `{was}` on line {}, found `{}` here: \
                     expected one label per item, on every row of it",
                    first_line[item],
                    row.value(human_at)
                ),
            ));
        } else if items[item].test != test {
            let at = split_at.unwrap_or(0);
            return Err(row.error(
                at,
                &c.split,
                format!(
                    "item `{id}` is in another split on line {}: expected one split per item",
                    first_line[item]
                ),
            ));
        }
        let judge = intern(&mut judge_index, &mut judges, judge_name);
        if let Some(line) = seen.insert((item, judge), row.line) {
            return Err(row.error(
                judge_at,
                &c.judge,
                format!(
                    "judge `{judge_name}` judged item `{id}` on line {line} already: expected \
                     one row per item and judge"
                ),
            ));
        }
        if let Some(at) = cost_at {
            if costs.len() <= judge {
                costs.resize(judge + 1, (0.0, 0));
            }
            if !row.value(at).is_empty() {
                let cost = row.number(at, &c.cost)?;
                if cost < 0.0 {
                    return Err(row.error(
                        at,
                        &c.cost,
                        format!("expected a cost ≥ 0, found {cost}"),
                    ));
                }
                costs[judge].0 += cost;
                costs[judge].1 += 1;
            }
        }
        let label = intern(&mut label_index, &mut labels, verdict);
        rows.push((item, judge, Verdict { label, confidence }));
    }
    let mut verdicts = vec![vec![None; items.len()]; judges.len()];
    for (item, judge, verdict) in rows {
        verdicts[judge][item] = Some(verdict);
    }
    costs.resize(judges.len(), (0.0, 0));
    Ok(Judgments {
        items,
        judges,
        verdicts,
        costs: cost_at.map(|_| costs),
    })
}

impl Judgments {
    /// Judge `judge`'s confidence on `item` and whether it agreed with the human.
    fn judged(&self, judge: usize, item: usize) -> Option<(f64, bool)> {
        self.verdicts[judge][item].map(|v| (v.confidence, Some(v.label) == self.items[item].human))
    }

    /// Whether `judge` keeps `item` at `threshold` (it judged it, confidently enough).
    fn keeps(&self, judge: usize, item: usize, threshold: Option<f64>) -> bool {
        match (self.verdicts[judge][item], threshold) {
            (Some(v), Some(t)) => v.confidence >= t,
            _ => false,
        }
    }

    /// The mean cost of one of `judge`'s judgments.
    fn cost(&self, judge: usize) -> Option<f64> {
        let costs = self.costs.as_ref()?;
        let (sum, n) = costs[judge];
        (n > 0).then(|| sum / n as f64)
    }
}

/// Agreement and coverage of `kept` items with `agreed` agreements out of `items`.
fn outcome(items: usize, kept: usize, agreed: usize, cost: Option<f64>) -> Outcome {
    Outcome {
        items,
        kept,
        coverage: (items > 0).then(|| kept as f64 / items as f64),
        agreement: (kept > 0).then(|| agreed as f64 / kept as f64),
        cost_per_item: cost,
    }
}

impl CascadeParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for α, δ outside (0, 1), a calibration share outside (0, 1], a
    /// tier named twice.
    pub fn validate(&self) -> Result<()> {
        in_open_unit("alpha", self.alpha)?;
        in_open_unit("delta", self.delta)?;
        if !(self.calibration_share > 0.0 && self.calibration_share <= 1.0) {
            return Err(Error::param(
                "calibration_share",
                format!(
                    "expected a share in (0, 1], found {}",
                    self.calibration_share
                ),
            ));
        }
        for (i, tier) in self.tiers.iter().enumerate() {
            if self.tiers[..i].contains(tier) {
                return Err(Error::param(
                    "tiers",
                    format!("the judge `{tier}` is named twice: expected each tier once"),
                ));
            }
        }
        Ok(())
    }

    /// The cascade calibrated and tested on the judgments file `bytes` named `source`. See the
    /// module documentation.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn fit(&self, source: &str, bytes: &[u8]) -> Result<CascadeReport> {
        self.validate()?;
        let data = read(source, bytes, &self.columns)?;
        let tiers = self.tier_judges(&data)?;
        let labelled: Vec<usize> = (0..data.items.len())
            .filter(|&i| data.items[i].human.is_some())
            .collect();
        if labelled.is_empty() {
            return Err(Error::Insufficient(format!(
                "{source}: no item has a human label in `{}`: expected labels on the items \
                 that calibrate the thresholds",
                self.columns.human
            )));
        }
        let (calibration, test) = self.split(&data, &labelled);
        let mut warnings = Vec::new();
        let level = self.delta / tiers.len() as f64;
        let mut reaching = calibration.clone();
        let mut thresholds = Vec::new();
        let mut tier_reports = Vec::new();
        for &judge in &tiers {
            let points: Vec<(f64, bool)> = reaching
                .iter()
                .filter_map(|&i| data.judged(judge, i))
                .collect();
            let calibrated =
                calibrate_threshold(&points, self.alpha, level, self.start(level, points.len()));
            if calibrated.threshold.is_none() {
                warnings.push(format!(
                    "tier `{}` keeps no item: of the {} calibration items that reach it ({} \
                     judged), no set it is most confident on passes the test at δ/T = \
                     {level:.4} (the test starts at its {} most confident)",
                    data.judges[judge],
                    reaching.len(),
                    calibrated.judged,
                    calibrated.start
                ));
            }
            let reached = reaching.len();
            reaching.retain(|&i| !data.keeps(judge, i, calibrated.threshold));
            thresholds.push(calibrated.threshold);
            tier_reports.push(Tier {
                judge: data.judges[judge].clone(),
                delta: level,
                reached,
                calibration: calibrated,
                test: outcome(0, 0, 0, None),
                cost: data.cost(judge),
            });
        }
        // The test items through the cascade.
        let mut reaching = test.clone();
        let (mut kept, mut agreed) = (0, 0);
        let mut cost = Some(0.0);
        for (k, &judge) in tiers.iter().enumerate() {
            let reached = reaching.len();
            let (mut tier_kept, mut tier_agreed) = (0, 0);
            reaching.retain(|&i| {
                if data.keeps(judge, i, thresholds[k]) {
                    tier_kept += 1;
                    tier_agreed += usize::from(data.judged(judge, i).is_some_and(|(_, a)| a));
                    false
                } else {
                    true
                }
            });
            kept += tier_kept;
            agreed += tier_agreed;
            cost = cost
                .zip(data.cost(judge))
                .map(|(c, j)| c + reached as f64 * j);
            tier_reports[k].test = outcome(reached, tier_kept, tier_agreed, data.cost(judge));
        }
        let per_item = |total: Option<f64>, n: usize| total.filter(|_| n > 0).map(|t| t / n as f64);
        let cascade = outcome(test.len(), kept, agreed, per_item(cost, test.len()));
        let alone: Vec<Alone> = tiers
            .iter()
            .map(|&judge| self.alone(&data, judge, &calibration, &test))
            .collect();
        let unlabelled: Vec<usize> = (0..data.items.len())
            .filter(|&i| data.items[i].human.is_none())
            .collect();
        let unlabelled = route(&data, &tiers, &thresholds, &unlabelled);
        self.warn(&mut warnings, &cascade, &alone, test.len());
        Ok(CascadeReport {
            settings: self.clone(),
            guaranteed_agreement: 1.0 - self.alpha,
            guarantee_probability: 1.0 - self.delta,
            items: ItemCounts {
                items: data.items.len(),
                labelled: labelled.len(),
                calibration: calibration.len(),
                test: test.len(),
                unlabelled: data.items.len() - labelled.len(),
            },
            tiers: tier_reports,
            cascade,
            alone,
            unlabelled,
            warnings,
        })
    }

    /// Where a test at level `delta` on `judged` items starts: the given number of kept items,
    /// or the powered start ([`powered_start`]).
    fn start(&self, delta: f64, judged: usize) -> usize {
        self.start_kept
            .unwrap_or_else(|| powered_start(self.alpha, delta, judged))
    }

    /// The tiers' judges as indices: the named ones in order, or every judge.
    fn tier_judges(&self, data: &Judgments) -> Result<Vec<usize>> {
        if self.tiers.is_empty() {
            return Ok((0..data.judges.len()).collect());
        }
        self.tiers
            .iter()
            .map(|tier| {
                data.judges.iter().position(|j| j == tier).ok_or_else(|| {
                    Error::param(
                        "tiers",
                        format!(
                            "no judge `{tier}` in the judgments: expected one of {}",
                            data.judges.join(", ")
                        ),
                    )
                })
            })
            .collect()
    }

    /// The labelled items split into calibration and test items: by the split column when the
    /// file has one, else a seeded shuffle of the items sorted by id, the first
    /// `calibration_share` of them (at least one) calibrating.
    fn split(&self, data: &Judgments, labelled: &[usize]) -> (Vec<usize>, Vec<usize>) {
        if labelled.iter().any(|&i| data.items[i].test.is_some()) {
            return labelled
                .iter()
                .copied()
                .partition(|&i| data.items[i].test == Some(false));
        }
        let mut order = labelled.to_vec();
        order.sort_by(|&a, &b| data.items[a].id.cmp(&data.items[b].id));
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(self.seed));
        let n = order.len();
        let calibrating = ((self.calibration_share * n as f64).round() as usize).clamp(1, n);
        let test = order.split_off(calibrating);
        order.sort_unstable();
        let mut test = test;
        test.sort_unstable();
        (order, test)
    }

    /// `judge` calibrated alone at (α, δ) on every calibration item, and tested with and
    /// without abstaining.
    fn alone(
        &self,
        data: &Judgments,
        judge: usize,
        calibration: &[usize],
        test: &[usize],
    ) -> Alone {
        let points: Vec<(f64, bool)> = calibration
            .iter()
            .filter_map(|&i| data.judged(judge, i))
            .collect();
        let threshold = calibrate_threshold(
            &points,
            self.alpha,
            self.delta,
            self.start(self.delta, points.len()),
        )
        .threshold;
        let count = |keep: &dyn Fn(usize) -> bool| {
            let kept: Vec<usize> = test.iter().copied().filter(|&i| keep(i)).collect();
            let agreed = kept
                .iter()
                .filter(|&&i| data.judged(judge, i).is_some_and(|(_, a)| a))
                .count();
            (kept.len(), agreed)
        };
        let (kept, agreed) = count(&|i| data.keeps(judge, i, threshold));
        let (judged, right) = count(&|i| data.verdicts[judge][i].is_some());
        let cost = data.cost(judge);
        Alone {
            judge: data.judges[judge].clone(),
            threshold,
            selective: outcome(test.len(), kept, agreed, cost),
            no_abstention: outcome(test.len(), judged, right, cost),
        }
    }

    /// The warnings of a report: nothing kept, nothing tested, an observed agreement below the
    /// guarantee, a cascade that keeps fewer items than its last judge alone.
    fn warn(&self, warnings: &mut Vec<String>, cascade: &Outcome, alone: &[Alone], tested: usize) {
        if tested == 0 {
            warnings.push(
                "no test items (every labelled item calibrates): the observed agreement and \
                 coverage are not measured"
                    .to_owned(),
            );
        } else if cascade.kept == 0 {
            warnings.push(
                "the cascade keeps no test item: every item goes to humans at this α and δ \
                 (more calibration items, or a larger α, let a judge keep some)"
                    .to_owned(),
            );
        }
        if let Some(agreement) = cascade.agreement {
            if agreement < 1.0 - self.alpha {
                warnings.push(format!(
                    "the observed agreement on the {} kept test items, {agreement:.3}, is below \
                     the guaranteed {:.3}: the guarantee is on the agreement expected on new \
                     items and fails in at most δ = {} of calibrations; a small test set also \
                     varies",
                    cascade.kept,
                    1.0 - self.alpha,
                    self.delta
                ));
            }
        }
        if let (Some(last), Some(coverage)) = (alone.last(), cascade.coverage) {
            if last.selective.coverage.is_some_and(|c| c > coverage) {
                warnings.push(format!(
                    "the cascade keeps fewer test items ({coverage:.3}) than `{}` alone at the \
                     same guarantee ({:.3}): splitting δ over the tiers costs more than the \
                     cheaper tiers save",
                    last.judge,
                    last.selective.coverage.unwrap_or(0.0)
                ));
            }
        }
    }
}

impl Routing {
    /// The items left to humans as a one-column CSV, `item`, quoted where a field needs it.
    ///
    /// # Errors
    /// [`Error::Insufficient`] if the CSV writer fails (it writes to memory).
    pub fn to_humans_csv(&self) -> Result<String> {
        let io = |e: &dyn std::fmt::Display| Error::Insufficient(format!("writing the CSV: {e}"));
        let mut writer = csv::Writer::from_writer(Vec::new());
        let rows = std::iter::once("item").chain(self.to_humans.iter().map(String::as_str));
        for row in rows {
            writer.write_record([row]).map_err(|e| io(&e))?;
        }
        let bytes = writer.into_inner().map_err(|e| io(&e))?;
        String::from_utf8(bytes).map_err(|e| io(&e))
    }
}

/// `items` through the calibrated tiers: how many each decides, and those left to humans.
fn route(
    data: &Judgments,
    tiers: &[usize],
    thresholds: &[Option<f64>],
    items: &[usize],
) -> Routing {
    let mut decided = vec![0; tiers.len()];
    let mut to_humans = Vec::new();
    for &i in items {
        match (0..tiers.len()).find(|&k| data.keeps(tiers[k], i, thresholds[k])) {
            Some(k) => decided[k] += 1,
            None => to_humans.push(data.items[i].id.clone()),
        }
    }
    Routing { decided, to_humans }
}
