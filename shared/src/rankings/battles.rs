//! Battles: pairwise verdicts between models, and their CSV schemas.
//!
//! Two layouts are accepted, recognised by the header row (extra columns are ignored):
//!
//! | layout  | model columns          | `winner` values                       |
//! |---------|------------------------|---------------------------------------|
//! | arena   | `model_a`, `model_b`   | `model_a`, `model_b`, `tie`, `tie (bothbad)` |
//! | LLMFAO  | `left`, `right`        | `left`, `right`, `tie`                |
//!
//! Each row becomes a [`Battle`] with target `y` ∈ {0, ½, 1}: the share of the win that goes to
//! model *a* (the `model_a` / `left` side). Errors name the source, line, column and field, and
//! say what was expected.

use crate::io::csv_row::{csv_error, find_unique, read_header, with_separator_hint};
use crate::io::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One verdict: model `a` against model `b` with target `y` (1: a wins, 0: b wins, ½: tie).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Battle {
    pub a: usize,
    pub b: usize,
    pub y: f64,
}

/// The accepted CSV layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    Arena,
    Llmfao,
}

impl Layout {
    fn columns(self) -> (&'static str, &'static str) {
        match self {
            Self::Arena => ("model_a", "model_b"),
            Self::Llmfao => ("left", "right"),
        }
    }

    pub(crate) fn target(self, winner: &str) -> Option<f64> {
        let (a, b) = self.columns();
        match winner.trim() {
            w if w == a => Some(1.0),
            w if w == b => Some(0.0),
            "tie" => Some(0.5),
            "tie (bothbad)" if self == Self::Arena => Some(0.5),
            _ => None,
        }
    }

    pub(crate) fn expected_winners(self) -> &'static str {
        match self {
            Self::Arena => "`model_a`, `model_b`, `tie` or `tie (bothbad)`",
            Self::Llmfao => "`left`, `right` or `tie`",
        }
    }
}

/// A set of battles over named models. Models are numbered in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Battles {
    pub models: Vec<String>,
    pub battles: Vec<Battle>,
}

impl Battles {
    /// Builds battles from `(model_a, model_b, y)` triples, numbering models as they appear.
    pub fn from_named<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str, f64)>) -> Self {
        let mut index = ModelIndex::default();
        let battles = rows
            .into_iter()
            .map(|(a, b, y)| Battle {
                a: index.id(a),
                b: index.id(b),
                y,
            })
            .collect();
        Self {
            models: index.names,
            battles,
        }
    }

    pub fn n_models(&self) -> usize {
        self.models.len()
    }

    pub fn n_ties(&self) -> usize {
        self.battles.iter().filter(|b| b.y == 0.5).count()
    }
}

/// Numbers names (models, prompts) in order of first appearance.
#[derive(Default)]
pub(crate) struct ModelIndex {
    pub(crate) names: Vec<String>,
    ids: HashMap<String, usize>,
}

