//! A JSON array of records, or JSON lines (one record per line), as records that know where
//! they start, so that a record's errors name the line and column an editor shows.
//!
//! Arguments: the file's name (for messages) and its text. Returns: each record's raw JSON with
//! its line and column. Errors: [`Error::Input`] at the line and column of a JSON syntax error
//! (or of an invalid UTF-8 byte, by [`text`]).

use crate::io::error::{Error, Location, Result};
use serde::Deserialize;
use serde_json::value::RawValue;

/// One record and where it starts.
pub struct Record<'a> {
    pub raw: &'a RawValue,
    pub line: u64,
    pub column: usize,
}

/// The file as UTF-8 text.
///
/// # Errors
/// [`Error::Input`] at the first invalid byte's line and column.
pub fn text<'a>(source: &str, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = position(&bytes[..e.valid_up_to()]);
        Error::Input {
            location: Location {
                column: Some(column),
                ..Location::line(source, line)
            },
            message: "expected UTF-8 text, found an invalid byte".to_owned(),
        }
    })
}

/// The line and column (1-based, in characters) just after `before`.
fn position(before: &[u8]) -> (u64, usize) {
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

fn syntax(source: &str, line: u64, column: usize, e: &serde_json::Error) -> Error {
    Error::Input {
        location: Location {
            column: Some(column),
            ..Location::line(source, line)
        },
        message: format!("expected JSON: {e}"),
    }
}

/// The records of `text`: the elements of a top-level array, or one per non-blank line.
///
/// # Errors
/// See the [module documentation](self).
pub fn records<'a>(source: &str, text: &'a str) -> Result<Vec<Record<'a>>> {
    let locate = |raw: &'a RawValue| located(text, raw);
    let body = text.trim_start_matches('\u{feff}');
    if body.trim_start().starts_with('[') {
        let raws: Vec<&'a RawValue> = serde_json::from_str(body)
            .map_err(|e| syntax(source, e.line() as u64, e.column(), &e))?;
        return Ok(raws.into_iter().map(locate).collect());
    }
    let mut out = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if trimmed.trim().is_empty() {
            continue;
        }
        let raw: &'a RawValue = serde_json::from_str(&text[start..start + trimmed.len()])
            .map_err(|e| syntax(source, i as u64 + 1, e.column(), &e))?;
        out.push(locate(raw));
    }
    Ok(out)
}

/// `raw` (a part of `text`) with its line and column in `text`.
pub fn located<'a>(text: &'a str, raw: &'a RawValue) -> Record<'a> {
    let offset = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    let (line, column) = position(&text.as_bytes()[..offset.min(text.len())]);
    Record { raw, line, column }
}

/// The whole of `text` as one JSON value of type `T` (an object holding records).
///
/// # Errors
/// [`Error::Input`] at the line and column of a syntax error or of what does not fit `T`.
pub fn whole<'a, T: Deserialize<'a>>(source: &str, text: &'a str) -> Result<T> {
    serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| syntax(source, e.line() as u64, e.column(), &e))
}

/// `record` as a `T`; an error is placed at its line and column in the file.
///
/// # Errors
/// [`Error::Input`] naming what the record lacks or holds wrongly.
pub fn decode<'a, T: Deserialize<'a>>(source: &str, record: &Record<'a>) -> Result<T> {
    serde_json::from_str(record.raw.get()).map_err(|e| {
        let line = record.line + e.line() as u64 - 1;
        let column = if e.line() <= 1 {
            record.column + e.column().saturating_sub(1)
        } else {
            e.column()
        };
        Error::Input {
            location: Location {
                column: Some(column),
                ..Location::line(source, line)
            },
            message: format!("unexpected record: {e}"),
        }
    })
}

/// An error in `field` of the record that starts at `record`.
pub fn field_error(source: &str, record: &Record, field: &str, message: String) -> Error {
    Error::Input {
        location: Location::field(source, record.line, record.column, field),
        message,
    }
}

/// A JSON id (string or number) as text.
pub fn id_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Refuses a battle whose models are empty or the same (named in `field`).
///
/// # Errors
/// [`Error::Input`] at the record.
pub fn check_models(source: &str, record: &Record, field: &str, a: &str, b: &str) -> Result<()> {
    if a.trim().is_empty() || b.trim().is_empty() || a.trim() == b.trim() {
        return Err(field_error(
            source,
            record,
            field,
            format!("expected two different, non-empty models, found `{a}` and `{b}`"),
        ));
    }
    Ok(())
}
