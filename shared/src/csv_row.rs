//! One CSV record with its place in the input, so that every field read through it fails with
//! an error naming the source, the 1-based line and column, and the header field, and saying
//! what was expected and what was found. The file parsers (`scored_battles`,
//! `calibration_data`) read their fields through it.

use crate::battles::csv_error;
use crate::error::{Error, Location, Result};

/// A strict CSV reader over `bytes` (a header row, every row as wide) and its header, or an
/// error at line 1 when the file is empty; `expected` says which header the file should have.
pub(crate) fn read_header<'b>(
    source: &str,
    bytes: &'b [u8],
    expected: &str,
) -> Result<(csv::Reader<&'b [u8]>, csv::StringRecord)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(bytes);
    let headers = reader.headers().map_err(|e| csv_error(source, &e))?.clone();
    if headers.is_empty() || (headers.len() == 1 && headers[0].trim().is_empty()) {
        return Err(Error::input(
            Location::line(source, 1),
            format!("the file is empty: expected a header row with {expected}"),
        ));
    }
    Ok((reader, headers))
}

/// The position of the header column `name`, or an error at line 1 saying the file should have
/// the header `expected`.
pub(crate) fn column(
    source: &str,
    headers: &csv::StringRecord,
    name: &str,
    expected: &str,
) -> Result<usize> {
    headers
        .iter()
        .position(|h| h.trim() == name)
        .ok_or_else(|| {
            Error::input(
                Location::line(source, 1),
                format!(
                    "expected a `{name}` column (header {expected}), found `{}`",
                    headers.iter().collect::<Vec<_>>().join(",")
                ),
            )
        })
}

/// A record, its source name and its line.
pub(crate) struct Row<'r> {
    pub source: &'r str,
    pub line: u64,
    pub record: &'r csv::StringRecord,
}

impl<'r> Row<'r> {
    /// A record as the csv reader returned it.
    pub fn new(source: &'r str, record: &'r csv::StringRecord) -> Self {
        Self {
            source,
            line: record.position().map_or(0, csv::Position::line),
            record,
        }
    }

    /// Field `i`, trimmed ("" when the record is shorter).
    pub fn value(&self, i: usize) -> &'r str {
        self.record.get(i).unwrap_or("").trim()
    }

    /// An [`Error::Input`] at field `i`, named `name`.
    pub fn error(&self, i: usize, name: &str, message: String) -> Error {
        Error::input(
            Location::field(self.source, self.line, i + 1, name),
            message,
        )
    }

    /// Field `i`, which must not be empty.
    pub fn required(&self, i: usize, name: &str) -> Result<&'r str> {
        let value = self.value(i);
        if value.is_empty() {
            Err(self.error(i, name, "expected a value, found an empty field".to_owned()))
        } else {
            Ok(value)
        }
    }

    /// Field `i` as a finite number.
    pub fn number(&self, i: usize, name: &str) -> Result<f64> {
        let text = self.required(i, name)?;
        match text.parse::<f64>() {
            Ok(s) if s.is_finite() => Ok(s),
            Ok(_) => Err(self.error(i, name, format!("expected a finite number, found `{text}`"))),
            Err(_) => Err(self.error(i, name, format!("expected a number, found `{text}`"))),
        }
    }
}
