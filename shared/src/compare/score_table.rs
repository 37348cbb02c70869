//! Pointwise scores in long format: one row per score a system's answer to an item received,
//! and their item-level table.
//!
//! Schema (recognised by the header row; column order is free; the names are those of
//! [`ScoreColumns`], so a file in another layout is read by naming its columns):
//!
//! | column      | required | meaning                                                         |
//! |-------------|----------|-----------------------------------------------------------------|
//! | `item`      | yes      | the test item (prompt, sample, task) every system answered      |
//! | `system`    | yes      | the system (model, prompt version, agent) whose answer was scored |
//! | `score`     | yes      | the score: 0/1, an ordinal grade or a number; empty = missing  |
//! | `criterion` | no       | the rubric criterion or scorer the score is for                 |
//! | `epoch`     | no       | the repeat (Inspect's epochs, sampled runs) of the answer       |
//! | `cluster`   | no       | the group an item belongs to (template, document, conversation) |
//! | `human`     | no       | a person's label of the same answer and criterion (gold)        |
//! | slices      | no       | the columns named in [`TableParams::slices`], kept as text      |
//! | length      | no       | [`TableParams::length`]: a number, bucketed into quantiles      |
//!
//! Each (criterion, system, item) cell's score is the mean over its epochs; the within-item
//! sum of squares is kept so the report can show how much repeats vary (Miller 2024, "Adding
//! error bars to evals"). A cell's human label is the mean of the labels its rows give. A
//! cell's slice values are those of its first row.
//!
//! Errors: [`Error::Input`] with source, line, column and field for an empty file, a header
//! without the item, system and score columns (or a named slice or length column), a repeated
//! header name, a ragged row or unclosed quote, an empty item or system, a score, human label
//! or length that is not a finite number, the same (criterion, system, item, epoch) twice (both
//! lines named), or an item placed in two clusters; [`Error::Insufficient`] for a file without
//! a single score.

use crate::io::csv_row::{csv_error, header_names, open, with_separator_hint};
use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The header names of a scores file's columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct ScoreColumns {
    /// The column naming the item.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "item-column",
            id = "item_column",
            value_name = "ITEM_COLUMN",
            default_value_t = ScoreColumns::default().item
        )
    )]
    pub item: String,
    /// The column naming the system.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "system-column",
            id = "system_column",
            value_name = "SYSTEM_COLUMN",
            default_value_t = ScoreColumns::default().system
        )
    )]
    pub system: String,
    /// The column holding the score.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "score-column",
            id = "score_column",
            value_name = "SCORE_COLUMN",
            default_value_t = ScoreColumns::default().score
        )
    )]
    pub score: String,
    /// The column naming the criterion (read when present).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "criterion-column",
            id = "criterion_column",
            value_name = "CRITERION_COLUMN",
            default_value_t = ScoreColumns::default().criterion
        )
    )]
    pub criterion: String,
    /// The column naming the epoch (read when present).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "epoch-column",
            id = "epoch_column",
            value_name = "EPOCH_COLUMN",
            default_value_t = ScoreColumns::default().epoch
        )
    )]
    pub epoch: String,
    /// The column naming the item's cluster (read when present).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "cluster-column",
            id = "cluster_column",
            value_name = "CLUSTER_COLUMN",
            default_value_t = ScoreColumns::default().cluster
        )
    )]
    pub cluster: String,
    /// The column holding a human label (read when present; empty where none).
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "human-column",
            id = "human_column",
            value_name = "HUMAN_COLUMN",
            default_value_t = ScoreColumns::default().human
        )
    )]
    pub human: String,
}

impl Default for ScoreColumns {
    fn default() -> Self {
        Self {
            item: "item".to_owned(),
            system: "system".to_owned(),
            score: "score".to_owned(),
            criterion: "criterion".to_owned(),
            epoch: "epoch".to_owned(),
            cluster: "cluster".to_owned(),
            human: "human".to_owned(),
        }
    }
}

/// What to read from a scores file besides its fixed columns.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct TableParams {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub columns: ScoreColumns,
    /// A slice column (repeatable; topic, difficulty, …): a system × value table and each
    /// value's differences.
    #[cfg_attr(feature = "cli", arg(long = "slice"))]
    pub slices: Vec<String>,
    /// A numeric column (an answer's or a prompt's length) cut into quartile buckets as a
    /// slice.
    #[cfg_attr(feature = "cli", arg(long))]
    pub length: Option<String>,
}

