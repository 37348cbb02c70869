//! A CSV file's bytes rearranged column by column, exactly reversibly, so that a general
//! compressor sees each column's repeats (model names, labels, digits) side by side: a share
//! link of a battles or scores file comes out about a third shorter than row by row.
//!
//! Model: the file is split into raw fields — at each comma and record terminator outside
//! double quotes, a field keeping its quotes as written — and written as every field of the
//! first column, then of the second, …, each followed by a NUL byte. [`Layout`] records what
//! the split removed: the number of columns, the terminator (`\n` or `\r\n`) and whether the
//! last record ends with one.
//!
//! Arguments: a file's bytes to [`to_columns`]; a [`Layout`] and those columns to
//! [`from_columns`].
//!
//! Returns: `Some((layout, columns))` only when the file is one that the transform restores
//! byte for byte ([`from_columns`] of it is checked to be the file), else `None` — the caller
//! keeps the bytes as they are. Files it declines: empty, holding a NUL byte, with an unclosed
//! quote, mixing terminators, or with records of different lengths.
//!
//! Errors: [`from_columns`] of columns whose field count is not a multiple of the layout's
//! columns, or that do not end with a NUL, says so (the share link locates it).

use serde::{Deserialize, Serialize};

/// What the split removed: enough to put the file back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Fields per record.
    pub columns: usize,
    /// Records end with `\r\n` (else `\n`).
    pub crlf: bool,
    /// The last record ends with the terminator too.
    pub terminated: bool,
}

/// The raw fields of each record of `bytes`, the layout, or `None` (see the module docs).
fn records(bytes: &[u8]) -> Option<(Vec<Vec<&[u8]>>, Layout)> {
    if bytes.is_empty() || bytes.contains(&0) {
        return None;
    }
    let mut crlf = None;
    let mut records = Vec::new();
    let mut record = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (k, &byte) in bytes.iter().enumerate() {
        match byte {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                record.push(&bytes[start..k]);
                start = k + 1;
            }
            b'\n' if !quoted => {
                let after_cr = k > 0 && bytes[k - 1] == b'\r';
                if *crlf.get_or_insert(after_cr) != after_cr {
                    return None;
                }
                let end = if after_cr { k - 1 } else { k };
                record.push(bytes.get(start..end)?);
                records.push(std::mem::take(&mut record));
                start = k + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return None;
    }
    let terminated = start == bytes.len();
    if !terminated {
        record.push(&bytes[start..]);
        records.push(record);
    }
    let columns = records.first()?.len();
    if records.iter().any(|r| r.len() != columns) {
        return None;
    }
    let layout = Layout {
        columns,
        crlf: crlf.unwrap_or(false),
        terminated,
    };
    Some((records, layout))
}

/// `bytes` column by column, with its layout, when that restores exactly; else `None`.
pub fn to_columns(bytes: &[u8]) -> Option<(Layout, Vec<u8>)> {
    let (records, layout) = records(bytes)?;
    let mut out = Vec::with_capacity(bytes.len() + layout.columns);
    for column in 0..layout.columns {
        for record in &records {
            out.extend_from_slice(record[column]);
            out.push(0);
        }
    }
    (from_columns(layout, &out).ok()? == bytes).then_some((layout, out))
}

/// The file that [`to_columns`] rearranged into `columns` under `layout`.
pub fn from_columns(layout: Layout, columns: &[u8]) -> Result<Vec<u8>, String> {
    let Some(body) = columns.strip_suffix(&[0]) else {
        return Err("a column-major file must end with a NUL byte".to_owned());
    };
    let fields: Vec<&[u8]> = body.split(|&b| b == 0).collect();
    if layout.columns == 0 || !fields.len().is_multiple_of(layout.columns) {
        return Err(format!(
            "{} fields do not fill records of {} columns",
            fields.len(),
            layout.columns
        ));
    }
    let rows = fields.len() / layout.columns;
    let terminator: &[u8] = if layout.crlf { b"\r\n" } else { b"\n" };
    let mut out = Vec::with_capacity(columns.len() + rows);
    for row in 0..rows {
        if row > 0 {
            out.extend_from_slice(terminator);
        }
        for column in 0..layout.columns {
            if column > 0 {
                out.push(b',');
            }
            out.extend_from_slice(fields[column * rows + row]);
        }
    }
    if layout.terminated {
        out.extend_from_slice(terminator);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_is_written_column_by_column_and_restored_byte_for_byte() {
        let file = b"a,b\nx,\"y,\"\"z\"\"\n\"\n1,2\n";
        let (layout, columns) = to_columns(file).unwrap();
        assert_eq!(
            layout,
            Layout {
                columns: 2,
                crlf: false,
                terminated: true
            }
        );
        assert_eq!(columns, b"a\0x\x001\0b\0\"y,\"\"z\"\"\n\"\x002\0".to_vec());
        assert_eq!(from_columns(layout, &columns).unwrap(), file.to_vec());
    }

    #[test]
    fn crlf_files_and_files_without_a_final_newline_come_back_as_they_were() {
        for file in [
            &b"a,b\r\nx,y\r\n"[..],
            b"a,b\r\nx,y",
            b"a,b\nx,y",
            b"only",
            b"a,b\n,\n",
        ] {
            let (layout, columns) = to_columns(file).unwrap();
            assert_eq!(from_columns(layout, &columns).unwrap(), file, "{file:?}");
        }
    }

    #[test]
    fn files_it_cannot_restore_are_declined() {
        for file in [
            &b""[..],
            b"a,b\nx\n",
            b"a,b\r\nx,y\n",
            b"a,b\nx,y\r\n",
            b"a,\"b\n",
            b"a,b\nx,\0\n",
        ] {
            assert_eq!(to_columns(file), None, "{file:?}");
        }
    }

    #[test]
    fn damaged_columns_say_what_is_wrong() {
        let layout = Layout {
            columns: 2,
            crlf: false,
            terminated: true,
        };
        let e = from_columns(layout, b"a\0b\0c\0").unwrap_err();
        assert_eq!(e, "3 fields do not fill records of 2 columns");
        let e = from_columns(layout, b"a\0b").unwrap_err();
        assert!(e.contains("must end with a NUL"), "{e}");
    }
}
