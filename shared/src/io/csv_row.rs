//! One CSV record with its place in the input, so that every field read through it fails with
//! an error naming the source, the 1-based line and column, and the header field, and saying
//! what was expected and what was found. The file parsers (`battles`, `scored_battles`,
//! `ratings`, `calibration_data`, …) open their input and read their fields through it.
//!
//! [`open`] reads the input as an editor shows it: a UTF-8 byte-order mark is skipped and every
//! line break (`\r\n` as Excel and Python's `csv` module write it, `\r` or `\n`) is one line, so
//! a row's line is the same whatever the line endings. Before any row is read it refuses, at
//! the place where the problem is: a quoted field that is never closed (named by the line and
//! column where it begins), and a header that looks semicolon- or tab-separated.

use crate::io::error::{Error, Location, Result};
use std::io;

/// Where the csv reader is in its input, by its own rules (double quotes, `,` between fields,
/// `\r`, `\n` or `\r\n` between records): a `"` opens a quoted field only as a field's first
/// byte, `""` inside it is a quote, and a `"` followed by anything else closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a record, skipping empty lines.
    StartRecord,
    StartField,
    InField,
    Quoted,
    /// A `"` inside a quoted field: the field's end or, doubled, a quote.
    QuoteInQuoted,
}

impl State {
    fn next(self, b: u8) -> Self {
        let line_break = b == b'\n' || b == b'\r';
        match (self, b) {
            (Self::StartRecord, _) if line_break => Self::StartRecord,
            (Self::StartRecord | Self::StartField, b'"') => Self::Quoted,
            (Self::Quoted, b'"') => Self::QuoteInQuoted,
            (Self::Quoted, _) => Self::Quoted,
            (Self::QuoteInQuoted, b'"') => Self::Quoted,
            (_, b',') => Self::StartField,
            (_, _) if line_break => Self::StartRecord,
            _ => Self::InField,
        }
    }
}

/// The input as the csv reader sees it: without a leading UTF-8 byte-order mark, and with every
/// line break between fields (`\r\n`, a lone `\r`, `\n`) read as `\n`, so that the reader
/// counts lines as an editor does. (The csv reader ends a record at the `\r` of `\r\n` and
/// counts the `\n` into the next record, which put every CRLF row one line short.) Quoted fields
/// are read as they are, their line breaks included.
pub(crate) struct Text<'b> {
    rest: &'b [u8],
    /// Whether the input has a `\r` at all: without one it is read unchanged.
    has_cr: bool,
    /// Whether the input has a `"` at all: without one no line break is inside a field, and
    /// the reader needs no state to replace them.
    has_quote: bool,
    state: State,
}

impl<'b> Text<'b> {
    fn new(bytes: &'b [u8]) -> Self {
        let rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        Self {
            rest,
            has_cr: rest.contains(&b'\r'),
            has_quote: rest.contains(&b'"'),
            state: State::StartRecord,
        }
    }

    /// Reads into `out` with each `\r\n` or lone `\r` as `\n`, for an input without quotes:
    /// whole runs up to the next `\r` at a time.
    fn read_unquoted(&mut self, out: &mut [u8]) -> usize {
        let mut n = 0;
        while n < out.len() && !self.rest.is_empty() {
            let room = (out.len() - n).min(self.rest.len());
            match self.rest[..room].iter().position(|&b| b == b'\r') {
                Some(k) => {
                    out[n..n + k].copy_from_slice(&self.rest[..k]);
                    out[n + k] = b'\n';
                    n += k + 1;
                    self.rest = &self.rest[k + 1..];
                    if let Some(rest) = self.rest.strip_prefix(b"\n") {
                        self.rest = rest;
                    }
                }
                None => {
                    out[n..n + room].copy_from_slice(&self.rest[..room]);
                    n += room;
                    self.rest = &self.rest[room..];
                }
            }
        }
        n
    }
}

impl io::Read for Text<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if !self.has_cr {
            let n = out.len().min(self.rest.len());
            out[..n].copy_from_slice(&self.rest[..n]);
            self.rest = &self.rest[n..];
            return Ok(n);
        }
        if !self.has_quote {
            return Ok(self.read_unquoted(out));
        }
        let mut n = 0;
        while n < out.len() {
            let Some((&b, rest)) = self.rest.split_first() else {
                break;
            };
            self.rest = rest;
            if b == b'\r' && self.state != State::Quoted {
                out[n] = b'\n';
                if let Some(rest) = self.rest.strip_prefix(b"\n") {
                    self.rest = rest;
                }
            } else {
                out[n] = b;
            }
            n += 1;
            self.state = self.state.next(b);
        }
        Ok(n)
    }
}