impl ModelIndex {
    pub(crate) fn id(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len();
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

/// Parses a battles CSV.
///
/// `source` names the input in error messages (a path or an uploaded file's name).
///
/// # Errors
/// [`Error::Input`] with the line, column and field for: an empty input, a header without a
/// recognised layout (saying so when it looks semicolon- or tab-separated), an ambiguous header
/// (both `model_a`/`model_b` and `left`/`right`, or a column it reads named twice), a quoted
/// field that is never closed (where it begins), a row with the wrong number of fields, invalid
/// UTF-8, an empty model name, a model against itself, or an unknown `winner` value;
/// [`Error::Insufficient`] when the file holds a header but no battles. Lines are those an
/// editor shows, whatever the line endings (`\r\n` included).
pub fn parse_battles(source: &str, bytes: &[u8]) -> Result<Battles> {
    parse(source, bytes, &[]).map(|(battles, _)| battles)
}

/// Parses a battles CSV and also returns, per battle, the value of the extra column `column`
/// (a join key such as LLMFAO's pair `id`, or a cluster such as `prompt`).
///
/// # Errors
/// Those of [`parse_battles`], and [`Error::Input`] at line 1 when the header lacks `column`,
/// or at the cell when a value is empty.
pub fn parse_battles_with_column(
    source: &str,
    bytes: &[u8],
    column: &str,
) -> Result<(Battles, Vec<String>)> {
    let (battles, cells) = parse(source, bytes, &[column])?;
    Ok((
        battles,
        cells
            .into_iter()
            .map(|mut row| row.pop().map(|c| c.value).unwrap_or_default())
            .collect(),
    ))
}

/// A cell of an extra column: its value and where it is (for errors about its content).
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub value: String,
    pub location: Location,
}

/// Parses a battles CSV and also returns, per battle, its cells of the extra `columns` in that
/// order (features, join keys).
///
/// # Errors
/// Those of [`parse_battles`], and [`Error::Input`] at line 1 when the header lacks a column,
/// or at the cell when a value is empty.
pub fn parse_battles_with_columns(
    source: &str,
    bytes: &[u8],
    columns: &[&str],
) -> Result<(Battles, Vec<Vec<Cell>>)> {
    parse(source, bytes, columns)
}

fn parse(source: &str, bytes: &[u8], extra: &[&str]) -> Result<(Battles, Vec<Vec<Cell>>)> {
    let (mut reader, headers) = read_header(
        source,
        bytes,
        "`model_a,model_b,winner` or `left,right,winner`",
    )?;
    let found = || headers.iter().collect::<Vec<_>>().join(",");
    let find = |name: &str| find_unique(source, &headers, name);
    let layout = match (
        find("model_a")?,
        find("model_b")?,
        find("left")?,
        find("right")?,
    ) {
        (Some(_), Some(_), Some(_), Some(_)) => {
            return Err(Error::input(
                Location::line(source, 1),
                format!(
                    "the header has both `model_a`/`model_b` (arena layout) and `left`/`right` \
                     (LLMFAO layout): expected one pair of model columns, found `{}`; rename or \
                     delete the pair that does not name the two sides",
                    found()
                ),
            ))
        }
        (Some(_), Some(_), _, _) => Layout::Arena,
        (_, _, Some(_), Some(_)) => Layout::Llmfao,
        _ => {
            return Err(Error::input(
                Location::line(source, 1),
                with_separator_hint(
                    format!(
                        "header has no model columns: expected `model_a,model_b,winner` or \
                         `left,right,winner`, found `{}`",
                        found()
                    ),
                    &headers,
                ),
            ))
        }
    };
    let (col_a, col_b) = layout.columns();
    let (ia, ib) = (find(col_a)?, find(col_b)?);
    let iw = find("winner")?.ok_or_else(|| {
        Error::input(
            Location::line(source, 1),
            format!(
                "header has no `winner` column (layout with `{col_a}`/`{col_b}`): the file's \
                 columns are `{}`",
                found()
            ),
        )
    })?;
    let (Some(ia), Some(ib)) = (ia, ib) else {
        return Err(Error::input(
            Location::line(source, 1),
            format!(
                "header lacks `{col_a}` or `{col_b}`: the file's columns are `{}`",
                found()
            ),
        ));
    };

    let ix = extra
        .iter()
        .map(|&name| {
            find(name)?.map(|i| (i, name)).ok_or_else(|| {
                Error::input(
                    Location::line(source, 1),
                    format!(
                        "header has no `{name}` column: the file's columns are `{}`",
                        found()
                    ),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let mut index = ModelIndex::default();
    let mut battles = Vec::new();
    let mut extras = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(source, &e))?;
        let line = record.position().map_or(0, csv::Position::line);
        let cell = |i: usize, name: &str| -> Result<&str> {
            let value = record.get(i).unwrap_or("").trim();
            if value.is_empty() {
                Err(Error::input(
                    Location::field(source, line, i + 1, name),
                    "expected a value, found an empty field",
                ))
            } else {
                Ok(value)
            }
        };
        let a = cell(ia, col_a)?;
        let b = cell(ib, col_b)?;
        let winner = cell(iw, "winner")?;
        let y = layout.target(winner).ok_or_else(|| {
            Error::input(
                Location::field(source, line, iw + 1, "winner"),
                format!("expected {}, found `{winner}`", layout.expected_winners()),
            )
        })?;
        if a == b {
            return Err(Error::input(
                Location::field(source, line, ib + 1, col_b),
                format!("a model cannot battle itself: both sides are `{a}`"),
            ));
        }
        if !ix.is_empty() {
            extras.push(
                ix.iter()
                    .map(|&(i, name)| {
                        Ok(Cell {
                            value: cell(i, name)?.to_owned(),
                            location: Location::field(source, line, i + 1, name),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        battles.push(Battle {
            a: index.id(a),
            b: index.id(b),
            y,
        });
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: the file has a header but no battles"
        )));
    }
    Ok((
        Battles {
            models: index.names,
            battles,
        },
        extras,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input_error(text: &str) -> (Location, String) {
        match parse_battles("t.csv", text.as_bytes()) {
            Err(Error::Input { location, message }) => (location, message),
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn arena_layout_targets() {
        let b = parse_battles(
            "t.csv",
            b"model_a,model_b,winner\nx,y,model_a\ny,z,model_b\nx,z,tie\nz,x,tie (bothbad)\n",
        )
        .unwrap();
        assert_eq!(b.models, ["x", "y", "z"]);
        let ys: Vec<f64> = b.battles.iter().map(|b| b.y).collect();
        assert_eq!(ys, [1.0, 0.0, 0.5, 0.5]);
        assert_eq!((b.battles[1].a, b.battles[1].b), (1, 2));
        assert_eq!(b.n_ties(), 2);
    }

    #[test]
    fn llmfao_layout_ignores_extra_columns() {
        let text = "id,prompt,model_x,model_y,worker,winner,left,right\n\
                    0,8,97,98,58,tie,A,B\n0,8,97,98,14,right,A,B\n1,8,1,2,3,left,C,A\n";
        let b = parse_battles("t.csv", text.as_bytes()).unwrap();
        assert_eq!(b.models, ["A", "B", "C"]);
        let ys: Vec<f64> = b.battles.iter().map(|b| b.y).collect();
        assert_eq!(ys, [0.5, 0.0, 1.0]);
    }

    #[test]
    fn unknown_winner_is_located() {
        let (loc, msg) = input_error("left,right,winner\nA,B,left\nA,B,draw\n");
        assert_eq!(loc, Location::field("t.csv", 3, 3, "winner"));
        assert!(msg.contains("found `draw`"), "{msg}");
        assert!(msg.contains("`left`, `right` or `tie`"), "{msg}");
    }

    #[test]
    fn empty_model_and_self_battle_are_located() {
        let (loc, _) = input_error("model_a,model_b,winner\n,B,tie\n");
        assert_eq!(loc, Location::field("t.csv", 2, 1, "model_a"));
        let (loc, msg) = input_error("model_a,model_b,winner\nA,A,tie\n");
        assert_eq!(loc, Location::field("t.csv", 2, 2, "model_b"));
        assert!(msg.contains("itself"));
    }

    #[test]
    fn ragged_row_header_and_empty_file() {
        let (loc, msg) = input_error("left,right,winner\nA,B,left\nA,B\n");
        assert_eq!(loc.line, 3);
        assert!(msg.contains("expected 3 fields"), "{msg}");
        let (loc, msg) = input_error("a,b,c\n1,2,3\n");
        assert_eq!(loc.line, 1);
        assert!(msg.contains("model_a,model_b,winner"), "{msg}");
        let (loc, msg) = input_error("");
        assert_eq!(loc.line, 1);
        assert!(msg.contains("empty"), "{msg}");
        assert!(matches!(
            parse_battles("t.csv", b"left,right,winner\n"),
            Err(Error::Insufficient(_))
        ));
    }

    #[test]
    fn extra_column_is_returned_per_battle_and_required() {
        let text = "id,left,right,winner\n7,A,B,left\n9,B,C,tie\n";
        let (b, ids) = parse_battles_with_column("t.csv", text.as_bytes(), "id").unwrap();
        assert_eq!(b.battles.len(), 2);
        assert_eq!(ids, ["7", "9"]);
        match parse_battles_with_column("t.csv", text.as_bytes(), "prompt") {
            Err(Error::Input { location, message }) => {
                assert_eq!(location.line, 1);
                assert!(message.contains("`prompt`"));
            }
            other => panic!("{other:?}"),
        }
        match parse_battles_with_column("t.csv", b"id,left,right,winner\n,A,B,left\n", "id") {
            Err(Error::Input { location, .. }) => {
                assert_eq!(location, Location::field("t.csv", 2, 1, "id"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_utf8_is_located() {
        match parse_battles("t.csv", b"left,right,winner\nA,B\xff,left\n") {
            Err(Error::Input { location, message }) => {
                assert_eq!((location.line, location.column), (2, Some(2)));
                assert!(message.contains("UTF-8"));
            }
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn crlf_errors_name_the_same_line_as_lf() {
        let lf = "left,right,winner\nA,B,left\nA,C,tie\nB,C,maybe\n";
        let crlf = lf.replace('\n', "\r\n");
        let cr = lf.replace('\n', "\r");
        for text in [lf, &crlf, &cr] {
            let (loc, msg) = input_error(text);
            assert_eq!(loc, Location::field("t.csv", 4, 3, "winner"), "{text:?}");
            assert!(msg.contains("found `maybe`"), "{msg}");
        }
        for (text, line) in [
            ("left,right,winner\r\nA,B,left\r\nA,C\r\n", 3),
            ("left,right,winner\r\nA,B,left\r\nA,C,tie\r\nA,A,tie\r\n", 4),
            ("left,right,winner\r\n\"A\r\nX\",B,left\r\nA,A,tie\r\n", 4),
        ] {
            let (loc, _) = input_error(text);
            assert_eq!(loc.line, line, "{text:?}");
        }
        let bad_utf8 = b"left,right,winner\r\nA,B,left\r\nA,B\xff,tie\r\n";
        match parse_battles("t.csv", bad_utf8) {
            Err(Error::Input { location, .. }) => assert_eq!(location.line, 3),
            other => panic!("{other:?}"),
        }
        // Excel's "CSV UTF-8" starts with a byte-order mark.
        let b = parse_battles(
            "t.csv",
            "\u{feff}left,right,winner\r\nA,B,left\r\n".as_bytes(),
        );
        assert_eq!(b.unwrap().models, ["A", "B"]);
    }

    #[test]
    fn an_unterminated_quote_is_named_where_the_field_began() {
        let (loc, msg) = input_error("left,right,winner\nA,B,left\nA,\"B,left\nC,D,tie\n");
        assert_eq!(loc, Location::field("t.csv", 3, 2, "right"));
        assert_eq!(
            msg,
            "a quoted field begins here and is never closed: expected a closing `\"` before the \
             end of the file, found none (a `\"` inside a quoted field is written `\"\"`)"
        );
        let crlf = "left,right,winner\r\nA,B,left\r\nA,\"B,left\r\nC,D,tie\r\n";
        assert_eq!(input_error(crlf).0, loc);
        // A quoted field over several lines is read, and later lines keep their numbers.
        let (loc, _) = input_error("left,right,winner\r\n\"A\r\nA\",B,left\r\nA,B,draw\r\n");
        assert_eq!(loc, Location::field("t.csv", 4, 3, "winner"));
    }

    #[test]
    fn semicolon_and_tab_separated_headers_say_so() {
        let (loc, msg) = input_error("model_a;model_b;winner\nA;B;model_a\n");
        assert_eq!(loc, Location::line("t.csv", 1));
        assert_eq!(
            msg,
            "the header looks semicolon-separated (found `model_a;model_b;winner`): Tribunal \
             reads comma-separated files; save or export the file with `,` as the separator"
        );
        let (_, msg) = input_error("left\tright\twinner\nA\tB\tleft\n");
        assert!(msg.contains("looks tab-separated"), "{msg}");
        // A missing column in a header with separators inside its fields says so too.
        let (_, msg) = input_error("id;left,right;winner\n1;A,B;left\n");
        assert!(msg.contains("header has no model columns"), "{msg}");
        assert!(msg.contains("looks semicolon-separated"), "{msg}");
    }

    #[test]
    fn ambiguous_headers_are_errors() {
        let (loc, msg) = input_error("model_a,model_b,left,right,winner\nA,B,A,B,left\n");
        assert_eq!(loc, Location::line("t.csv", 1));
        assert!(
            msg.starts_with(
                "the header has both `model_a`/`model_b` (arena layout) and `left`/`right` \
                 (LLMFAO layout): expected one pair of model columns"
            ),
            "{msg}"
        );
        let (loc, msg) = input_error("model_a,model_b,winner,model_a\nA,B,model_a,C\n");
        assert_eq!(loc, Location::field("t.csv", 1, 4, "model_a"));
        assert!(
            msg.contains("appears twice in the header (columns 1 and 4)"),
            "{msg}"
        );
        let (loc, _) = input_error("winner,left,right,winner\nleft,A,B,tie\n");
        assert_eq!(loc, Location::field("t.csv", 1, 4, "winner"));
        match parse_battles_with_column("t.csv", b"id,left,right,winner,id\n1,A,B,tie,2\n", "id") {
            Err(Error::Input { location, .. }) => {
                assert_eq!(location, Location::field("t.csv", 1, 5, "id"))
            }
            other => panic!("{other:?}"),
        }
        // Columns the parser does not read may repeat, and one model pair with half of the
        // other is not ambiguous.
        parse_battles("t.csv", b"x,left,right,winner,x\n1,A,B,tie,2\n").unwrap();
        parse_battles("t.csv", b"model_a,model_b,left,winner\nA,B,x,model_a\n").unwrap();
    }
}
