//! Reading the files a command is given: a path, or `-` for standard input; and the text column
//! of a CSV (what `tribunal embed` and `stats calibrate --rationale` embed).

use anyhow::{bail, Context};
use std::path::Path;

/// Reads an input file (`-` for stdin) and returns its name for messages and its bytes.
pub fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        Ok(("<stdin>".to_owned(), bytes))
    } else {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        Ok((path.display().to_string(), bytes))
    }
}

/// The `column` of every row of a CSV.
pub fn read_texts(source: &str, bytes: &[u8], column: &str) -> anyhow::Result<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes);
    let headers = reader
        .headers()
        .with_context(|| format!("{source}, line 1: expected a header row"))?
        .clone();
    let Some(index) = headers.iter().position(|h| h.trim() == column) else {
        bail!(
            "{source}, line 1: expected a `{column}` column, found `{}`",
            headers.iter().collect::<Vec<_>>().join(",")
        );
    };
    reader
        .records()
        .map(|r| {
            let r = r.with_context(|| format!("{source}: malformed CSV"))?;
            Ok(r.get(index).unwrap_or_default().to_owned())
        })
        .collect()
}
