//! The first rows of a CSV as text, for a form that lets a person map the file's columns: the
//! header and up to `rows` records, read by the strict reader's rules (BOM, CRLF, separator
//! hint, unclosed quotes). A record that does not parse ends the preview; the analysis itself
//! reports it, located.
//!
//! Arguments: the input's name (for messages), its bytes, the most records to keep. Returns:
//! [`Preview`]. Errors: [`Error::Input`] as the strict reader's header errors (a
//! semicolon- or tab-separated header, an unclosed quote, invalid UTF-8 in the header).

use crate::io::csv_row::open;
use crate::io::error::Result;

/// A CSV's header and its first records, as text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Preview {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The header and the first `rows` records of `bytes`.
pub fn preview(source: &str, bytes: &[u8], rows: usize) -> Result<Preview> {
    let (mut reader, header) = open(source, bytes)?;
    let records = reader
        .records()
        .take(rows)
        .map_while(std::result::Result::ok)
        .map(|r| r.iter().map(str::to_owned).collect())
        .collect();
    Ok(Preview {
        header: header.iter().map(|h| h.trim().to_owned()).collect(),
        rows: records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_first_rows_of_a_crlf_file_with_a_bom() {
        let text = "\u{feff}id,worker,winner\r\n1,a,left\r\n1,b,tie\r\n2,a,right\r\n";
        let p = preview("v.csv", text.as_bytes(), 2).unwrap();
        assert_eq!(p.header, ["id", "worker", "winner"]);
        assert_eq!(p.rows, [["1", "a", "left"], ["1", "b", "tie"]]);
    }

    #[test]
    fn a_ragged_record_ends_the_preview_and_a_semicolon_header_is_refused() {
        let p = preview("v.csv", b"a,b\n1,2\n3\n4,5\n", 5).unwrap();
        assert_eq!(p.rows, [["1", "2"]]);
        let error = preview("v.csv", b"a;b;c\n1;2;3\n", 5)
            .unwrap_err()
            .to_string();
        assert!(error.contains("v.csv, line 1"), "{error}");
    }
}
