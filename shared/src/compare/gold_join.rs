//! A gold file's human labels joined onto a scores table: people labelled some answers in a
//! file of their own (`item,system[,criterion],human`, the scores file's column names), and
//! each label goes to the answer it names.
//!
//! Model: a gold row labels the (criterion, system, item) cell with the same names — every
//! criterion's cell of that answer when the gold file has no criterion column. A cell labelled
//! by several gold rows takes their mean, as repeated `human` values in the scores file do.
//!
//! Arguments: the table ([`ScoreTable`], from the scores file), the column names
//! ([`ScoreColumns`]), the gold file's name and bytes.
//!
//! Returns: [`GoldJoin`] — the gold rows read, the answers labelled, and the rows that named an
//! answer the scores file does not have (counted, never guessed at).
//!
//! Errors: [`Error::Input`] with source, line, column and field for a header without the item,
//! system and human columns, an empty item or system, a label that is not a finite number, or a
//! label for an answer the scores file already labels in its own `human` column (two sources
//! of gold for one answer); [`Error::Insufficient`] when no gold row names an answer of the
//! scores file (a join that matches nothing: the item or system names differ between the files).

use super::score_table::{ScoreColumns, ScoreTable};
use crate::io::csv_row::{csv_error, header_names, open, with_separator_hint};
use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the join did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldJoin {
    /// Gold rows with a label.
    pub rows: usize,
    /// Answers (criterion, system, item cells) that received a label.
    pub labelled: usize,
    /// Gold rows naming an item, system or criterion the scores file does not have.
    pub unmatched: usize,
}

/// Joins the gold file's labels onto `table` (see the [module documentation](self)).
///
/// # Errors
/// See the [module documentation](self).
pub fn join_gold(
    table: &mut ScoreTable,
    columns: &ScoreColumns,
    source: &str,
    bytes: &[u8],
) -> Result<GoldJoin> {
    let (mut reader, headers) = open(source, bytes)?;
    let names = header_names(
        source,
        &headers,
        &format!(
            "`{}`, `{}` and `{}`",
            columns.item, columns.system, columns.human
        ),
    )?;
    let find = |name: &str| names.iter().position(|h| *h == name);
    let (Some(i_item), Some(i_system), Some(i_human)) = (
        find(&columns.item),
        find(&columns.system),
        find(&columns.human),
    ) else {
        return Err(Error::input(
            Location::line(source, 1),
            with_separator_hint(
                format!(
                    "expected a header with `{}`, `{}` and `{}` (optionally `{}`); the file's \
                     columns are `{}`",
                    columns.item,
                    columns.system,
                    columns.human,
                    columns.criterion,
                    names.join(",")
                ),
                &headers,
            ),
        ));
    };
    let i_criterion = find(&columns.criterion);
    let index = |list: &[String]| -> HashMap<String, u32> {
        list.iter()
            .enumerate()
            .map(|(k, name)| (name.clone(), k as u32))
            .collect()
    };
    let (items, systems, criteria) = (
        index(&table.items),
        index(&table.systems),
        index(&table.criteria),
    );
    let cell_at = |criterion: u32, system: u32, item: u32| {
        table
            .cells
            .binary_search_by_key(&(criterion, system, item), |c| {
                (c.criterion, c.system, c.item)
            })
            .ok()
    };
    // Per labelled cell: the labels' sum and count.
    let mut labels: HashMap<usize, (f64, u32)> = HashMap::new();
    let (mut rows, mut unmatched) = (0usize, 0usize);
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(source, &e))?;
        let line = record.position().map_or(0, csv::Position::line);
        let raw = |i: usize| record.get(i).unwrap_or("").trim();
        let at = |i: usize| Location::field(source, line, i + 1, names[i]);
        let text = raw(i_human);
        if text.is_empty() {
            continue;
        }
        let label = match text.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                return Err(Error::input(
                    at(i_human),
                    format!("expected a human label (a finite number), found `{text}`"),
                ))
            }
        };
        for i in [i_item, i_system] {
            if raw(i).is_empty() {
                return Err(Error::input(
                    at(i),
                    "expected a value, found an empty field",
                ));
            }
        }
        rows += 1;
        let (Some(&item), Some(&system)) = (items.get(raw(i_item)), systems.get(raw(i_system)))
        else {
            unmatched += 1;
            continue;
        };
        let targets: Vec<u32> = match i_criterion.map(raw) {
            Some(name) => match criteria.get(name) {
                Some(&c) => vec![c],
                None => Vec::new(),
            },
            None => (0..table.criteria.len() as u32).collect(),
        };
        let cells: Vec<usize> = targets
            .into_iter()
            .filter_map(|c| cell_at(c, system, item))
            .collect();
        if cells.is_empty() {
            unmatched += 1;
            continue;
        }
        for cell in cells {
            if table.cells[cell].human.is_finite() {
                return Err(Error::input(
                    at(i_human),
                    format!(
                        "the scores file already gives `{}`'s answer to item `{}` a `{}` label: \
                         give each answer's gold in one file",
                        raw(i_system),
                        raw(i_item),
                        columns.human
                    ),
                ));
            }
            let entry = labels.entry(cell).or_insert((0.0, 0));
            entry.0 += label;
            entry.1 += 1;
        }
    }
    if labels.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: none of its {rows} labels names an answer of {} (joined on `{}`, `{}`{}): \
             the item or system names differ between the two files",
            table.source,
            columns.item,
            columns.system,
            i_criterion.map_or(String::new(), |_| format!(" and `{}`", columns.criterion))
        )));
    }
    let labelled = labels.len();
    for (cell, (sum, count)) in labels {
        table.cells[cell].human = sum / f64::from(count);
    }
    Ok(GoldJoin {
        rows,
        labelled,
        unmatched,
    })
}
