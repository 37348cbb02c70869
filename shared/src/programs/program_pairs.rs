//! The pairs CSV that programmatic judges read, and the verdicts CSV of another judge (the LLM
//! fallback) on the same pairs.
//!
//! Pairs: the judge-run items schema `id,instruction,response,response_b` (so one file serves
//! both a judge run and the programs) with an optional `label` column: `a` (the `response`
//! wins), `b` (`response_b` wins), `tie`, or empty (unlabelled). Responses may be empty: an
//! empty answer is something to judge. Fields may span lines (quoted).
//!
//! Verdicts: `id,label` with the same label values; every id must be one of the pairs'. Or the
//! JSON lines `tribunal judge` writes with a pairwise prompt: per judgment an `id` and a
//! `winner` (`A` = `response`, `B` = `response_b`, in the file's orientation; `null` when the
//! answer did not parse); a pair's verdict is the winner of most of its judgments (orders,
//! repeats), a tie when they split evenly or none parsed.
//!
//! Bias probes (paired rows): `id,bias,variant,instruction,response,response_b,biased` — each
//! probe `id` has one `clean` and one `perturbed` row (`variant`), `bias` names the
//! perturbation (e.g. `rich_content`, `reference`, `gender`, `verbosity`) and `biased` (`a` or
//! `b`, on the perturbed row) says which response was perturbed.
//!
//! Errors: [`Error::Input`] at the header for a missing column, at the row, column and field of
//! an empty id or instruction, an unknown label or a repeated id; an empty file is an error at
//! line 1, a file without rows at line 2.

use crate::io::csv_row::{column, read_header, Row};
use crate::io::error::{Error, Location, Result};
use crate::io::first_seen::FirstSeen;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which response of a pair is preferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preference {
    A,
    B,
    Tie,
}

impl Preference {
    /// As a vote: +1 for `a`, −1 for `b`, 0 for a tie.
    pub fn vote(self) -> i8 {
        match self {
            Self::A => 1,
            Self::B => -1,
            Self::Tie => 0,
        }
    }

    /// The preference a vote's sign gives.
    pub fn of_vote(vote: f64) -> Self {
        if vote > 0.0 {
            Self::A
        } else if vote < 0.0 {
            Self::B
        } else {
            Self::Tie
        }
    }

    /// The label's text in files: `a`, `b` or `tie`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::A => "a",
            Self::B => "b",
            Self::Tie => "tie",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "a" => Some(Self::A),
            "b" => Some(Self::B),
            "tie" => Some(Self::Tie),
            _ => None,
        }
    }
}

/// One pair to judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramPair {
    pub id: String,
    pub line: u64,
    pub query: String,
    pub response_a: String,
    pub response_b: String,
    pub label: Option<Preference>,
}

const PAIRS_HEADER: &str = "`id,instruction,response,response_b[,label]`";

pub(crate) fn label(row: &Row, i: usize) -> Result<Option<Preference>> {
    let text = row.value(i);
    if text.is_empty() {
        return Ok(None);
    }
    Preference::parse(text).map(Some).ok_or_else(|| {
        row.error(
            i,
            "label",
            format!("expected `a`, `b`, `tie` or an empty field, found `{text}`"),
        )
    })
}

/// The id in column `i` of `row`, which becomes entry number `entry` of the ids read so far
/// (`earlier(e)`: entry e's id); an error when an earlier row had the same id.
pub(crate) fn unique_id<'a>(
    row: &Row,
    i: usize,
    seen: &mut FirstSeen,
    entry: usize,
    earlier: impl Fn(usize) -> &'a str,
) -> Result<String> {
    let id = row.required(i, "id")?;
    if let Some(first) = seen.insert(id, entry, row.line, earlier) {
        return Err(row.error(
            i,
            "id",
            format!("expected a unique id, found `{id}` again (first on line {first})"),
        ));
    }
    Ok(id.to_owned())
}

pub(crate) fn no_rows(source: &str, expected: &str) -> Error {
    Error::input(
        Location::line(source, 2),
        format!("expected at least one row after the header {expected}, found none"),
    )
}

