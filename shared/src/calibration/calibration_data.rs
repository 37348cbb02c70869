//! Calibration files: the rows a quantitative-judge head trains or is tested on (seed 000 §4,
//! App. C.1), one CSV per head kind. The header names the columns (order is free, extra columns
//! are ignored):
//!
//! | head   | columns                                          | values |
//! |--------|--------------------------------------------------|--------|
//! | `ls`   | `embedding`, `score`, `human`                    | the judge's score b and the human score |
//! | `mn`   | `embedding`, `p_<class>` …, `human`              | one `p_` column per class (`p_1` … `p_5`): the judge's probability of that class, in [0, 1]; `human`: one of the classes |
//! | `btl`  | `embedding`, `p`, `human`                        | the relative judge's probability that the first response is preferred, in [0, 1]; `human` in [0, 1] (1: first preferred, ½: tie) |
//! | `btl2` | `embedding_1`, `embedding_2`, `score_1`, `score_2`, `human` | the absolute judge's scores b > 0 of the two responses; `human` as for `btl` |
//! | `pl`   | `list`, `rank`, `embedding`, `score`             | rows sharing `list` form one list of ≥ 2 responses, ordered by the human `rank` (1 = best, no repeats); `score` b > 0 |
//!
//! An embedding φ(e) is a cell of space-separated numbers. All embeddings of a file have one
//! dimension; a test file must have the training file's (`expected_dim`).
//!
//! Arguments: the input's name (for messages), its bytes, the head kind and the expected
//! embedding dimension, if any. Returns: [`CalibrationData`]. Errors: [`Error::Input`] naming the
//! source, line, column and field, with what was expected and what was found, for a missing
//! column, a ragged row, invalid UTF-8, an empty or non-numeric cell, an embedding of the wrong
//! dimension, a probability or target outside [0, 1], a score ≤ 0 where the head takes logs, a
//! human class not among the `p_` columns, a repeated rank or a list of one response;
//! [`Error::Insufficient`] for a header without rows.

use crate::calibration::btl2_head::Btl2Data;
use crate::calibration::btl_head::BtlData;
use crate::calibration::head::Rows;
use crate::calibration::ls_head::LsData;
use crate::calibration::mn_head::MnData;
use crate::calibration::plackett_luce_head::{PlackettLuceData, RankedList};
use crate::io::csv_row::csv_error;
use crate::io::csv_row::{read_header, Row};
use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The head a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadKind {
    /// Least squares on a numeric score (seed 000 Eq. 1).
    Ls,
    /// Multinomial over score classes (Eq. 2).
    Mn,
    /// Bradley–Terry–Luce on a relative judge's preference probability (Eq. 3).
    Btl,
    /// BTL on two absolute judgements (§4.4).
    Btl2,
    /// K-way BTL2 trained with the Plackett–Luce likelihood (App. C.1).
    PlackettLuce,
}

impl std::str::FromStr for HeadKind {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "ls" => Ok(Self::Ls),
            "mn" => Ok(Self::Mn),
            "btl" => Ok(Self::Btl),
            "btl2" => Ok(Self::Btl2),
            "pl" | "plackett_luce" => Ok(Self::PlackettLuce),
            _ => Err(format!(
                "expected a head kind `ls`, `mn`, `btl`, `btl2` or `pl`, found `{s}`"
            )),
        }
    }
}

impl HeadKind {
    /// The columns a file for this head must have (`p_<class>` stands for one per class).
    pub fn columns(self) -> &'static str {
        match self {
            Self::Ls => "`embedding`, `score`, `human`",
            Self::Mn => "`embedding`, `p_<class>` (one per class), `human`",
            Self::Btl => "`embedding`, `p`, `human`",
            Self::Btl2 => "`embedding_1`, `embedding_2`, `score_1`, `score_2`, `human`",
            Self::PlackettLuce => "`list`, `rank`, `embedding`, `score`",
        }
    }
}

/// The rows of one calibration file, as the head of its kind takes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CalibrationData {
    Ls(LsData),
    Mn(MnData),
    Btl(BtlData),
    Btl2(Btl2Data),
    PlackettLuce(PlackettLuceData),
}

impl CalibrationData {
    /// The head kind.
    pub fn kind(&self) -> HeadKind {
        match self {
            Self::Ls(_) => HeadKind::Ls,
            Self::Mn(_) => HeadKind::Mn,
            Self::Btl(_) => HeadKind::Btl,
            Self::Btl2(_) => HeadKind::Btl2,
            Self::PlackettLuce(_) => HeadKind::PlackettLuce,
        }
    }

