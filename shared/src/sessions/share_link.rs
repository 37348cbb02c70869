//! Local-only sharing: an on-device analysis with its data, carried in a URL fragment.
//!
//! Model: the [`SharedAnalysis`] (an [`analysis::Spec`] and its input files, each named and
//! checked against the spec's content hash) is serialised as JSON — every file as text, or
//! base64 for a binary kind — compressed with raw DEFLATE (level 9) and written as unpadded
//! base64url after the version tag `v2.`. A browser never sends a URL's fragment to a server,
//! so whoever opens `…/#share=<fragment>` recomputes the analysis on their own device from data
//! no server saw. Links of version 1 (`v1.`: one battles file and a leaderboard) still open, as
//! the leaderboard spec they meant.
//!
//! Arguments: the analysis to [`encode`]; a fragment (without `#share=`) to [`decode`].
//!
//! Returns: the fragment text, or the decoded analysis with its files checked against the
//! spec.
//!
//! Errors: an encoding longer than [`MAX_FRAGMENT_CHARS`] is [`Error::Insufficient`] with the
//! size and the limit; a fragment with another version, bad base64, bad DEFLATE, more than
//! [`MAX_DATA_BYTES`] once inflated, bad JSON, or files that are not the spec's (by role and
//! content hash) is [`Error::Input`] located at the field `fragment`.

use crate::analysis::{Inputs, Spec};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Location, Result};
use crate::sessions::session::SpecV1;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The longest fragment [`encode`] writes: links much longer than this break in mail clients,
/// chat apps and some browsers.
pub const MAX_FRAGMENT_CHARS: usize = 65_536;
/// The most bytes [`decode`] inflates a fragment to.
pub const MAX_DATA_BYTES: usize = 16 << 20;
const VERSION: &str = "v2.";
const VERSION_1: &str = "v1.";

/// An analysis and the files it reads.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedAnalysis {
    pub spec: Spec,
    pub inputs: Inputs,
}

/// A file in a link: its name and content (text, or standard base64 for a binary kind).
#[derive(Serialize, Deserialize)]
struct LinkFile {
    name: String,
    content: String,
}

/// What a `v2.` fragment holds.
#[derive(Serialize, Deserialize)]
struct Link {
    spec: Spec,
    files: BTreeMap<String, LinkFile>,
}

/// What a `v1.` fragment held: one battles file and a leaderboard spec.
#[derive(Deserialize)]
struct LinkV1 {
    name: String,
    data: String,
    spec: SpecV1,
}

/// The fragment text of `shared` (to follow `#share=`).
pub fn encode(shared: &SharedAnalysis) -> Result<String> {
    let files = shared
        .spec
        .inputs
        .keys()
        .map(|role| {
            let input = shared.inputs.get(role)?;
            let content = if shared
                .spec
                .analysis
                .roles()
                .kind_of(role)
                .is_some_and(DatasetKind::is_binary)
            {
                STANDARD.encode(&input.bytes)
            } else {
                String::from_utf8_lossy(&input.bytes).into_owned()
            };
            let file = LinkFile {
                name: input.name.clone(),
                content,
            };
            Ok((role.clone(), file))
        })
        .collect::<Result<BTreeMap<_, _>>>()?;
    let link = Link {
        spec: shared.spec.clone(),
        files,
    };
    let json = serde_json::to_vec(&link)
        .map_err(|e| Error::Insufficient(format!("the analysis cannot be serialised: {e}")))?;
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let fragment = format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(packed));
    if fragment.len() > MAX_FRAGMENT_CHARS {
        let names: Vec<&str> = link.files.values().map(|f| f.name.as_str()).collect();
        let bytes: usize = link.files.values().map(|f| f.content.len()).sum();
        return Err(Error::Insufficient(format!(
            "{} ({bytes} bytes) compresses to a {}-character link fragment; a link holds at most {MAX_FRAGMENT_CHARS}: share it through a session on a worker instead",
            names.join(", "),
            fragment.len()
        )));
    }
    Ok(fragment)
}