/// Reads the pairs of `bytes`, in file order.
pub fn parse_program_pairs(source: &str, bytes: &[u8]) -> Result<Vec<ProgramPair>> {
    let (mut reader, headers) = read_header(source, bytes, PAIRS_HEADER)?;
    let id = column(source, &headers, "id", PAIRS_HEADER)?;
    let query = column(source, &headers, "instruction", PAIRS_HEADER)?;
    let a = column(source, &headers, "response", PAIRS_HEADER)?;
    let b = column(source, &headers, "response_b", PAIRS_HEADER)?;
    let label_column = headers.iter().position(|h| h.trim() == "label");
    let mut pairs: Vec<ProgramPair> = Vec::new();
    let mut seen = FirstSeen::default();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| crate::io::csv_row::csv_error(source, &e))?
    {
        let row = Row::new(source, &record);
        let id = unique_id(&row, id, &mut seen, pairs.len(), |e| pairs[e].id.as_str())?;
        pairs.push(ProgramPair {
            id,
            line: row.line,
            query: row.required(query, "instruction")?.to_owned(),
            response_a: row.value(a).to_owned(),
            response_b: row.value(b).to_owned(),
            label: label_column.map(|i| label(&row, i)).transpose()?.flatten(),
        });
    }
    if pairs.is_empty() {
        return Err(no_rows(source, PAIRS_HEADER));
    }
    Ok(pairs)
}

/// An LLM judge's verdicts on the pairs with ids `ids`, in their order: a `tribunal judge` run's
/// JSON lines when the file's name ends in `.jsonl` ([`parse_judgments_jsonl`]), else a verdicts
/// CSV ([`parse_verdicts`]).
///
/// # Errors
/// Those of the reader the name picks.
pub fn parse_llm_verdicts(
    source: &str,
    bytes: &[u8],
    ids: &[&str],
) -> Result<Vec<Option<Preference>>> {
    if source.ends_with(".jsonl") {
        parse_judgments_jsonl(source, bytes, ids)
    } else {
        parse_verdicts(source, bytes, ids)
    }
}

/// Reads a verdicts file `id,label` over the pairs with ids `ids`: the verdict of each pair, in
/// the order of `ids` (`None` where the file has no row for a pair).
pub fn parse_verdicts(source: &str, bytes: &[u8], ids: &[&str]) -> Result<Vec<Option<Preference>>> {
    const HEADER: &str = "`id,label`";
    let (mut reader, headers) = read_header(source, bytes, HEADER)?;
    let id = column(source, &headers, "id", HEADER)?;
    let label_column = column(source, &headers, "label", HEADER)?;
    // Built only when a row is out of the pairs' order: a verdicts file written over the same
    // pairs lists them in order, and each row is then checked against its own pair's id.
    let mut index: Option<HashMap<&str, usize>> = None;
    let mut verdicts = vec![None; ids.len()];
    // The line of each pair's verdict (0: none yet): an id is one of the pairs', so a repeat
    // is a pair read twice.
    let mut lines = vec![0u64; ids.len()];
    let mut rows = 0;
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| crate::io::csv_row::csv_error(source, &e))?
    {
        let row = Row::new(source, &record);
        let key = row.required(id, "id")?;
        let in_order = ids.get(rows).filter(|&&id| id == key).map(|_| rows);
        let found = in_order.or_else(|| {
            let index = index
                .get_or_insert_with(|| ids.iter().enumerate().map(|(i, &id)| (id, i)).collect());
            index.get(key).copied()
        });
        let Some(i) = found else {
            return Err(row.error(
                id,
                "id",
                format!("expected the id of one of the pairs, found `{key}`"),
            ));
        };
        if lines[i] > 0 {
            return Err(row.error(
                id,
                "id",
                format!(
                    "expected a unique id, found `{key}` again (first on line {})",
                    lines[i]
                ),
            ));
        }
        lines[i] = row.line;
        verdicts[i] = label(&row, label_column)?;
        rows += 1;
    }
    if rows == 0 {
        return Err(no_rows(source, HEADER));
    }
    Ok(verdicts)
}

/// Per pair: winner counts (A, B) and the score differences s(x) of its judgments.
#[derive(Debug, Clone, Default)]
struct Tally {
    a: u32,
    b: u32,
    differences: Vec<f64>,
}

impl Tally {
    /// Seed 002 when the judgments carry s(x) (the criteria prompt): the mean over the orders,
    /// a tie when the sign flips between them or the mean is 0. Otherwise the majority of
    /// the winners, a tie when even.
    fn verdict(&self) -> Preference {
        let d = &self.differences;
        if !d.is_empty() {
            let flipped = d.iter().any(|&x| x > 0.0) && d.iter().any(|&x| x < 0.0);
            let mean = d.iter().sum::<f64>() / d.len() as f64;
            return if flipped || mean == 0.0 {
                Preference::Tie
            } else if mean > 0.0 {
                Preference::A
            } else {
                Preference::B
            };
        }
        match self.a.cmp(&self.b) {
            std::cmp::Ordering::Greater => Preference::A,
            std::cmp::Ordering::Less => Preference::B,
            std::cmp::Ordering::Equal => Preference::Tie,
        }
    }
}

