//! What makes a result reproducible besides its settings and seeds (field guide, Part VI): the
//! version of the tool that computed it — and the git commit when it was built from a checkout
//! — and the SHA-256 of every input file.
//!
//! The library is compiled without the commit: the program that records a result (the worker
//! binary) compiles its own in and passes it to [`ToolVersion::new`], so a commit that leaves
//! `shared/` alone does not rebuild the library's five builds (native, its tests, the wheel's,
//! wasm dev and release).
//!
//! Arguments: the input's name and bytes; the caller's commit. Returns: [`ToolVersion`] and
//! [`InputFile`] records, serialisable into any JSON document. No errors.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The tool and build that computed a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolVersion {
    /// `tribunal`.
    pub tool: String,
    /// The crate version.
    pub version: String,
    /// The git commit of the checkout the build came from; `None` when it was not built from
    /// one.
    pub commit: Option<String>,
}

impl ToolVersion {
    /// This version of the tool, built from `commit` (the caller's build: `None` when it was
    /// not built from a checkout).
    pub fn new(commit: Option<&str>) -> Self {
        Self {
            tool: "tribunal".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            commit: commit.map(str::to_owned),
        }
    }
}

/// One input file as it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path (or `<stdin>`) as given.
    pub path: String,
    /// `sha256:` and the hex digest of the bytes ([`content_hash`]).
    pub sha256: String,
    pub bytes: u64,
}

impl InputFile {
    /// The record of `bytes` read from `path`.
    pub fn new(path: &str, bytes: &[u8]) -> Self {
        Self {
            path: path.to_owned(),
            sha256: content_hash(bytes),
            bytes: bytes.len() as u64,
        }
    }
}

/// `sha256:` and the 64 hex digits of the SHA-256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    content_hash_of_digest(&Sha256::digest(bytes))
}

/// [`content_hash`]'s spelling of a SHA-256 `digest` computed elsewhere (a browser's own
/// `crypto.subtle`): `sha256:` and its hex digits.
pub fn content_hash_of_digest(digest: &[u8]) -> String {
    let mut hex = String::with_capacity(7 + 2 * digest.len());
    hex.push_str("sha256:");
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_recorded_by_its_sha256() {
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        let f = InputFile::new("a.csv", b"abc");
        assert_eq!(
            f.sha256,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(f.bytes, 3);
        let v = ToolVersion::new(Some("abc"));
        assert_eq!((v.tool.as_str(), v.version.as_str()), ("tribunal", "0.1.0"));
        assert_eq!(v.commit.as_deref(), Some("abc"));
    }
}