    /// Rows (lists for Plackett–Luce).
    pub fn len(&self) -> usize {
        match self {
            Self::Ls(d) => d.len(),
            Self::Mn(d) => d.len(),
            Self::Btl(d) => d.len(),
            Self::Btl2(d) => d.len(),
            Self::PlackettLuce(d) => d.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows (lists) at `idx`, in that order.
    pub fn select(&self, idx: &[usize]) -> Self {
        match self {
            Self::Ls(d) => Self::Ls(d.select(idx)),
            Self::Mn(d) => Self::Mn(d.select(idx)),
            Self::Btl(d) => Self::Btl(d.select(idx)),
            Self::Btl2(d) => Self::Btl2(d.select(idx)),
            Self::PlackettLuce(d) => Self::PlackettLuce(d.select(idx)),
        }
    }

    /// The embedding dimension (every parsed file has at least one row).
    pub fn dim(&self) -> usize {
        let first = match self {
            Self::Ls(d) => d.embeddings.first(),
            Self::Mn(d) => d.embeddings.first(),
            Self::Btl(d) => d.embeddings.first(),
            Self::Btl2(d) => d.first_embeddings.first(),
            Self::PlackettLuce(d) => d.lists.first().and_then(|l| l.embeddings.first()),
        };
        first.map_or(0, Vec::len)
    }
}

/// Column positions, found by header name.
struct Header<'h> {
    source: &'h str,
    headers: &'h csv::StringRecord,
}

impl Header<'_> {
    fn find(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h.trim() == name)
    }

    fn require(&self, name: &str, kind: HeadKind) -> Result<usize> {
        self.find(name).ok_or_else(|| {
            Error::input(
                Location::line(self.source, 1),
                format!(
                    "header lacks `{name}`: a `{}` file needs {}, found `{}`",
                    kind_name(kind),
                    kind.columns(),
                    self.headers.iter().collect::<Vec<_>>().join(",")
                ),
            )
        })
    }

    /// The `p_<class>` columns, sorted by class.
    fn class_columns(&self) -> Result<Vec<(i64, usize)>> {
        let mut classes = Vec::new();
        for (i, h) in self.headers.iter().enumerate() {
            if let Some(class) = h.trim().strip_prefix("p_") {
                let class = class.parse::<i64>().map_err(|_| {
                    Error::input(
                        Location::field(self.source, 1, i + 1, h.trim()),
                        format!("expected `p_` followed by an integer class, found `{h}`"),
                    )
                })?;
                classes.push((class, i));
            }
        }
        classes.sort_unstable();
        if classes.len() < 2 || classes.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(Error::input(
                Location::line(self.source, 1),
                format!(
                    "expected at least two distinct `p_<class>` columns (e.g. `p_1` … `p_5`), \
                     found {}",
                    classes.len()
                ),
            ));
        }
        Ok(classes)
    }
}

fn kind_name(kind: HeadKind) -> &'static str {
    match kind {
        HeadKind::Ls => "ls",
        HeadKind::Mn => "mn",
        HeadKind::Btl => "btl",
        HeadKind::Btl2 => "btl2",
        HeadKind::PlackettLuce => "pl",
    }
}

/// Embeddings must share a dimension: the expected one, or the first row's. They come from a
/// column, or from an embedding file (`external`: its name and rows, row k for data row k).
struct Dimension<'x> {
    expected: Option<(usize, String)>,
    external: Option<(&'x str, &'x [Vec<f64>])>,
}

impl Dimension<'_> {
    /// The embedding of data row `k` (`row`), from column `i` or the embedding file.
    fn embedding(&mut self, row: &Row, i: usize, name: &str, k: usize) -> Result<Vec<f64>> {
        let values = match self.external {
            Some((source, rows)) => rows.get(k).cloned().ok_or_else(|| {
                Error::input(
                    Location::byte(source, 0, "header"),
                    format!(
                        "expected an embedding row for every data row of {}, found {} rows",
                        row.source,
                        rows.len()
                    ),
                )
            })?,
            None => parse_embedding(row, i, name)?,
        };
        let origin = |d: usize| match self.external {
            Some((source, _)) => Error::input(
                Location::byte(source, 0, "header"),
                format!("expected embeddings of {d} numbers, found {}", values.len()),
            ),
            None => row.error(
                i,
                name,
                format!(
                    "expected an embedding of {d} numbers, found {}",
                    values.len()
                ),
            ),
        };
        match &self.expected {
            Some((d, why)) if values.len() != *d => Err(match origin(*d) {
                Error::Input { location, message } => Error::Input {
                    location,
                    message: message.replacen(" numbers", &format!(" numbers ({why})"), 1),
                },
                other => other,
            }),
            Some(_) => Ok(values),
            None => {
                self.expected = Some((values.len(), format!("as on line {}", row.line)));
                Ok(values)
            }
        }
    }
}