/// Reads the JSON lines of a pairwise `tribunal judge` run over the pairs with ids `ids`: the
/// verdict of each pair, in the order of `ids` — from the judgments' file-oriented score
/// differences `score_difference` when they have them (their mean over the orders, a tie when
/// the sign flips), else the majority of their winners.
pub fn parse_judgments_jsonl(
    source: &str,
    bytes: &[u8],
    ids: &[&str],
) -> Result<Vec<Option<Preference>>> {
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut wins: Vec<Option<Tally>> = vec![None; ids.len()];
    let text = String::from_utf8_lossy(bytes);
    for (n, line) in text.lines().enumerate() {
        let line_no = n as u64 + 1;
        let at = |field: &str, message: String| {
            Error::input(
                Location {
                    field: Some(field.to_owned()),
                    ..Location::line(source, line_no)
                },
                message,
            )
        };
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            Error::input(
                Location::line(source, line_no),
                format!("expected one JSON object per line, found invalid JSON: {e}"),
            )
        })?;
        let id = match &value["id"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(at("id", format!("expected a string id, found {other}"))),
        };
        let Some(&i) = index.get(id.as_str()) else {
            return Err(at(
                "id",
                format!("expected the id of one of the pairs, found `{id}`"),
            ));
        };
        let tally = wins[i].get_or_insert_with(Tally::default);
        match &value["winner"] {
            serde_json::Value::String(w) if w == "A" => tally.a += 1,
            serde_json::Value::String(w) if w == "B" => tally.b += 1,
            serde_json::Value::String(w) if w == "tie" => {}
            serde_json::Value::Null => {}
            other => {
                return Err(at(
                    "winner",
                    format!(
                        "expected `A`, `B`, `tie` or null (a pairwise judgment), found {other}"
                    ),
                ))
            }
        }
        match &value["score_difference"] {
            serde_json::Value::Number(n) => tally.differences.extend(n.as_f64()),
            serde_json::Value::Null => {}
            other => {
                return Err(at(
                    "score_difference",
                    format!("expected a number or null, found {other}"),
                ))
            }
        }
    }
    if wins.iter().all(Option::is_none) {
        return Err(Error::input(
            Location::line(source, 1),
            "expected at least one judgment of the pairs, found none".to_owned(),
        ));
    }
    Ok(wins
        .iter()
        .map(|w| w.as_ref().map(Tally::verdict))
        .collect())
}