/// One (criterion, system, item) cell: the mean of its epochs' scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub criterion: u32,
    pub system: u32,
    pub item: u32,
    pub mean: f64,
    pub epochs: u32,
    /// Σ (score − mean)² over the epochs.
    pub sum_squares: f64,
    /// The mean human label of the cell, or NaN.
    pub human: f64,
}

/// A slice column: its values (sorted; for a length column, its buckets in order) and each
/// cell's value.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceColumn {
    pub name: String,
    pub values: Vec<String>,
    /// Per cell (in [`ScoreTable::cells`] order), the index of its value.
    pub value_of_cell: Vec<u32>,
}

/// A parsed scores file.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreTable {
    pub source: String,
    /// Sorted.
    pub systems: Vec<String>,
    /// Sorted.
    pub items: Vec<String>,
    /// Sorted; `score` alone when the file has no criterion column.
    pub criteria: Vec<String>,
    /// Criteria whose every row had an empty score.
    pub criteria_without_scores: Vec<String>,
    /// Sorted by (criterion, system, item).
    pub cells: Vec<Cell>,
    /// Each item's cluster (index into `cluster_names`) when the file has a cluster column.
    pub cluster_of_item: Option<Vec<u32>>,
    pub cluster_names: Vec<String>,
    pub slices: Vec<SliceColumn>,
    /// Rows with a score.
    pub rows: usize,
    /// Rows whose score was empty (left out).
    pub empty_scores: usize,
    /// Whether any row had more than one epoch.
    pub has_epochs: bool,
}