/// A strict CSV reader over `bytes` (a header row, every row as wide) and its header row.
///
/// # Errors
/// [`Error::Input`] for a quoted field that is never closed (at the line and column where it
/// begins, with the header's name for the column), a header that is one field holding `;` or
/// tabs (the file is semicolon- or tab-separated), or invalid UTF-8 in the header.
pub(crate) fn open<'b>(
    source: &str,
    bytes: &'b [u8],
) -> Result<(csv::Reader<Text<'b>>, csv::StringRecord)> {
    let reader = || {
        csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(Text::new(bytes))
    };
    if let Some(quote) = unclosed_quote(Text::new(bytes).rest) {
        // The header is whole when the quote opens in a later record.
        let name = if quote.record > 0 {
            reader()
                .headers()
                .ok()
                .and_then(|h| h.get(quote.column - 1).map(|n| n.trim().to_owned()))
        } else {
            None
        };
        return Err(Error::input(
            Location {
                source: source.to_owned(),
                line: quote.line,
                column: Some(quote.column),
                field: name,
                byte: None,
            },
            "a quoted field begins here and is never closed: expected a closing `\"` before the \
             end of the file, found none (a `\"` inside a quoted field is written `\"\"`)",
        ));
    }
    let mut reader = reader();
    let headers = reader.headers().map_err(|e| csv_error(source, &e))?.clone();
    if headers.len() == 1 {
        if let Some(hint) = separator_hint(&headers) {
            return Err(Error::input(Location::line(source, 1), hint));
        }
    }
    Ok((reader, headers))
}

/// A strict CSV reader over `bytes` (a header row, every row as wide) and its header, or an
/// error at line 1 when the file is empty; `expected` says which header the file should have.
///
/// # Errors
/// Those of [`open`], and [`Error::Input`] at line 1 for an empty file.
pub(crate) fn read_header<'b>(
    source: &str,
    bytes: &'b [u8],
    expected: &str,
) -> Result<(csv::Reader<Text<'b>>, csv::StringRecord)> {
    let (reader, headers) = open(source, bytes)?;
    if headers.is_empty() || (headers.len() == 1 && headers[0].trim().is_empty()) {
        return Err(Error::input(
            Location::line(source, 1),
            format!("the file is empty: expected a header row with {expected}"),
        ));
    }
    Ok((reader, headers))
}

/// Where a quoted field that is never closed begins.
#[derive(Debug, PartialEq, Eq)]
struct UnclosedQuote {
    /// 1-based line.
    line: u64,
    /// 1-based field position in its record.
    column: usize,
    /// 0-based record (0: the header).
    record: usize,
}

/// The quoted field that runs to the end of `bytes`, if any, found with the csv reader's own
/// rules ([`State`]). Lines are counted as the reader counts them through [`Text`]; empty lines
/// between records are skipped, as the reader skips them.
fn unclosed_quote(bytes: &[u8]) -> Option<UnclosedQuote> {
    if !bytes.contains(&b'"') {
        return None;
    }
    let (mut line, mut column, mut record) = (1u64, 1usize, 0usize);
    let mut state = State::StartRecord;
    let mut opened = (0, 0, 0);
    for (i, &b) in bytes.iter().enumerate() {
        let quoted = state == State::Quoted;
        if b == b'\n' || (b == b'\r' && !quoted && bytes.get(i + 1) != Some(&b'\n')) {
            line += 1;
        }
        let next = state.next(b);
        match next {
            State::Quoted if !quoted && state != State::QuoteInQuoted => {
                opened = (line, column, record)
            }
            State::StartField => column += 1,
            State::StartRecord if state != State::StartRecord => {
                column = 1;
                record += 1;
            }
            _ => {}
        }
        state = next;
    }
    (state == State::Quoted).then_some(UnclosedQuote {
        line: opened.0,
        column: opened.1,
        record: opened.2,
    })
}