/// `pairs` as the items CSV of a pairwise judge run (`id,instruction,response,response_b`,
/// [`crate::judging::judge_items`]), e.g. the pairs a staged policy escalates to the LLM judge.
pub fn judge_items_csv(pairs: &[&ProgramPair]) -> Result<String> {
    let fail =
        |e: &dyn std::fmt::Display| Error::Insufficient(format!("writing the items CSV: {e}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(["id", "instruction", "response", "response_b"])
        .map_err(|e| fail(&e))?;
    for p in pairs {
        writer
            .write_record([&p.id, &p.query, &p.response_a, &p.response_b])
            .map_err(|e| fail(&e))?;
    }
    let bytes = writer.into_inner().map_err(|e| fail(&e))?;
    String::from_utf8(bytes).map_err(|e| fail(&e))
}

/// One bias probe: a pair judged clean and perturbed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub id: String,
    pub bias: String,
    pub clean: ProgramPair,
    pub perturbed: ProgramPair,
    /// The perturbed response: +1 `a`, −1 `b`.
    pub biased_side: i8,
}

/// Reads bias probes, in order of their first row.
pub fn parse_probes(source: &str, bytes: &[u8]) -> Result<Vec<Probe>> {
    const HEADER: &str = "`id,bias,variant,instruction,response,response_b,biased`";
    let (mut reader, headers) = read_header(source, bytes, HEADER)?;
    let [id, bias, variant, query, a, b, biased] = [
        "id",
        "bias",
        "variant",
        "instruction",
        "response",
        "response_b",
        "biased",
    ]
    .map(|name| column(source, &headers, name, HEADER));
    let (id, bias, variant, query, a, b, biased) = (id?, bias?, variant?, query?, a?, b?, biased?);
    // Per probe id: (bias, clean, perturbed and its side, first line).
    type Halves = (String, Option<ProgramPair>, Option<(ProgramPair, i8)>, u64);
    let mut probes: Vec<(String, Halves)> = Vec::new();
    let mut probe_index: HashMap<String, usize> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| crate::io::csv_row::csv_error(source, &e))?;
        let row = Row::new(source, &record);
        let key = row.required(id, "id")?.to_owned();
        let name = row.required(bias, "bias")?.to_owned();
        let pair = ProgramPair {
            id: key.clone(),
            line: row.line,
            query: row.required(query, "instruction")?.to_owned(),
            response_a: row.value(a).to_owned(),
            response_b: row.value(b).to_owned(),
            label: None,
        };
        let at = *probe_index.entry(key.clone()).or_insert_with(|| {
            probes.push((key.clone(), (name.clone(), None, None, row.line)));
            probes.len() - 1
        });
        let halves = &mut probes[at].1;
        if halves.0 != name {
            return Err(row.error(
                bias,
                "bias",
                format!(
                    "expected `{}` as on line {}, found `{name}`",
                    halves.0, halves.3
                ),
            ));
        }
        let repeated = || {
            row.error(
                variant,
                "variant",
                format!("expected one row of each variant for probe `{key}`, found a second"),
            )
        };
        match row.required(variant, "variant")? {
            "clean" if halves.1.is_none() => halves.1 = Some(pair),
            "perturbed" if halves.2.is_none() => {
                let side = match label(&row, biased)? {
                    Some(Preference::A) => 1,
                    Some(Preference::B) => -1,
                    _ => {
                        return Err(row.error(
                            biased,
                            "biased",
                            "expected `a` or `b`, the perturbed response".to_owned(),
                        ))
                    }
                };
                halves.2 = Some((pair, side));
            }
            "clean" | "perturbed" => return Err(repeated()),
            other => {
                return Err(row.error(
                    variant,
                    "variant",
                    format!("expected `clean` or `perturbed`, found `{other}`"),
                ))
            }
        }
    }
    if probes.is_empty() {
        return Err(no_rows(source, HEADER));
    }
    probes
        .into_iter()
        .map(
            |(key, (name, clean, perturbed, line))| match (clean, perturbed) {
                (Some(clean), Some((perturbed, side))) => Ok(Probe {
                    id: key,
                    bias: name,
                    clean,
                    perturbed,
                    biased_side: side,
                }),
                _ => Err(Error::input(
                    Location::field(source, line, id + 1, "id"),
                    format!(
                        "expected a `clean` and a `perturbed` row for probe `{key}`, found one"
                    ),
                )),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pairs_labels_and_verdicts_and_locates_errors() {
        let text = "id,instruction,response,response_b,label\n\
                    p1,Say hi,\"Hi,\nthere\",,a\n\
                    p2,Add,4,5,\n\
                    p3,Add,4,5,TIE\n";
        let pairs = parse_program_pairs("pairs.csv", text.as_bytes()).unwrap();
        assert_eq!(pairs.len(), 3);
        assert_eq!(pairs[0].response_a, "Hi,\nthere");
        assert_eq!(pairs[0].response_b, "");
        assert_eq!(
            pairs.iter().map(|p| p.label).collect::<Vec<_>>(),
            [Some(Preference::A), None, Some(Preference::Tie)]
        );
        assert_eq!(pairs[2].line, 5);

        let err = parse_program_pairs(
            "pairs.csv",
            b"id,instruction,response,response_b,label\np,q,a,b,left\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "pairs.csv, line 2, column 5 (`label`): expected `a`, `b`, `tie` or an empty field, \
             found `left`"
        );
        let err =
            parse_program_pairs("pairs.csv", b"id,instruction,response\np,q,a\n").unwrap_err();
        assert!(err.to_string().starts_with(
            "pairs.csv, line 1: expected a `response_b` column (header \
             `id,instruction,response,response_b[,label]`)"
        ));

        let ids: Vec<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
        let csv = judge_items_csv(&[&pairs[0], &pairs[2]]).unwrap();
        assert_eq!(
            csv,
            "id,instruction,response,response_b\np1,Say hi,\"Hi,\nthere\",\np3,Add,4,5\n"
        );
        // Pair p1's empty response_b is judged as it is, and flagged.
        let items =
            crate::judging::judge_items::parse_judge_items("items.csv", csv[..].as_bytes(), true)
                .unwrap();
        assert_eq!(items[0].blank, ["response_b"]);
        assert!(items[1].blank.is_empty());
        let verdicts = parse_verdicts("v.csv", b"id,label\np3,b\np1,a\n", &ids).unwrap();
        assert_eq!(verdicts, [Some(Preference::A), None, Some(Preference::B)]);
        let err = parse_verdicts("v.csv", b"id,label\np9,b\n", &ids).unwrap_err();
        assert_eq!(
            err.to_string(),
            "v.csv, line 2, column 1 (`id`): expected the id of one of the pairs, found `p9`"
        );
        let err = parse_verdicts("v.csv", b"id,label\np1,a\np1,b\n", &ids).unwrap_err();
        assert!(err
            .to_string()
            .contains("found `p1` again (first on line 2)"));
    }

    #[test]
    fn reads_paired_probes_and_locates_unpaired_ones() {
        let header = "id,bias,variant,instruction,response,response_b,biased\n";
        let text = format!(
            "{header}x,padding,perturbed,Q,A long long,B,a\ny,gender,clean,Q2,C,D,\n\
             x,padding,clean,Q,A,B,\ny,gender,perturbed,Q2,C,As a man D,b\n"
        );
        let probes = parse_probes("p.csv", text.as_bytes()).unwrap();
        assert_eq!(probes.len(), 2);
        assert_eq!(probes[0].id, "x");
        assert_eq!(probes[0].clean.response_a, "A");
        assert_eq!(probes[0].perturbed.response_a, "A long long");
        assert_eq!((probes[0].biased_side, probes[1].biased_side), (1, -1));
        let err = parse_probes(
            "p.csv",
            format!("{header}x,padding,clean,Q,A,B,\n").as_bytes(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.csv, line 2, column 1 (`id`): expected a `clean` and a `perturbed` row for probe \
             `x`, found one"
        );
        let err = parse_probes(
            "p.csv",
            format!("{header}x,padding,perturbed,Q,A,B,\n").as_bytes(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.csv, line 2, column 7 (`biased`): expected `a` or `b`, the perturbed response"
        );
    }

    #[test]
    fn merges_judge_runs_by_majority_of_winners() {
        let ids = ["p1", "p2", "p3", "p4"];
        let text = r#"{"id":"p1","order":"ab","winner":"A"}
{"id":"p1","order":"ba","winner":"A"}
{"id":"p2","order":"ab","winner":"A"}
{"id":"p2","order":"ba","winner":"B"}
{"id":"p3","order":"ab","winner":null}
"#;
        let verdicts = parse_judgments_jsonl("r.jsonl", text.as_bytes(), &ids).unwrap();
        assert_eq!(
            verdicts,
            [
                Some(Preference::A),
                Some(Preference::Tie),
                Some(Preference::Tie),
                None
            ]
        );
        let err = parse_judgments_jsonl("r.jsonl", b"{\"id\":\"p1\",\"winner\":\"C\"}\n", &ids)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.jsonl, line 1 (`winner`): expected `A`, `B`, `tie` or null (a pairwise judgment), found \"C\""
        );
        // Seed 002: s(x) averaged over both orders; a sign flip is a tie whatever the mean.
        let scored = r#"{"id":"p1","order":"ab","winner":"A","score_difference":1.0}
{"id":"p1","order":"ba","winner":"A","score_difference":0.5}
{"id":"p2","order":"ab","winner":"A","score_difference":1.0}
{"id":"p2","order":"ba","winner":"B","score_difference":-0.5}
{"id":"p3","order":"ab","winner":"B","score_difference":-0.2}
{"id":"p4","order":"ab","winner":"tie","score_difference":0.0}
"#;
        let verdicts = parse_judgments_jsonl("r.jsonl", scored.as_bytes(), &ids).unwrap();
        assert_eq!(
            verdicts,
            [
                Some(Preference::A),
                Some(Preference::Tie),
                Some(Preference::B),
                Some(Preference::Tie)
            ]
        );
        let err = parse_judgments_jsonl("r.jsonl", b"\n{\"id\":\"p9\"}\n", &ids).unwrap_err();
        assert_eq!(
            err.to_string(),
            "r.jsonl, line 2 (`id`): expected the id of one of the pairs, found `p9`"
        );
    }
}
