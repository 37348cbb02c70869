//! Local-only sharing: an on-device analysis with its data, carried in a URL fragment.
//!
//! Model: the [`SharedAnalysis`] (the file's name and text, and the [`AnalysisSpec`] whose
//! dataset is the text's [`content_hash`]) is serialised as JSON, compressed with raw DEFLATE
//! (level 9) and written as unpadded base64url after the version tag `v1.`. A browser never
//! sends a URL's fragment to a server, so whoever opens `…/#share=<fragment>` recomputes the
//! analysis on their own device from data no server saw.
//!
//! Arguments: the analysis to [`encode`]; a fragment (without `#share=`) to [`decode`].
//!
//! Returns: the fragment text, or the decoded analysis with its data checked against the
//! spec's hash.
//!
//! Errors: an encoding longer than [`MAX_FRAGMENT_CHARS`] is [`Error::Insufficient`] with the
//! size and the limit; a fragment with another version, bad base64, bad DEFLATE, more than
//! [`MAX_DATA_BYTES`] once inflated, bad JSON, or data that does not match the spec's hash is
//! [`Error::Input`] located at the field `fragment`.

use crate::error::{Error, Location, Result};
use crate::session::{content_hash, AnalysisSpec};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

/// The longest fragment [`encode`] writes: links much longer than this break in mail clients,
/// chat apps and some browsers.
pub const MAX_FRAGMENT_CHARS: usize = 65_536;
/// The most bytes [`decode`] inflates a fragment to.
pub const MAX_DATA_BYTES: usize = 16 << 20;
const VERSION: &str = "v1.";

/// An analysis and the data it reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedAnalysis {
    /// The data file's name, as the analysis shows it.
    pub name: String,
    /// The data file's text.
    pub data: String,
    pub spec: AnalysisSpec,
}

/// The fragment text of `shared` (to follow `#share=`).
pub fn encode(shared: &SharedAnalysis) -> Result<String> {
    let json = serde_json::to_vec(shared)
        .map_err(|e| Error::Insufficient(format!("the analysis cannot be serialised: {e}")))?;
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let fragment = format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(packed));
    if fragment.len() > MAX_FRAGMENT_CHARS {
        return Err(Error::Insufficient(format!(
            "{} ({} bytes) compresses to a {}-character link fragment; a link holds at most {MAX_FRAGMENT_CHARS}: share it through a session on a worker instead",
            shared.name,
            shared.data.len(),
            fragment.len()
        )));
    }
    Ok(fragment)
}

/// The analysis in `fragment`, its data checked against the spec's dataset hash.
pub fn decode(fragment: &str) -> Result<SharedAnalysis> {
    let bad = |message: String| {
        Error::input(
            Location {
                field: Some("fragment".to_owned()),
                ..Location::line("shared link", 0)
            },
            message,
        )
    };
    let body = fragment.strip_prefix(VERSION).ok_or_else(|| {
        bad(format!(
            "expected a fragment starting with `{VERSION}`, found `{}`",
            fragment.chars().take(8).collect::<String>()
        ))
    })?;
    let packed = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|e| bad(format!("not base64url: {e} (was the link cut short?)")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_DATA_BYTES)
        .map_err(|e| {
            bad(format!(
                "not DEFLATE data of at most {MAX_DATA_BYTES} bytes: {e}"
            ))
        })?;
    let shared: SharedAnalysis =
        serde_json::from_slice(&json).map_err(|e| bad(format!("not a shared analysis: {e}")))?;
    let hash = content_hash(shared.data.as_bytes());
    if hash != shared.spec.dataset() {
        return Err(bad(format!(
            "the data hash to {hash}, the analysis names {}",
            shared.spec.dataset()
        )));
    }
    Ok(shared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resample::BootstrapParams;

    fn shared(data: &str) -> SharedAnalysis {
        SharedAnalysis {
            name: "b.csv".to_owned(),
            data: data.to_owned(),
            spec: AnalysisSpec::Leaderboard {
                dataset: content_hash(data.as_bytes()),
                bootstrap: BootstrapParams {
                    rounds: 200,
                    seed: 7,
                    level: 0.9,
                },
                anchor: None,
            },
        }
    }

    #[test]
    fn round_trips_and_compresses_repetitive_csv() {
        let data = "model_a,model_b,winner\n".to_owned() + &"A,B,model_a\n".repeat(5000);
        let s = shared(&data);
        let fragment = encode(&s).unwrap();
        assert!(fragment.starts_with("v1."));
        assert!(fragment.len() < data.len() / 20, "{}", fragment.len());
        assert!(fragment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
        assert_eq!(decode(&fragment).unwrap(), s);
    }

    #[test]
    fn too_large_data_says_size_and_limit() {
        // Incompressible text: a seeded pseudo-random hex stream of 100 kB.
        let mut x: u64 = 1;
        let data: String = (0..100_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from_digit(((x >> 60) & 15) as u32, 16).unwrap_or('0')
            })
            .collect();
        let e = encode(&shared(&data)).unwrap_err();
        assert!(e.to_string().contains("at most 65536"), "{e}");
    }

    #[test]
    fn damaged_fragments_are_located_errors() {
        let fragment = encode(&shared("model_a,model_b,winner\nA,B,tie\n")).unwrap();
        for bad in [
            fragment.replacen("v1.", "v2.", 1),
            fragment[..fragment.len() / 2].to_owned(),
            format!("{fragment}*"),
        ] {
            let e = decode(&bad).unwrap_err();
            assert_eq!(
                e.location().and_then(|l| l.field.as_deref()),
                Some("fragment"),
                "{e}"
            );
        }
        let mut s = shared("model_a,model_b,winner\nA,B,tie\n");
        s.data.push_str("B,A,tie\n");
        let tampered = format!(
            "v1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(
                &serde_json::to_vec(&s).unwrap(),
                9
            ))
        );
        assert!(decode(&tampered).unwrap_err().to_string().contains("hash"));
    }
}