/// Names numbered in order of first appearance, renumbered in sorted order at the end.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The sorted names and, per first-appearance id, its sorted position.
    fn sorted(self) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_by(|&a, &b| self.names[a as usize].cmp(&self.names[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (position, &id) in order.iter().enumerate() {
            rank[id as usize] = position as u32;
        }
        let sorted = order
            .iter()
            .map(|&id| self.names[id as usize].clone())
            .collect();
        (sorted, rank)
    }
}

/// A cell while rows are read: running mean and sum of squares (Welford), human labels.
struct Building {
    key: (u32, u32, u32),
    epochs: u32,
    mean: f64,
    sum_squares: f64,
    human_sum: f64,
    human_count: u32,
    slices: Vec<u32>,
    length: f64,
    /// The line of the cell's first row.
    line: u64,
}

impl TableParams {
    /// Parses a scores CSV.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn parse(&self, source: &str, bytes: &[u8]) -> Result<ScoreTable> {
        let columns = &self.columns;
        let (mut reader, headers) = open(source, bytes)?;
        let names = header_names(
            source,
            &headers,
            &format!(
                "`{}`, `{}` and `{}`",
                columns.item, columns.system, columns.score
            ),
        )?;
        let find = |name: &str| names.iter().position(|h| *h == name);
        let missing = |what: String| {
            Error::input(
                Location::line(source, 1),
                with_separator_hint(
                    format!(
                        "expected {what}; the file's columns are `{}`",
                        names.join(",")
                    ),
                    &headers,
                ),
            )
        };
        let (Some(i_item), Some(i_system), Some(i_score)) = (
            find(&columns.item),
            find(&columns.system),
            find(&columns.score),
        ) else {
            return Err(missing(format!(
                "a header with `{}`, `{}` and `{}` (optionally `{}`, `{}`, `{}`, `{}` and slice \
                 columns)",
                columns.item,
                columns.system,
                columns.score,
                columns.criterion,
                columns.epoch,
                columns.cluster,
                columns.human
            )));
        };
        let (i_criterion, i_epoch) = (find(&columns.criterion), find(&columns.epoch));
        let (i_cluster, i_human) = (find(&columns.cluster), find(&columns.human));
        let i_slices = self
            .slices
            .iter()
            .map(|name| find(name).ok_or_else(|| missing(format!("the slice column `{name}`"))))
            .collect::<Result<Vec<usize>>>()?;
        let i_length = self
            .length
            .as_deref()
            .map(|name| find(name).ok_or_else(|| missing(format!("the length column `{name}`"))))
            .transpose()?;

        let (mut items, mut systems, mut criteria) =
            (Names::default(), Names::default(), Names::default());
        let mut epochs = Names::default();
        let mut clusters = Names::default();
        let mut slice_values: Vec<Names> = self.slices.iter().map(|_| Names::default()).collect();
        let mut cluster_of: HashMap<u32, (u32, u64)> = HashMap::new();
        // A cell's epochs seen so far (only a file with an epoch column can repeat a cell).
        let mut epochs_seen: HashMap<(usize, u32), u64> = HashMap::new();
        let mut cell_of: HashMap<(u32, u32, u32), usize> = HashMap::new();
        let mut building: Vec<Building> = Vec::new();
        let mut scored_criteria: Vec<bool> = Vec::new();
        let (mut rows, mut empty_scores) = (0usize, 0usize);
        // One record, read into again and again: no allocation per row.
        let mut record = csv::StringRecord::new();
        while reader
            .read_record(&mut record)
            .map_err(|e| csv_error(source, &e))?
        {
            let line = record.position().map_or(0, csv::Position::line);
            let raw = |i: usize| record.get(i).unwrap_or("").trim();
            let at = |i: usize| Location::field(source, line, i + 1, names[i]);
            let cell = |i: usize| -> Result<&str> {
                match raw(i) {
                    "" => Err(Error::input(
                        at(i),
                        "expected a value, found an empty field",
                    )),
                    value => Ok(value),
                }
            };
            let number = |i: usize, what: &str| -> Result<f64> {
                let text = raw(i);
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(Error::input(
                        at(i),
                        format!("expected {what} (a finite number), found `{text}`"),
                    )),
                }
            };
            let item = items.id(cell(i_item)?);
            let system = systems.id(cell(i_system)?);
            let criterion = criteria.id(match i_criterion {
                Some(i) => cell(i)?,
                None => "score",
            });
            if scored_criteria.len() <= criterion as usize {
                scored_criteria.push(false);
            }
            if raw(i_score).is_empty() {
                empty_scores += 1;
                continue;
            }
            let score = number(i_score, "a score")?;
            scored_criteria[criterion as usize] = true;
            rows += 1;
            let epoch = match i_epoch {
                Some(i) => epochs.id(cell(i)?),
                None => 0,
            };
            let repeated = |first: u64| {
                Error::input(
                    Location::line(source, line),
                    format!(
                        "`{}` has a second score for item `{}` and criterion `{}` (the first is \
                         at line {first}); give each repeat its own `{}` value, or remove one",
                        raw(i_system),
                        raw(i_item),
                        criteria.names[criterion as usize],
                        columns.epoch
                    ),
                )
            };
            if let Some(i) = i_cluster {
                let cluster = clusters.id(cell(i)?);
                match cluster_of.get(&item) {
                    Some(&(other, first)) if other != cluster => {
                        return Err(Error::input(
                            at(i),
                            format!(
                                "item `{}` is in cluster `{}` at line {first} and in `{}` here: \
                                 expected one cluster per item",
                                raw(i_item),
                                clusters.names[other as usize],
                                raw(i)
                            ),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        cluster_of.insert(item, (cluster, line));
                    }
                }
            }
            let human = match i_human {
                Some(i) if !raw(i).is_empty() => Some(number(i, "a human label")?),
                _ => None,
            };
            let key = (criterion, system, item);
            let index = match cell_of.get(&key) {
                Some(&index) if i_epoch.is_none() => return Err(repeated(building[index].line)),
                Some(&index) => index,
                None => {
                    let slices = i_slices
                        .iter()
                        .zip(&mut slice_values)
                        .map(|(&i, values)| {
                            Ok(values.id(match raw(i) {
                                "" => "(empty)",
                                value => value,
                            }))
                        })
                        .collect::<Result<Vec<u32>>>()?;
                    let length = match i_length {
                        Some(i) if !raw(i).is_empty() => number(i, "a length")?,
                        _ => f64::NAN,
                    };
                    building.push(Building {
                        key,
                        epochs: 0,
                        mean: 0.0,
                        sum_squares: 0.0,
                        human_sum: 0.0,
                        human_count: 0,
                        slices,
                        length,
                        line,
                    });
                    cell_of.insert(key, building.len() - 1);
                    building.len() - 1
                }
            };
            if i_epoch.is_some() {
                if let Some(first) = epochs_seen.insert((index, epoch), line) {
                    return Err(repeated(first));
                }
            }
            let b = &mut building[index];
            b.epochs += 1;
            let delta = score - b.mean;
            b.mean += delta / f64::from(b.epochs);
            b.sum_squares += delta * (score - b.mean);
            if let Some(h) = human {
                b.human_sum += h;
                b.human_count += 1;
            }
        }
        if rows == 0 {
            return Err(Error::Insufficient(format!(
                "{source}: no scores: every row's `{}` is empty, or the file has no rows",
                columns.score
            )));
        }
        let has_epochs = building.iter().any(|b| b.epochs > 1);
        let without_scores: Vec<String> = criteria
            .names
            .iter()
            .zip(&scored_criteria)
            .filter(|(_, &scored)| !scored)
            .map(|(name, _)| name.clone())
            .collect();
        let (item_names, item_rank) = items.sorted();
        let (system_names, system_rank) = systems.sorted();
        let (mut criterion_names, criterion_rank) = criteria.sorted();
        let (cluster_names, cluster_rank) = clusters.sorted();
        let value_ranks: Vec<(Vec<String>, Vec<u32>)> =
            slice_values.into_iter().map(Names::sorted).collect();

        let mut order: Vec<usize> = (0..building.len()).collect();
        let key = |b: &Building| {
            (
                criterion_rank[b.key.0 as usize],
                system_rank[b.key.1 as usize],
                item_rank[b.key.2 as usize],
            )
        };
        order.sort_by_key(|&i| key(&building[i]));
        let mut cells: Vec<Cell> = order
            .iter()
            .map(|&i| {
                let b = &building[i];
                let (criterion, system, item) = key(b);
                Cell {
                    criterion,
                    system,
                    item,
                    mean: b.mean,
                    epochs: b.epochs,
                    sum_squares: b.sum_squares,
                    human: if b.human_count > 0 {
                        b.human_sum / f64::from(b.human_count)
                    } else {
                        f64::NAN
                    },
                }
            })
            .collect();
        let mut slices: Vec<SliceColumn> = self
            .slices
            .iter()
            .zip(value_ranks)
            .enumerate()
            .map(|(k, (name, (values, rank)))| SliceColumn {
                name: name.clone(),
                values,
                value_of_cell: order
                    .iter()
                    .map(|&i| rank[building[i].slices[k] as usize])
                    .collect(),
            })
            .collect();
        if let Some(name) = &self.length {
            let lengths: Vec<f64> = order.iter().map(|&i| building[i].length).collect();
            slices.push(length_buckets(name, &lengths));
        }
        let cluster_of_item = i_cluster.map(|_| {
            let mut of_item = vec![0u32; item_names.len()];
            for (&item, &(cluster, _)) in &cluster_of {
                of_item[item_rank[item as usize] as usize] = cluster_rank[cluster as usize];
            }
            of_item
        });
        // Criteria with no score at all are reported, not analysed: the scored ones are
        // renumbered densely.
        let mut scored = vec![false; criterion_names.len()];
        for c in &cells {
            scored[c.criterion as usize] = true;
        }
        let mut new_id = vec![0u32; scored.len()];
        let mut kept = Vec::new();
        for (i, name) in criterion_names.drain(..).enumerate() {
            if scored[i] {
                new_id[i] = kept.len() as u32;
                kept.push(name);
            }
        }
        for cell in &mut cells {
            cell.criterion = new_id[cell.criterion as usize];
        }
        Ok(ScoreTable {
            source: source.to_owned(),
            systems: system_names,
            items: item_names,
            criteria: kept,
            criteria_without_scores: without_scores,
            cells,
            cluster_of_item,
            cluster_names,
            slices,
            rows,
            empty_scores,
            has_epochs,
        })
    }
}

/// The quartile buckets of a numeric column (numpy's linear quantiles of the cells' values):
/// `≤ q1`, `q1–q2`, `q2–q3`, `> q3` with the edges printed, fewer when edges coincide, and
/// `(no length)` for cells without a value.
fn length_buckets(name: &str, lengths: &[f64]) -> SliceColumn {
    let mut known: Vec<f64> = lengths.iter().copied().filter(|v| v.is_finite()).collect();
    known.sort_by(f64::total_cmp);
    let mut edges: Vec<f64> = [0.25, 0.5, 0.75]
        .iter()
        .map(|&q| crate::math::resample::quantile_sorted(&known, q))
        .filter(|v| v.is_finite())
        .collect();
    edges.dedup();
    let text = |v: f64| {
        if v == v.round() {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    };
    let mut values: Vec<String> = Vec::new();
    for (k, &edge) in edges.iter().enumerate() {
        values.push(match k {
            0 => format!("≤ {}", text(edge)),
            _ => format!("{}–{}", text(edges[k - 1]), text(edge)),
        });
    }
    match edges.last() {
        Some(&last) => values.push(format!("> {}", text(last))),
        None => values.push("all".to_owned()),
    }
    let unknown = values.len() as u32;
    let value_of_cell = lengths
        .iter()
        .map(|&v| {
            if v.is_finite() {
                edges.partition_point(|&e| e < v) as u32
            } else {
                unknown
            }
        })
        .collect();
    if lengths.iter().any(|v| !v.is_finite()) {
        values.push("(no length)".to_owned());
    }
    SliceColumn {
        name: name.to_owned(),
        values,
        value_of_cell,
    }
}

impl ScoreTable {
    /// The cells of criterion `c` (a contiguous run, sorted by system then item).
    pub fn criterion_cells(&self, c: usize) -> std::ops::Range<usize> {
        let start = self
            .cells
            .partition_point(|cell| (cell.criterion as usize) < c);
        let end = self
            .cells
            .partition_point(|cell| (cell.criterion as usize) <= c);
        start..end
    }

    /// Whether every cell mean of criterion `c` is 0 or 1 (pass/fail scores, one epoch each or
    /// every epoch agreeing).
    pub fn is_binary(&self, c: usize) -> bool {
        self.cells[self.criterion_cells(c)]
            .iter()
            .all(|cell| cell.mean == 0.0 || cell.mean == 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ScoreTable> {
        TableParams::default().parse("s.csv", text.as_bytes())
    }

    #[test]
    fn epochs_average_within_a_cell_and_names_sort() {
        let table =
            parse("item,system,score,epoch\nq2,B,1,1\nq1,B,0,1\nq1,A,1,1\nq1,A,0,2\nq1,A,1,3\n")
                .unwrap();
        assert_eq!(table.systems, ["A", "B"]);
        assert_eq!(table.items, ["q1", "q2"]);
        assert_eq!(table.criteria, ["score"]);
        assert_eq!(table.rows, 5);
        assert!(table.has_epochs);
        let a = table.cells[0];
        assert_eq!((a.system, a.item, a.epochs), (0, 0, 3));
        assert!((a.mean - 2.0 / 3.0).abs() < 1e-15);
        // Σ (x − 2/3)² over 1, 0, 1 = 2/3.
        assert!((a.sum_squares - 2.0 / 3.0).abs() < 1e-15);
        assert!(!table.is_binary(0));
    }

    #[test]
    fn bad_rows_are_located() {
        let e = parse("item,system,score\nq1,A,good\n").unwrap_err();
        let at = e.location().unwrap();
        assert_eq!((at.line, at.column), (2, Some(3)));
        assert!(e.to_string().contains("`good`"), "{e}");
        let e = parse("item,system,score\nq1,A,1\nq1,A,0\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert_eq!(e.location().unwrap().line, 3);
        let e = parse("item,model,score\nq1,A,1\n").unwrap_err();
        assert!(e.to_string().contains("`item,model,score`"), "{e}");
        let e = TableParams {
            slices: vec!["topic".to_owned()],
            ..TableParams::default()
        }
        .parse("s.csv", b"item,system,score\nq1,A,1\n")
        .unwrap_err();
        assert!(e.to_string().contains("`topic`"), "{e}");
        let e = parse("item,system,score,cluster\nq1,A,1,c1\nq1,B,1,c2\n").unwrap_err();
        assert!(e.to_string().contains("cluster `c1` at line 2"), "{e}");
        assert!(matches!(
            parse("item,system,score\nq1,A,\n"),
            Err(Error::Insufficient(_))
        ));
    }

    #[test]
    fn a_criterion_with_no_scores_is_named_and_left_out() {
        let table =
            parse("item,system,score,criterion\nq1,A,1,style\nq1,A,,safety\nq2,A,0,style\n")
                .unwrap();
        assert_eq!(table.criteria, ["style"]);
        assert_eq!(table.criteria_without_scores, ["safety"]);
        assert_eq!(table.empty_scores, 1);
        assert_eq!(table.criterion_cells(0), 0..2);
    }

    #[test]
    fn lengths_fall_into_quartile_buckets() {
        let mut text = "item,system,score,len\n".to_owned();
        for (i, len) in [10, 20, 30, 40, 50, 60, 70, 80].iter().enumerate() {
            text.push_str(&format!("q{i},A,1,{len}\n"));
        }
        text.push_str("q9,A,1,\n");
        let table = TableParams {
            length: Some("len".to_owned()),
            ..TableParams::default()
        }
        .parse("s.csv", text.as_bytes())
        .unwrap();
        let column = &table.slices[0];
        // numpy.quantile([10..80], [.25, .5, .75]) = 27.5, 45, 62.5
        assert_eq!(
            column.values,
            ["≤ 27.5", "27.5–45", "45–62.5", "> 62.5", "(no length)"]
        );
        // Items sort as q0, q1, …, q9.
        assert_eq!(column.value_of_cell, [0, 0, 1, 1, 2, 2, 3, 3, 4]);
    }
}
