//! Embedding arrays stored beside a calibration CSV: NumPy `.npy` and `.safetensors` files
//! holding one 2-D float array, row i the embedding of the CSV's data row i.
//!
//! Formats (the format is recognised by the file's first bytes, not its name):
//!
//! ```text
//! .npy          "\x93NUMPY", version (1, 2 or 3), header length (u16 for version 1, else u32,
//!               little-endian), a Python-literal header {'descr': '<f8' | '<f4',
//!               'fortran_order': False | True, 'shape': (n, d)}, then n·d values
//! .safetensors  header length N (u64 little-endian), an N-byte JSON header naming tensors
//!               {"name": {"dtype": "F64" | "F32", "shape": [n, d], "data_offsets": [b, e]}},
//!               then the data; the tensor named `embeddings` is read, or the only tensor
//! ```
//!
//! Arguments: the file's name (for messages) and bytes. Returns: the rows. ([`npy_f32`] writes
//! the `.npy` that `tribunal embed` saves.) Errors:
//! [`Error::Input`] located by byte offset and part (`magic`, `header`, `data`) for an unknown
//! format, a malformed header, a dtype other than 32/64-bit little-endian floats, a shape that is
//! not 2-D, data shorter than the shape needs, a non-finite value, or several tensors none of
//! which is named `embeddings`.

use crate::io::error::{Error, Location, Result};

/// The `.npy` (format 1.0, little-endian float32, C order) bytes of `rows`.
pub fn npy_f32(rows: &[Vec<f32>], dim: usize) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {dim}), }}",
        rows.len()
    );
    // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in rows.iter().flatten() {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes
}

/// The rows of an `.npy` or `.safetensors` embedding array.
///
/// # Errors
/// See the module documentation.
pub fn read_embeddings(source: &str, bytes: &[u8]) -> Result<Vec<Vec<f64>>> {
    if bytes.starts_with(b"\x93NUMPY") {
        npy(source, bytes)
    } else if bytes.len() >= 9 && bytes[8] == b'{' {
        safetensors(source, bytes)
    } else {
        Err(Error::input(
            Location::byte(source, 0, "magic"),
            "expected a .npy file (\\x93NUMPY) or a .safetensors file (a header length, then \
             a JSON header)",
        ))
    }
}

fn at(source: &str, offset: usize, part: &str, message: String) -> Error {
    Error::input(Location::byte(source, offset as u64, part), message)
}

