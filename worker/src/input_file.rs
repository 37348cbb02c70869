//! Reading the files a command is given: a path, or `-` for standard input.

use anyhow::Context;
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