/// An embedding cell: space-separated finite numbers (an error at the cell otherwise).
pub(crate) fn parse_embedding(row: &Row, i: usize, name: &str) -> Result<Vec<f64>> {
    let text = row.required(i, name)?;
    text.split_whitespace()
        .enumerate()
        .map(|(k, v)| match v.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(row.error(
                i,
                name,
                format!(
                    "expected space-separated finite numbers, found `{v}` as number {}",
                    k + 1
                ),
            )),
        })
        .collect()
}

/// One response of a ranked list, as read.
struct Response {
    rank: u64,
    embedding: Vec<f64>,
    score: f64,
}

fn unit_interval(row: &Row, i: usize, name: &str) -> Result<f64> {
    let x = row.number(i, name)?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(row.error(i, name, format!("expected a value in [0, 1], found {x}")))
    }
}

fn positive(row: &Row, i: usize, name: &str) -> Result<f64> {
    let x = row.number(i, name)?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err(row.error(
            i,
            name,
            format!("expected a score > 0 (the head takes its log), found {x}"),
        ))
    }
}

/// Parses a calibration CSV for a `kind` head (see the module documentation for the columns).
/// `expected_dim` (the training embeddings' dimension, for a test file) fixes the embedding
/// dimension; otherwise the first row's does.
///
/// # Errors
/// See the module documentation.
pub fn parse_calibration(
    source: &str,
    bytes: &[u8],
    kind: HeadKind,
    expected_dim: Option<usize>,
) -> Result<CalibrationData> {
    parse(source, bytes, kind, expected_dim, None)
}

/// As [`parse_calibration`], with the embeddings from an embedding file
/// ([`crate::io::embedding_file`]) instead of the `embedding` column: `embeddings` is the file's
/// name and rows, row k for data row k. For the `ls`, `mn` and `btl` heads.
///
/// # Errors
/// Those of [`parse_calibration`]; [`Error::InvalidParam`] for another head;
/// [`Error::Input`] at the embedding file when its row count or dimension does not fit.
pub fn parse_calibration_with_embeddings(
    source: &str,
    bytes: &[u8],
    kind: HeadKind,
    expected_dim: Option<usize>,
    embeddings: (&str, &[Vec<f64>]),
) -> Result<CalibrationData> {
    if !matches!(kind, HeadKind::Ls | HeadKind::Mn | HeadKind::Btl) {
        return Err(Error::param(
            "embeddings",
            "embedding files serve the ls, mn and btl heads; btl2 and pl read their embedding \
             columns",
        ));
    }
    parse(source, bytes, kind, expected_dim, Some(embeddings))
}