/// What to do when the header holds `;` or tabs, the separators of files that are not
/// comma-separated: "the header looks semicolon-separated (…)", or `None`.
pub(crate) fn separator_hint(headers: &csv::StringRecord) -> Option<String> {
    let count = |c: char| headers.iter().map(|h| h.matches(c).count()).sum::<usize>();
    let (semicolons, tabs) = (count(';'), count('\t'));
    if semicolons == 0 && tabs == 0 {
        return None;
    }
    let kind = if tabs > semicolons {
        "tab"
    } else {
        "semicolon"
    };
    let found = headers
        .iter()
        .collect::<Vec<_>>()
        .join(",")
        .replace('\t', "\\t");
    Some(format!(
        "the header looks {kind}-separated (found `{found}`): Tribunal reads comma-separated \
         files; save or export the file with `,` as the separator"
    ))
}

/// `message`, with the separator hint after it when the header looks semicolon- or
/// tab-separated: for the errors of a header that lacks a column.
pub(crate) fn with_separator_hint(message: String, headers: &csv::StringRecord) -> String {
    match separator_hint(headers) {
        Some(hint) => format!("{message}; {hint}"),
        None => message,
    }
}

/// The position of the header column `name`, or `None`; a name that appears twice is an error
/// at its second column, since the parser could not tell which one to read.
pub(crate) fn find_unique(
    source: &str,
    headers: &csv::StringRecord,
    name: &str,
) -> Result<Option<usize>> {
    let mut at = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| h.trim() == name)
        .map(|(i, _)| i);
    match (at.next(), at.next()) {
        (Some(first), Some(second)) => Err(Error::input(
            Location::field(source, 1, second + 1, name),
            format!(
                "the column `{name}` appears twice in the header (columns {} and {}): expected \
                 each column once; rename or delete one of them",
                first + 1,
                second + 1
            ),
        )),
        (first, _) => Ok(first),
    }
}

/// The position of the header column `name`, or an error at line 1 saying the file should have
/// the header `expected` (or that the column appears twice).
pub(crate) fn column(
    source: &str,
    headers: &csv::StringRecord,
    name: &str,
    expected: &str,
) -> Result<usize> {
    find_unique(source, headers, name)?.ok_or_else(|| {
        Error::input(
            Location::line(source, 1),
            with_separator_hint(
                format!(
                    "expected a `{name}` column (header {expected}), found `{}`",
                    headers.iter().collect::<Vec<_>>().join(",")
                ),
                headers,
            ),
        )
    })
}

/// The trimmed header names of a long-format file, checked: not empty (`expected` names the
/// header the file should have) and no name twice.
///
/// # Errors
/// [`Error::Input`] at line 1 for an empty header, at the second column of a repeated name.
pub(crate) fn header_names<'h>(
    source: &str,
    headers: &'h csv::StringRecord,
    expected: &str,
) -> Result<Vec<&'h str>> {
    let names: Vec<&str> = headers.iter().map(str::trim).collect();
    if names.is_empty() || (names.len() == 1 && names[0].is_empty()) {
        return Err(Error::input(
            Location::line(source, 1),
            format!("the file is empty: expected a header row with {expected}"),
        ));
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(Error::input(
                Location::field(source, 1, i + 1, name),
                format!("the column `{name}` appears twice in the header"),
            ));
        }
    }
    Ok(names)
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