/// Little-endian integer of `width` bytes at `offset`.
fn le(source: &str, bytes: &[u8], offset: usize, width: usize) -> Result<u64> {
    let chunk = bytes.get(offset..offset + width).ok_or_else(|| {
        at(
            source,
            offset,
            "header",
            format!("expected a {width}-byte length, found the end of the file"),
        )
    })?;
    Ok(chunk
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

/// Reads `n × d` little-endian floats of `width` bytes (4 or 8) starting at `offset`.
fn floats(
    source: &str,
    bytes: &[u8],
    offset: usize,
    (n, d): (usize, usize),
    width: usize,
    column_major: bool,
) -> Result<Vec<Vec<f64>>> {
    let need = n.checked_mul(d).and_then(|v| v.checked_mul(width));
    let data = need
        .and_then(|need| bytes.get(offset..offset.checked_add(need)?))
        .ok_or_else(|| {
            at(
                source,
                offset,
                "data",
                format!(
                    "expected {} bytes of data for a {n} × {d} array, found {}",
                    need.map_or_else(|| "more".to_owned(), |b| b.to_string()),
                    bytes.len().saturating_sub(offset)
                ),
            )
        })?;
    let value = |k: usize| -> Result<f64> {
        let b = &data[k * width..(k + 1) * width];
        let x = if width == 4 {
            f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        } else {
            f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        };
        if x.is_finite() {
            Ok(x)
        } else {
            Err(at(
                source,
                offset + k * width,
                "data",
                format!("expected finite numbers, found {x}"),
            ))
        }
    };
    (0..n)
        .map(|i| {
            (0..d)
                .map(|j| value(if column_major { j * n + i } else { i * d + j }))
                .collect()
        })
        .collect()
}

fn npy(source: &str, bytes: &[u8]) -> Result<Vec<Vec<f64>>> {
    let version = bytes.get(6).copied().unwrap_or(0);
    let (length, start) = match version {
        1 => (le(source, bytes, 8, 2)? as usize, 10),
        2 | 3 => (le(source, bytes, 8, 4)? as usize, 12),
        v => {
            return Err(at(
                source,
                6,
                "header",
                format!("expected .npy format version 1, 2 or 3, found {v}"),
            ))
        }
    };
    let header = bytes
        .get(start..usize::saturating_add(start, length))
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| {
            at(
                source,
                start,
                "header",
                format!("expected a {length}-byte text header"),
            )
        })?;
    let bad = |what: &str| {
        at(
            source,
            start,
            "header",
            format!("expected {what}, found `{}`", header.trim()),
        )
    };
    let value_of = |key: &str| -> Option<&str> {
        let i = header.find(&format!("'{key}'"))?;
        let rest = header[i + key.len() + 2..].trim_start().strip_prefix(':')?;
        Some(rest.trim_start())
    };
    let descr = value_of("descr").ok_or_else(|| bad("a 'descr' entry"))?;
    let width = if descr.starts_with("'<f8'") {
        8
    } else if descr.starts_with("'<f4'") {
        4
    } else {
        return Err(bad(
            "'descr' '<f8' or '<f4' (little-endian 64- or 32-bit floats)",
        ));
    };
    let fortran = value_of("fortran_order").ok_or_else(|| bad("a 'fortran_order' entry"))?;
    let column_major = fortran.starts_with("True");
    let shape = value_of("shape")
        .and_then(|s| s.strip_prefix('('))
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("a 'shape' entry"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad("a shape of whole numbers"))?;
    let [n, d] = dims[..] else {
        return Err(bad("a 2-D shape (rows, dimension)"));
    };
    floats(source, bytes, start + length, (n, d), width, column_major)
}

fn safetensors(source: &str, bytes: &[u8]) -> Result<Vec<Vec<f64>>> {
    let length = usize::try_from(le(source, bytes, 0, 8)?).unwrap_or(usize::MAX);
    let header: serde_json::Value = bytes
        .get(8..8_usize.saturating_add(length))
        .and_then(|h| serde_json::from_slice(h).ok())
        .ok_or_else(|| {
            at(
                source,
                8,
                "header",
                format!("expected a {length}-byte JSON header"),
            )
        })?;
    let tensors: Vec<(&String, &serde_json::Value)> = header
        .as_object()
        .map(|o| o.iter().filter(|(k, _)| *k != "__metadata__").collect())
        .unwrap_or_default();
    let (_, tensor) = match tensors.iter().find(|(k, _)| *k == "embeddings") {
        Some(t) => *t,
        None if tensors.len() == 1 => tensors[0],
        None => {
            return Err(at(
                source,
                8,
                "header",
                format!(
                    "expected one tensor or one named `embeddings`, found {}",
                    tensors
                        .iter()
                        .map(|(k, _)| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
    };
    let width = match tensor["dtype"].as_str() {
        Some("F64") => 8,
        Some("F32") => 4,
        other => {
            return Err(at(
                source,
                8,
                "header",
                format!("expected dtype F64 or F32, found {other:?}"),
            ))
        }
    };
    let dims: Vec<usize> = tensor["shape"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_u64())
                .map(|v| v as usize)
                .collect()
        })
        .unwrap_or_default();
    let [n, d] = dims[..] else {
        return Err(at(
            source,
            8,
            "header",
            format!(
                "expected a 2-D shape [rows, dimension], found {}",
                tensor["shape"]
            ),
        ));
    };
    let begin = tensor["data_offsets"][0].as_u64().unwrap_or(0);
    let start = usize::try_from(begin)
        .ok()
        .and_then(|b| (8 + length).checked_add(b))
        .unwrap_or(usize::MAX);
    floats(source, bytes, start, (n, d), width, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An .npy file of version 1 with `header` (padded as NumPy pads) and `data`.
    fn npy_file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut h = header.to_owned();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn f64s(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn npy_rows_in_either_order_and_both_widths() {
        let c = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
            &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        );
        assert_eq!(
            read_embeddings("e.npy", &c).unwrap(),
            [vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]]
        );
        let f = npy_file(
            "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
            &f64s(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]),
        );
        assert_eq!(
            read_embeddings("e.npy", &f).unwrap(),
            read_embeddings("e.npy", &c).unwrap()
        );
        let single: Vec<u8> = [0.5f32, -2.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let s = npy_file(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
            &single,
        );
        assert_eq!(read_embeddings("e.npy", &s).unwrap(), [vec![0.5, -2.0]]);
    }

    #[test]
    fn safetensors_named_or_single_tensor() {
        let header = r#"{"__metadata__":{"model":"x"},"embeddings":{"dtype":"F64","shape":[2,2],"data_offsets":[0,32]}}"#;
        let mut file = (header.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(header.as_bytes());
        file.extend(f64s(&[1.0, 2.0, 3.0, 4.0]));
        assert_eq!(
            read_embeddings("e.safetensors", &file).unwrap(),
            [vec![1.0, 2.0], vec![3.0, 4.0]]
        );
    }

    #[test]
    fn malformed_arrays_are_located() {
        let err = |bytes: &[u8]| read_embeddings("e.npy", bytes).unwrap_err().to_string();
        assert!(err(b"hello world").starts_with("e.npy, byte 0 (`magic`): expected a .npy file"));
        let ints = npy_file(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), }",
            &[0; 8],
        );
        assert!(err(&ints).contains("(`header`): expected 'descr' '<f8' or '<f4'"));
        let flat = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
            &[0; 24],
        );
        assert!(err(&flat).contains("expected a 2-D shape"));
        let short = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
            &[0; 8],
        );
        assert_eq!(
            err(&short),
            "e.npy, byte 128 (`data`): expected 32 bytes of data for a 2 × 2 array, found 8"
        );
        let huge = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }",
            &[0; 8],
        );
        assert!(
            err(&huge).contains("expected more bytes of data"),
            "{}",
            err(&huge)
        );
        let nan = npy_file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }",
            &f64s(&[1.0, f64::NAN]),
        );
        assert_eq!(
            err(&nan),
            "e.npy, byte 136 (`data`): expected finite numbers, found NaN"
        );
    }
}