/// The analysis in `fragment`, its files checked against the spec.
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
    let (version, body) = [VERSION, VERSION_1]
        .into_iter()
        .find_map(|v| fragment.strip_prefix(v).map(|body| (v, body)))
        .ok_or_else(|| {
            bad(format!(
                "expected a fragment starting with `{VERSION}` (or `{VERSION_1}`), found `{}`",
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
    let not_shared = |e: serde_json::Error| bad(format!("not a shared analysis: {e}"));
    let mut inputs = Inputs::new();
    let spec = if version == VERSION_1 {
        let link: LinkV1 = serde_json::from_slice(&json).map_err(not_shared)?;
        let mut spec = link.spec.upgrade();
        for input in spec.inputs.values_mut() {
            input.name.clone_from(&link.name);
        }
        inputs.insert("battles", link.name, link.data.into_bytes());
        spec
    } else {
        let link: Link = serde_json::from_slice(&json).map_err(not_shared)?;
        for (role, file) in link.files {
            let bytes = if link
                .spec
                .analysis
                .roles()
                .kind_of(&role)
                .is_some_and(DatasetKind::is_binary)
            {
                STANDARD
                    .decode(&file.content)
                    .map_err(|e| bad(format!("{}: not base64: {e}", file.name)))?
            } else {
                file.content.into_bytes()
            };
            inputs.insert(role, file.name, bytes);
        }
        link.spec
    };
    spec.check(&inputs).map_err(|e| bad(e.to_string()))?;
    Ok(SharedAnalysis { spec, inputs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Analysis;
    use crate::math::resample::BootstrapParams;
    use crate::rankings::kinds::LeaderboardSpec;

    fn shared(data: &str) -> SharedAnalysis {
        let mut inputs = Inputs::new();
        inputs.insert("battles", "b.csv", data.as_bytes().to_vec());
        let board = LeaderboardSpec {
            bootstrap: BootstrapParams {
                rounds: 200,
                seed: 7,
                level: 0.9,
            },
            ..LeaderboardSpec::default()
        };
        SharedAnalysis {
            spec: Spec::new(Analysis::Leaderboard(board), &inputs),
            inputs,
        }
    }

    #[test]
    fn round_trips_and_compresses_repetitive_csv() {
        let data = "model_a,model_b,winner\n".to_owned() + &"A,B,model_a\n".repeat(5000);
        let s = shared(&data);
        let fragment = encode(&s).unwrap();
        assert!(fragment.starts_with("v2."));
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
            fragment.replacen("v2.", "v3.", 1),
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
        let s = shared("model_a,model_b,winner\nA,B,tie\n");
        let link = serde_json::json!({
            "spec": s.spec,
            "files": {"battles": {"name": "b.csv", "content": "model_a,model_b,winner\nA,B,tie\nB,A,tie\n"}},
        });
        let tampered = format!("v2.{}", pack(&link));
        let e = decode(&tampered).unwrap_err().to_string();
        assert!(e.contains("not the file the spec was made on"), "{e}");
    }

    fn pack(value: &serde_json::Value) -> String {
        URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(
            &serde_json::to_vec(value).unwrap(),
            9,
        ))
    }

    #[test]
    fn a_version_1_link_opens_as_the_leaderboard_it_shared() {
        let data = "model_a,model_b,winner\nA,B,model_a\nB,A,tie\n";
        let old = serde_json::json!({
            "name": "old.csv",
            "data": data,
            "spec": {"statistic": "leaderboard", "dataset": crate::io::provenance::content_hash(data.as_bytes()),
                     "bootstrap": {"rounds": 200, "seed": 7, "level": 0.9}, "anchor": null},
        });
        let opened = decode(&format!("v1.{}", pack(&old))).unwrap();
        let mut expected = shared(data);
        expected.spec.inputs.get_mut("battles").unwrap().name = "old.csv".to_owned();
        let mut inputs = Inputs::new();
        inputs.insert("battles", "old.csv", data.as_bytes().to_vec());
        expected.inputs = inputs;
        assert_eq!(opened, expected);
    }

    #[test]
    fn binary_files_travel_as_base64() {
        let npy = crate::io::embedding_file::npy_f32(&[vec![0.5, 1.5]], 2);
        let mut inputs = Inputs::new();
        inputs.insert("train", "train.csv", b"embedding,score,human\n".to_vec());
        inputs.insert("test", "test.csv", b"embedding,score,human\n".to_vec());
        inputs.insert("train_embeddings", "train.npy", npy.clone());
        inputs.insert("test_embeddings", "test.npy", npy);
        let spec: Spec = serde_json::from_value(serde_json::json!({
            "version": 1, "analysis": "calibration", "head": "ls",
            "calibration": crate::calibration::CalibrationParams::default(),
            "ablation": null, "training_curve": null, "inputs": {}
        }))
        .unwrap();
        let shared = SharedAnalysis {
            spec: Spec::new(spec.analysis, &inputs),
            inputs,
        };
        assert_eq!(decode(&encode(&shared).unwrap()).unwrap(), shared);
    }
}
