//! The vote file: a program committee's votes on pairs, as the programs report writes them and
//! the label-model and routing commands read them.
//!
//! Columns: `id`, then `label` (`a`/`b`/`tie`/empty), `split` (`validation`/`test`),
//! `query_chars` and `response_chars` (lengths for the routing baselines), `posterior`,
//! `majority`, `escalated` and `verdict` (outputs, ignored on reading: the label model's
//! P(`a`), majority vote, whether the pair went to the LLM judge, and the merged verdict), then
//! one column per program holding −1, 0 or +1.
//! Only `id` and at least one program column are required on reading; every column not named
//! above is a program.
//!
//! Errors: [`Error::Input`] at the header (no `id`, no program column), or at the row, column
//! and field of a vote outside {−1, 0, 1}, a bad label, split or length, or a repeated id.

use crate::io::csv_row::{column, read_header, Row};
use crate::io::error::{Error, Location, Result};
use crate::io::first_seen::FirstSeen;
use crate::programs::label_model::VoteMatrix;
use crate::programs::program_pairs::{label, no_rows, unique_id, Preference};
use std::fmt::Write;

const KNOWN: [&str; 9] = [
    "id",
    "label",
    "split",
    "query_chars",
    "response_chars",
    "posterior",
    "majority",
    "escalated",
    "verdict",
];
const HEADER: &str = "`id[,label,split,query_chars,response_chars],<program>…`";

/// A vote file's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct VoteFile {
    pub ids: Vec<String>,
    pub labels: Vec<Option<Preference>>,
    /// Whether each row is in the validation split (false without a `split` column).
    pub validation: Vec<bool>,
    /// Query and response lengths in characters (`None` without their columns).
    pub lengths: Option<(Vec<usize>, Vec<usize>)>,
    pub votes: VoteMatrix,
}

/// Per-row outputs written beside the votes.
#[derive(Debug, Clone, Copy)]
pub struct VoteOutputs<'a> {
    pub posterior: &'a [f64],
    pub majority: &'a [i8],
    pub escalated: &'a [bool],
    /// The merged verdict: +1 `a`, −1 `b`, 0 none.
    pub verdict: &'a [i8],
}

impl VoteFile {
    /// Writes the file with the per-row `outputs`.
    pub fn to_csv(&self, outputs: &VoteOutputs) -> String {
        let mut out = String::from(
            "id,label,split,query_chars,response_chars,posterior,majority,escalated,verdict",
        );
        for p in &self.votes.programs {
            out.push(',');
            out.push_str(p);
        }
        out.push('\n');
        for i in 0..self.ids.len() {
            let (q, r) = self.lengths.as_ref().map_or((0, 0), |(q, r)| (q[i], r[i]));
            let _ = write!(
                out,
                "{},{},{},{q},{r},{},{},{},{}",
                csv_field(&self.ids[i]),
                self.labels[i].map_or("", Preference::as_str),
                if self.validation[i] {
                    "validation"
                } else {
                    "test"
                },
                outputs.posterior[i],
                outputs.majority[i],
                u8::from(outputs.escalated[i]),
                outputs.verdict[i]
            );
            for v in self.votes.row(i) {
                let _ = write!(out, ",{v}");
            }
            out.push('\n');
        }
        out
    }
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Reads a vote file.
pub fn parse_vote_file(source: &str, bytes: &[u8]) -> Result<VoteFile> {
    let (mut reader, headers) = read_header(source, bytes, HEADER)?;
    let id = column(source, &headers, "id", HEADER)?;
    let find = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (label_col, split_col) = (find("label"), find("split"));
    let lengths_cols = find("query_chars").zip(find("response_chars"));
    let programs: Vec<usize> = (0..headers.len())
        .filter(|&c| !KNOWN.contains(&headers[c].trim()))
        .collect();
    if programs.is_empty() {
        return Err(Error::input(
            Location::line(source, 1),
            format!("expected at least one program column (header {HEADER}), found none"),
        ));
    }
    let mut file = VoteFile {
        ids: Vec::new(),
        labels: Vec::new(),
        validation: Vec::new(),
        lengths: lengths_cols.map(|_| (Vec::new(), Vec::new())),
        votes: VoteMatrix {
            programs: programs
                .iter()
                .map(|&c| headers[c].trim().to_owned())
                .collect(),
            items: 0,
            votes: Vec::new(),
        },
    };
    let mut seen = FirstSeen::default();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| crate::io::csv_row::csv_error(source, &e))?
    {
        let row = Row::new(source, &record);
        let ids = &file.ids;
        let unique = unique_id(&row, id, &mut seen, ids.len(), |e| ids[e].as_str())?;
        file.ids.push(unique);
        file.labels
            .push(label_col.map(|c| label(&row, c)).transpose()?.flatten());
        let validation = match split_col.map(|c| (c, row.value(c))) {
            None | Some((_, "test")) => false,
            Some((_, "validation")) => true,
            Some((c, other)) => {
                return Err(row.error(
                    c,
                    "split",
                    format!("expected `validation` or `test`, found `{other}`"),
                ))
            }
        };
        file.validation.push(validation);
        if let (Some((qc, rc)), Some((q, r))) = (lengths_cols, file.lengths.as_mut()) {
            q.push(count(&row, qc, "query_chars")?);
            r.push(count(&row, rc, "response_chars")?);
        }
        for &c in &programs {
            let name = headers[c].trim();
            let vote = match row.value(c) {
                "1" | "+1" => 1,
                "0" => 0,
                "-1" => -1,
                other => {
                    return Err(row.error(
                        c,
                        name,
                        format!("expected a vote -1, 0 or 1, found `{other}`"),
                    ))
                }
            };
            file.votes.votes.push(vote);
        }
        file.votes.items += 1;
    }
    if file.ids.is_empty() {
        return Err(no_rows(source, HEADER));
    }
    Ok(file)
}

fn count(row: &Row, c: usize, name: &str) -> Result<usize> {
    let text = row.required(c, name)?;
    text.parse().map_err(|_| {
        row.error(
            c,
            name,
            format!("expected a count of characters, found `{text}`"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_locates_bad_votes() {
        let file = VoteFile {
            ids: vec!["p,1".into(), "p2".into()],
            labels: vec![Some(Preference::A), None],
            validation: vec![true, false],
            lengths: Some((vec![3, 4], vec![10, 20])),
            votes: VoteMatrix {
                programs: vec!["x".into(), "y".into()],
                items: 2,
                votes: vec![1, -1, 0, 1],
            },
        };
        let text = file.to_csv(&VoteOutputs {
            posterior: &[0.75, 0.5],
            majority: &[0, 1],
            escalated: &[false, true],
            verdict: &[1, -1],
        });
        assert_eq!(
            text,
            "id,label,split,query_chars,response_chars,posterior,majority,escalated,verdict,x,y\n\
             \"p,1\",a,validation,3,10,0.75,0,0,1,1,-1\n\
             p2,,test,4,20,0.5,1,1,-1,0,1\n"
        );
        assert_eq!(parse_vote_file("v.csv", text.as_bytes()).unwrap(), file);
        let err = parse_vote_file("v.csv", b"id,label,x\np1,a,2\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "v.csv, line 2, column 3 (`x`): expected a vote -1, 0 or 1, found `2`"
        );
        let err = parse_vote_file("v.csv", b"id,label\np1,a\n").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("v.csv, line 1: expected at least one program"));
    }
}