fn parse(
    source: &str,
    bytes: &[u8],
    kind: HeadKind,
    expected_dim: Option<usize>,
    external: Option<(&str, &[Vec<f64>])>,
) -> Result<CalibrationData> {
    let (mut reader, headers) = read_header(source, bytes, kind.columns())?;
    let header = Header {
        source,
        headers: &headers,
    };
    let mut dim = Dimension {
        expected: expected_dim.map(|d| (d, "as in the training file".to_owned())),
        external,
    };
    let records = reader
        .records()
        .map(|r| r.map_err(|e| csv_error(source, &e)))
        .collect::<Result<Vec<_>>>()?;
    if records.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: the file has a header but no rows"
        )));
    }
    if let Some((file, rows)) = external {
        if rows.len() != records.len() {
            return Err(Error::input(
                Location::byte(file, 0, "header"),
                format!(
                    "expected {} embedding rows, one per data row of {source}, found {}",
                    records.len(),
                    rows.len()
                ),
            ));
        }
    }
    let embedding_column = || match external {
        Some(_) => Ok(0),
        None => header.require("embedding", kind),
    };
    let rows = records.iter().map(|r| Row::new(source, r)).enumerate();
    Ok(match kind {
        HeadKind::Ls => {
            let (e, s, h) = (
                embedding_column()?,
                header.require("score", kind)?,
                header.require("human", kind)?,
            );
            let mut data = LsData {
                embeddings: Vec::new(),
                scores: Vec::new(),
                labels: Vec::new(),
            };
            for (k, row) in rows {
                data.embeddings
                    .push(dim.embedding(&row, e, "embedding", k)?);
                data.scores.push(row.number(s, "score")?);
                data.labels.push(row.number(h, "human")?);
            }
            CalibrationData::Ls(data)
        }
        HeadKind::Mn => {
            let (e, h) = (embedding_column()?, header.require("human", kind)?);
            let columns = header.class_columns()?;
            let classes: Vec<i64> = columns.iter().map(|c| c.0).collect();
            let listed = classes
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let mut data = MnData {
                classes: classes.clone(),
                embeddings: Vec::new(),
                probabilities: Vec::new(),
                labels: Vec::new(),
            };
            for (k, row) in rows {
                data.embeddings
                    .push(dim.embedding(&row, e, "embedding", k)?);
                data.probabilities.push(
                    columns
                        .iter()
                        .map(|&(_, i)| unit_interval(&row, i, headers[i].trim()))
                        .collect::<Result<Vec<f64>>>()?,
                );
                let text = row.required(h, "human")?;
                match text.parse::<i64>() {
                    Ok(c) if classes.contains(&c) => data.labels.push(c),
                    _ => {
                        return Err(row.error(
                            h,
                            "human",
                            format!("expected one of the classes {listed}, found `{text}`"),
                        ))
                    }
                }
            }
            CalibrationData::Mn(data)
        }
        HeadKind::Btl => {
            let (e, p, h) = (
                embedding_column()?,
                header.require("p", kind)?,
                header.require("human", kind)?,
            );
            let mut data = BtlData {
                embeddings: Vec::new(),
                probabilities: Vec::new(),
                labels: Vec::new(),
            };
            for (k, row) in rows {
                data.embeddings
                    .push(dim.embedding(&row, e, "embedding", k)?);
                data.probabilities.push(unit_interval(&row, p, "p")?);
                data.labels.push(unit_interval(&row, h, "human")?);
            }
            CalibrationData::Btl(data)
        }
        HeadKind::Btl2 => {
            let (e1, e2, s1, s2, h) = (
                header.require("embedding_1", kind)?,
                header.require("embedding_2", kind)?,
                header.require("score_1", kind)?,
                header.require("score_2", kind)?,
                header.require("human", kind)?,
            );
            let mut data = Btl2Data {
                first_embeddings: Vec::new(),
                second_embeddings: Vec::new(),
                first_scores: Vec::new(),
                second_scores: Vec::new(),
                labels: Vec::new(),
            };
            for (k, row) in rows {
                data.first_embeddings
                    .push(dim.embedding(&row, e1, "embedding_1", k)?);
                data.second_embeddings
                    .push(dim.embedding(&row, e2, "embedding_2", k)?);
                data.first_scores.push(positive(&row, s1, "score_1")?);
                data.second_scores.push(positive(&row, s2, "score_2")?);
                data.labels.push(unit_interval(&row, h, "human")?);
            }
            CalibrationData::Btl2(data)
        }
        HeadKind::PlackettLuce => {
            let (l, r, e, s) = (
                header.require("list", kind)?,
                header.require("rank", kind)?,
                header.require("embedding", kind)?,
                header.require("score", kind)?,
            );
            // Per list, in order of first appearance: its first line and its responses.
            let mut index: HashMap<&str, usize> = HashMap::new();
            let mut lists: Vec<(u64, Vec<Response>)> = Vec::new();
            for (k, row) in rows {
                let id = row.required(l, "list")?;
                let text = row.required(r, "rank")?;
                let rank = text
                    .parse::<u64>()
                    .ok()
                    .filter(|&k| k >= 1)
                    .ok_or_else(|| {
                        row.error(
                            r,
                            "rank",
                            format!("expected a rank 1, 2, …, found `{text}`"),
                        )
                    })?;
                let embedding = dim.embedding(&row, e, "embedding", k)?;
                let score = positive(&row, s, "score")?;
                let k = *index.entry(id).or_insert_with(|| {
                    lists.push((row.line, Vec::new()));
                    lists.len() - 1
                });
                if lists[k].1.iter().any(|m| m.rank == rank) {
                    return Err(row.error(
                        r,
                        "rank",
                        format!("expected each rank once per list, found rank {rank} of list `{id}` again"),
                    ));
                }
                lists[k].1.push(Response {
                    rank,
                    embedding,
                    score,
                });
            }
            let mut data = PlackettLuceData { lists: Vec::new() };
            for (line, mut members) in lists {
                if members.len() < 2 {
                    return Err(Error::input(
                        Location::field(source, line, l + 1, "list"),
                        "expected a list of at least 2 responses, found 1",
                    ));
                }
                members.sort_by_key(|m| m.rank);
                let (embeddings, scores) =
                    members.into_iter().map(|m| (m.embedding, m.score)).unzip();
                data.lists.push(RankedList { embeddings, scores });
            }
            CalibrationData::PlackettLuce(data)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str, kind: HeadKind, dim: Option<usize>) -> String {
        parse_calibration("f.csv", text.as_bytes(), kind, dim)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn each_kind_reads_its_columns() {
        let ls = parse_calibration(
            "f.csv",
            b"human,extra,score,embedding\n4,x,3.5,0.1 0.2\n2,y,1,-1 2e-1\n",
            HeadKind::Ls,
            None,
        )
        .unwrap();
        assert_eq!(
            ls,
            CalibrationData::Ls(LsData {
                embeddings: vec![vec![0.1, 0.2], vec![-1.0, 0.2]],
                scores: vec![3.5, 1.0],
                labels: vec![4.0, 2.0],
            })
        );
        let CalibrationData::Mn(mn) = parse_calibration(
            "f.csv",
            b"embedding,p_3,p_1,p_2,human\n1 2,0.5,0.25,0.25,3\n",
            HeadKind::Mn,
            None,
        )
        .unwrap() else {
            panic!("mn")
        };
        assert_eq!(mn.classes, [1, 2, 3]);
        assert_eq!(mn.probabilities, [vec![0.25, 0.25, 0.5]]);
        let CalibrationData::PlackettLuce(pl) = parse_calibration(
            "f.csv",
            b"list,rank,embedding,score\na,2,2,2\nb,1,5,5\na,1,1,1\nb,2,6,6\na,3,3,3\n",
            HeadKind::PlackettLuce,
            Some(1),
        )
        .unwrap() else {
            panic!("pl")
        };
        assert_eq!(pl.lists.len(), 2);
        assert_eq!(pl.lists[0].scores, [1.0, 2.0, 3.0]);
        assert_eq!(pl.lists[1].embeddings, [vec![5.0], vec![6.0]]);
    }

    #[test]
    fn bad_cells_are_located() {
        let ls = HeadKind::Ls;
        assert_eq!(
            error("embedding,score,human\n1 2,3,4\n1,3,4\n", ls, None),
            "f.csv, line 3, column 1 (`embedding`): expected an embedding of 2 numbers (as on \
             line 2), found 1"
        );
        assert_eq!(
            error("embedding,score,human\n1 2,3,4\n", ls, Some(3)),
            "f.csv, line 2, column 1 (`embedding`): expected an embedding of 3 numbers (as in \
             the training file), found 2"
        );
        assert_eq!(
            error("embedding,score,human\n1 x,3,4\n", ls, None),
            "f.csv, line 2, column 1 (`embedding`): expected space-separated finite numbers, \
             found `x` as number 2"
        );
        assert!(error("embedding,human\n1,4\n", ls, None)
            .starts_with("f.csv, line 1: header lacks `score`"));
        assert_eq!(
            error("embedding,p_1,p_2,human\n1,0.5,0.5,7\n", HeadKind::Mn, None),
            "f.csv, line 2, column 4 (`human`): expected one of the classes 1, 2, found `7`"
        );
        assert_eq!(
            error("embedding,p,human\n1,1.5,1\n", HeadKind::Btl, None),
            "f.csv, line 2, column 2 (`p`): expected a value in [0, 1], found 1.5"
        );
        assert!(error(
            "embedding_1,embedding_2,score_1,score_2,human\n1,1,0,2,1\n",
            HeadKind::Btl2,
            None
        )
        .starts_with("f.csv, line 2, column 3 (`score_1`): expected a score > 0"));
        assert_eq!(
            error(
                "list,rank,embedding,score\na,1,1,1\nb,1,1,1\nb,2,1,1\n",
                HeadKind::PlackettLuce,
                None
            ),
            "f.csv, line 2, column 1 (`list`): expected a list of at least 2 responses, found 1"
        );
        assert!(error(
            "list,rank,embedding,score\na,1,1,1\na,1,1,1\n",
            HeadKind::PlackettLuce,
            None
        )
        .contains("line 3, column 2 (`rank`): expected each rank once per list"));
        assert!(matches!(
            parse_calibration("f.csv", b"embedding,score,human\n", ls, None),
            Err(Error::Insufficient(_))
        ));
        assert!(error("", ls, None).contains("the file is empty"));
        assert_eq!("pl".parse::<HeadKind>(), Ok(HeadKind::PlackettLuce));
        assert!("svm".parse::<HeadKind>().is_err());
    }
}