/// Converts a csv reader error into a located [`Error::Input`].
pub(crate) fn csv_error(source: &str, error: &csv::Error) -> Error {
    match error.kind() {
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
        } => Error::input(
            Location::line(source, pos.as_ref().map_or(0, csv::Position::line)),
            format!("expected {expected_len} fields as in the header, found {len}"),
        ),
        csv::ErrorKind::Utf8 { pos, err } => Error::input(
            Location {
                source: source.to_owned(),
                line: pos.as_ref().map_or(0, csv::Position::line),
                column: Some(err.field() + 1),
                field: None,
                byte: None,
            },
            "expected UTF-8 text, found invalid bytes",
        ),
        _ => Error::input(
            Location::line(source, error.position().map_or(0, csv::Position::line)),
            error.to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn text(bytes: &[u8]) -> String {
        let mut out = String::new();
        Text::new(bytes).read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn text_reads_every_line_break_as_one_newline_and_skips_a_bom() {
        assert_eq!(text(b"a,b\r\n1,2\r\n"), "a,b\n1,2\n");
        assert_eq!(text(b"a\rb\r\r\nc\n"), "a\nb\n\nc\n");
        // Quoted fields keep their bytes; a doubled quote does not end one.
        assert_eq!(
            text(b"a,\"x\r\ny\"\r\n\"p\"\"\rq\",r\r"),
            "a,\"x\r\ny\"\n\"p\"\"\rq\",r\n"
        );
        assert_eq!(text(b"\xEF\xBB\xBFid,label\r\n"), "id,label\n");
        assert_eq!(text(b"\r"), "\n");
        // Reads through small buffers give the same text, with quotes and without.
        let through = |bytes: &[u8], size: usize| {
            let (mut text, mut out, mut buf) = (Text::new(bytes), Vec::new(), vec![0u8; size]);
            loop {
                let n = text.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            out
        };
        for size in 1..=4 {
            assert_eq!(through(b"ab\r\ncd\re\r\r\n", size), b"ab\ncd\ne\n\n");
            assert_eq!(through(b"\"a\r\n\",b\r\nc\r", size), b"\"a\r\n\",b\nc\n");
        }
    }

    #[test]
    fn an_unclosed_quote_is_found_where_it_begins() {
        let at = |line, column, record| {
            Some(UnclosedQuote {
                line,
                column,
                record,
            })
        };
        assert_eq!(unclosed_quote(b"a,b\n1,\"x\n2,y\n"), at(2, 2, 1));
        // Closed quotes, doubled quotes and quotes inside a field do not count.
        assert_eq!(unclosed_quote(b"a,b\n\"x\"\"y\",\"p\nq\"\n1,x\"y\n"), None);
        assert_eq!(
            unclosed_quote(b"a,b\r\n\"x\r\ny\",1\r\n\r\n3,\"open\r\nz\r\n"),
            at(5, 2, 2)
        );
        assert_eq!(unclosed_quote(b"\"a,b\n1,2\n"), at(1, 1, 0));
        assert_eq!(unclosed_quote(b"a,b\r1,\"2\r"), at(2, 2, 1));
    }

    #[test]
    fn open_names_the_unclosed_quote_and_a_semicolon_or_tab_header() {
        let error = |bytes: &[u8]| match open("f.csv", bytes) {
            Err(Error::Input { location, message }) => (location, message),
            other => panic!("expected an input error, got {:?}", other.map(|(_, h)| h)),
        };
        let (location, message) = error(b"id,label\r\n1,a\r\n2,\"b\r\n3,c\r\n");
        assert_eq!(location, Location::field("f.csv", 3, 2, "label"));
        assert!(message.contains("never closed"), "{message}");
        assert!(message.contains("`\"\"`"), "{message}");
        let (location, _) = error(b"\"id,label\n1,a\n");
        assert_eq!(
            (location.line, location.column, location.field),
            (1, Some(1), None)
        );

        let (location, message) = error(b"id;label\n1;a\n");
        assert_eq!(location, Location::line("f.csv", 1));
        assert!(
            message.starts_with(
                "the header looks semicolon-separated (found `id;label`): Tribunal reads \
                 comma-separated files"
            ),
            "{message}"
        );
        let (_, message) = error(b"id\tlabel\n1\ta\n");
        assert!(
            message.contains("looks tab-separated (found `id\\tlabel`)"),
            "{message}"
        );
        // A comma-separated header is read, one column or several.
        assert_eq!(open("f.csv", b"id\n1\n").unwrap().1.len(), 1);
        assert_eq!(
            open("f.csv", b"\xEF\xBB\xBFid,x\n1,2\n").unwrap().1[0].to_owned(),
            "id"
        );
    }

    #[test]
    fn a_column_named_twice_is_an_error_at_its_second_place() {
        let headers = csv::StringRecord::from(vec!["id", "label", " id"]);
        match column("f.csv", &headers, "id", "`id,label`") {
            Err(Error::Input { location, message }) => {
                assert_eq!(location, Location::field("f.csv", 1, 3, "id"));
                assert!(message.contains("appears twice"), "{message}");
                assert!(message.contains("columns 1 and 3"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(column("f.csv", &headers, "label", "").unwrap(), 1);
        let semicolons = csv::StringRecord::from(vec!["id;label", "x"]);
        let message = column("f.csv", &semicolons, "label", "`id,label`")
            .unwrap_err()
            .to_string();
        assert!(message.contains("looks semicolon-separated"), "{message}");
    }
}
