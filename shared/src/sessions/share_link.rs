//! Local-only sharing: an on-device analysis with its data, carried in a URL fragment.
//!
//! Model: the [`SharedAnalysis`] (an [`analysis::Spec`] and its input files, each named and
//! checked against the spec's content hash) is packed as a JSON header — the spec, and for each
//! role the file's name and how its bytes travel — followed by the files' bytes, compressed
//! with Brotli (quality 10, 4 MiB window) and written as unpadded base64url after the version
//! tag `v3.`. A file travels in one of three ways:
//! - a CSV that [`column_major`] restores byte for byte, column by column (its repeats side by
//!   side compress about a third better than row by row);
//! - any other file as its bytes (an embeddings file is not base64-inflated first);
//! - a file the app bundles as an example (its content hash is in the `bundled` map given to
//!   [`encode`]) by the example's name only: whoever opens the link fetches it from the app's
//!   own `/examples/` and its content hash is checked against the spec like a carried file's.
//!
//! A browser never sends a URL's fragment to a server, so whoever opens `…/#share=<fragment>`
//! recomputes the analysis on their own device from data no server saw. Links of version 2
//! (`v2.`: JSON with every file as text or base64, raw DEFLATE) and 1 (`v1.`: one battles
//! file and a leaderboard) still open, as the analyses they meant.
//!
//! Arguments: the analysis and the bundled examples (content hash → example name) to
//! [`encode`]; a fragment (without `#share=`) to [`decode`], then the bundled files' bytes to
//! [`Decoded::resolve`].
//!
//! Returns: the fragment text; the decoded link, whose [`Decoded::bundled`] files the caller
//! fetches, resolved into the analysis with its files checked against the spec.
//!
//! Errors: an encoding longer than [`MAX_FRAGMENT_CHARS`] is [`Error::Insufficient`] with the
//! size and the limit; a fragment with another version, bad base64, bad compressed data, more
//! than [`MAX_DATA_BYTES`] once decompressed, a bad header, an example name that is not a
//! plain file name, or files that are not the spec's (by role and content hash) is
//! [`Error::Input`] located at the field `fragment`.

use crate::analysis::{Inputs, Spec};
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Location, Result};
use crate::io::provenance::content_hash;
use crate::sessions::column_major::{from_columns, to_columns, Layout};
use crate::sessions::session::SpecV1;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;

/// The longest fragment [`encode`] writes: links much longer than this break in mail clients,
/// chat apps and some browsers.
pub const MAX_FRAGMENT_CHARS: usize = 65_536;
/// The most bytes [`decode`] decompresses a fragment to.
pub const MAX_DATA_BYTES: usize = 16 << 20;
const VERSION: &str = "v3.";
const VERSION_2: &str = "v2.";
const VERSION_1: &str = "v1.";
/// Brotli's quality: 11 is 5% shorter on CSV and 5× slower.
const QUALITY: i32 = 10;
/// Brotli's window, log2 bytes.
const WINDOW: i32 = 22;

/// An analysis and the files it reads.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedAnalysis {
    pub spec: Spec,
    pub inputs: Inputs,
}

/// How a file's bytes travel in a `v3.` link.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "body", rename_all = "snake_case")]
enum Body {
    /// `len` bytes as they are.
    Bytes { len: usize },
    /// `len` bytes of a CSV's fields column by column.
    Columns { len: usize, layout: Layout },
    /// Not carried: the app's bundled example of this name.
    Bundled { example: String },
}

/// A file in a `v3.` link's header.
#[derive(Debug, Serialize, Deserialize)]
struct PackedFile {
    name: String,
    #[serde(flatten)]
    body: Body,
}

/// A `v3.` link's header; the carried files' bytes follow it in role order.
#[derive(Serialize, Deserialize)]
struct Header {
    spec: Spec,
    files: BTreeMap<String, PackedFile>,
}

/// A file in a `v2.` link: its name and content (text, or standard base64 for a binary kind).
#[derive(Deserialize)]
struct LinkFile {
    name: String,
    content: String,
}

/// What a `v2.` fragment held.
#[derive(Deserialize)]
struct LinkV2 {
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

/// An input error at the field `fragment` of the shared link.
fn bad(message: String) -> Error {
    Error::input(
        Location {
            field: Some("fragment".to_owned()),
            ..Location::line("shared link", 0)
        },
        message,
    )
}

/// The fragment text of `shared` (to follow `#share=`); a file whose content hash is a key of
/// `bundled` travels as that example's name.
pub fn encode(shared: &SharedAnalysis, bundled: &BTreeMap<String, String>) -> Result<String> {
    let mut files = BTreeMap::new();
    let mut bodies = Vec::new();
    for role in shared.spec.inputs.keys() {
        let input = shared.inputs.get(role)?;
        let body = match bundled.get(&content_hash(&input.bytes)) {
            Some(example) => Body::Bundled {
                example: example.clone(),
            },
            None => match to_columns(&input.bytes) {
                Some((layout, columns)) => {
                    bodies.extend_from_slice(&columns);
                    Body::Columns {
                        len: columns.len(),
                        layout,
                    }
                }
                None => {
                    bodies.extend_from_slice(&input.bytes);
                    Body::Bytes {
                        len: input.bytes.len(),
                    }
                }
            },
        };
        let name = input.name.clone();
        files.insert(role.clone(), PackedFile { name, body });
    }
    let header = Header {
        spec: shared.spec.clone(),
        files,
    };
    let json = serde_json::to_vec(&header)
        .map_err(|e| Error::Insufficient(format!("the analysis cannot be serialised: {e}")))?;
    let carried: Vec<&str> = header
        .files
        .values()
        .filter(|f| !matches!(f.body, Body::Bundled { .. }))
        .map(|f| f.name.as_str())
        .collect();
    let mut payload = Vec::with_capacity(4 + json.len() + bodies.len());
    payload.extend_from_slice(&u32::try_from(json.len()).unwrap_or(u32::MAX).to_le_bytes());
    payload.extend_from_slice(&json);
    payload.extend_from_slice(&bodies);
    if payload.len() > MAX_DATA_BYTES {
        return Err(Error::Insufficient(format!(
            "{} ({} bytes) is more than a link carries ({MAX_DATA_BYTES} bytes before compression): share it through a session on a worker instead",
            carried.join(", "),
            bodies.len()
        )));
    }
    let params = brotli::enc::BrotliEncoderParams {
        quality: QUALITY,
        lgwin: WINDOW,
        size_hint: payload.len(),
        ..Default::default()
    };
    let mut packed = Vec::new();
    brotli::BrotliCompress(&mut payload.as_slice(), &mut packed, &params)
        .map_err(|e| Error::Insufficient(format!("the analysis cannot be compressed: {e}")))?;
    let fragment = format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(packed));
    if fragment.len() > MAX_FRAGMENT_CHARS {
        return Err(Error::Insufficient(format!(
            "{} ({} bytes) compresses to a {}-character link fragment; a link holds at most {MAX_FRAGMENT_CHARS}: share it through a session on a worker instead",
            carried.join(", "),
            bodies.len(),
            fragment.len()
        )));
    }
    Ok(fragment)
}

/// A file a link names but does not carry: the app's bundled example `example`, read in
/// `role` as `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundledFile {
    pub role: String,
    pub name: String,
    pub example: String,
}

/// A decoded link: the spec, the files it carried and the bundled ones to fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    spec: Spec,
    inputs: Inputs,
    /// The bundled examples the link names: fetch each, then [`Decoded::resolve`].
    pub bundled: Vec<BundledFile>,
}

impl Decoded {
    /// The analysis, with the bundled files' `fetched` bytes (by role) beside the carried
    /// ones, every file checked against the spec.
    ///
    /// # Errors
    /// [`Error::Input`] at the field `fragment` when a file is missing or is not the one the
    /// spec was made on.
    pub fn resolve(self, fetched: Vec<(String, Vec<u8>)>) -> Result<SharedAnalysis> {
        let Self {
            spec,
            mut inputs,
            bundled,
        } = self;
        for (role, bytes) in fetched {
            if let Some(file) = bundled.iter().find(|b| b.role == role) {
                inputs.insert(role, file.name.clone(), bytes);
            }
        }
        spec.check(&inputs).map_err(|e| bad(e.to_string()))?;
        Ok(SharedAnalysis { spec, inputs })
    }
}

/// The link in `fragment`: its spec and carried files, and the bundled files it names.
pub fn decode(fragment: &str) -> Result<Decoded> {
    let (version, body) = [VERSION, VERSION_2, VERSION_1]
        .into_iter()
        .find_map(|v| fragment.strip_prefix(v).map(|body| (v, body)))
        .ok_or_else(|| {
            bad(format!(
                "expected a fragment starting with `{VERSION}` (or `{VERSION_2}`, `{VERSION_1}`), found `{}`",
                fragment.chars().take(8).collect::<String>()
            ))
        })?;
    let packed = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|e| bad(format!("not base64url: {e} (was the link cut short?)")))?;
    if version == VERSION {
        return decode_v3(&packed);
    }
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
        let link: LinkV2 = serde_json::from_slice(&json).map_err(not_shared)?;
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
    Ok(Decoded {
        spec,
        inputs,
        bundled: Vec::new(),
    })
}

/// Whether `name` is a plain file name (what an example may be called).
fn plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// A `v3.` link's Brotli-compressed payload.
fn decode_v3(packed: &[u8]) -> Result<Decoded> {
    let mut payload = Vec::new();
    brotli::Decompressor::new(packed, 4096)
        .take(MAX_DATA_BYTES as u64 + 1)
        .read_to_end(&mut payload)
        .map_err(|e| bad(format!("not Brotli data: {e} (was the link cut short?)")))?;
    if payload.len() > MAX_DATA_BYTES {
        return Err(bad(format!(
            "more than {MAX_DATA_BYTES} bytes once decompressed"
        )));
    }
    let (length, rest) = payload
        .split_first_chunk::<4>()
        .ok_or_else(|| bad("no header".to_owned()))?;
    let length = u32::from_le_bytes(*length) as usize;
    let (json, mut bodies) = rest
        .split_at_checked(length)
        .ok_or_else(|| bad(format!("a {length}-byte header in {} bytes", rest.len())))?;
    let header: Header =
        serde_json::from_slice(json).map_err(|e| bad(format!("not a shared analysis: {e}")))?;
    let mut inputs = Inputs::new();
    let mut bundled = Vec::new();
    for (role, PackedFile { name, body }) in header.files {
        let mut take = |len: usize| {
            let (bytes, rest) = bodies.split_at_checked(len).ok_or_else(|| {
                bad(format!(
                    "{name}: {len} bytes announced, {} left in the link",
                    bodies.len()
                ))
            })?;
            bodies = rest;
            Ok::<_, Error>(bytes)
        };
        match body {
            Body::Bytes { len } => {
                let bytes = take(len)?.to_vec();
                inputs.insert(role, name, bytes);
            }
            Body::Columns { len, layout } => {
                let bytes = from_columns(layout, take(len)?)
                    .map_err(|message| bad(format!("{name}: {message}")))?;
                inputs.insert(role, name, bytes);
            }
            Body::Bundled { example } => {
                if !plain_file_name(&example) {
                    return Err(bad(format!(
                        "{name}: the bundled example `{example}` is not a plain file name"
                    )));
                }
                bundled.push(BundledFile {
                    role,
                    name,
                    example,
                });
            }
        }
    }
    if !bodies.is_empty() {
        return Err(bad(format!("{} bytes after the last file", bodies.len())));
    }
    Ok(Decoded {
        spec: header.spec,
        inputs,
        bundled,
    })
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
        let fragment = encode(&s, &BTreeMap::new()).unwrap();
        assert!(fragment.starts_with("v3."));
        assert!(fragment.len() < data.len() / 20, "{}", fragment.len());
        assert!(fragment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
        assert_eq!(opened(&fragment), s);
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
        let e = encode(&shared(&data), &BTreeMap::new()).unwrap_err();
        assert!(e.to_string().contains("at most 65536"), "{e}");
    }

    #[test]
    fn damaged_fragments_are_located_errors() {
        let fragment = encode(
            &shared("model_a,model_b,winner\nA,B,tie\n"),
            &BTreeMap::new(),
        )
        .unwrap();
        for bad in [
            fragment.replacen("v3.", "v4.", 1),
            fragment[..fragment.len() / 2].to_owned(),
            format!("{fragment}*"),
        ] {
            let e = decode(&bad)
                .and_then(|d| d.resolve(Vec::new()))
                .unwrap_err();
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
        let e = decode(&tampered)
            .and_then(|d| d.resolve(Vec::new()))
            .unwrap_err()
            .to_string();
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
        let opened = opened(&format!("v1.{}", pack(&old)));
        let mut expected = shared(data);
        expected.spec.inputs.get_mut("battles").unwrap().name = "old.csv".to_owned();
        let mut inputs = Inputs::new();
        inputs.insert("battles", "old.csv", data.as_bytes().to_vec());
        expected.inputs = inputs;
        assert_eq!(opened, expected);
    }

    #[test]
    fn binary_files_travel_as_their_bytes() {
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
        let fragment = encode(&shared, &BTreeMap::new()).unwrap();
        assert_eq!(opened(&fragment), shared);
    }

    /// The analysis of a link that names no bundled file.
    fn opened(fragment: &str) -> SharedAnalysis {
        let decoded = decode(fragment).unwrap();
        assert_eq!(decoded.bundled, []);
        decoded.resolve(Vec::new()).unwrap()
    }

    #[test]
    fn a_version_2_link_opens_as_the_analysis_it_shared() {
        let s = shared("model_a,model_b,winner\nA,B,tie\n");
        let link = serde_json::json!({
            "spec": s.spec,
            "files": {"battles": {"name": "b.csv", "content": "model_a,model_b,winner\nA,B,tie\n"}},
        });
        assert_eq!(opened(&format!("v2.{}", pack(&link))), s);
    }

    #[test]
    fn a_real_battles_file_column_by_column_takes_half_the_characters_of_version_2() {
        let data = include_str!("../../../tests/data/llmfao/crowd-comparisons.csv");
        let s = shared(data);
        let v3 = encode(&s, &BTreeMap::new()).unwrap();
        let v2 = pack(&serde_json::json!({
            "spec": s.spec,
            "files": {"battles": {"name": "b.csv", "content": data}},
        }));
        assert!(v3.len() * 10 < v2.len() * 6, "{} vs {}", v3.len(), v2.len());
        assert_eq!(opened(&v3), s);
    }

    #[test]
    fn a_bundled_example_travels_by_name_and_is_checked_once_fetched() {
        let data = "model_a,model_b,winner\n".to_owned() + &"A,B,model_a\n".repeat(50_000);
        let s = shared(&data);
        let bundled = BTreeMap::from([(
            content_hash(data.as_bytes()),
            "crowd-comparisons.csv".to_owned(),
        )]);
        let fragment = encode(&s, &bundled).unwrap();
        assert!(fragment.len() < 400, "{}", fragment.len());
        let decoded = decode(&fragment).unwrap();
        assert_eq!(
            decoded.bundled,
            [BundledFile {
                role: "battles".to_owned(),
                name: "b.csv".to_owned(),
                example: "crowd-comparisons.csv".to_owned(),
            }]
        );
        let other = decoded
            .clone()
            .resolve(vec![(
                "battles".to_owned(),
                b"model_a,model_b,winner\n".to_vec(),
            )])
            .unwrap_err();
        assert!(
            other
                .to_string()
                .contains("not the file the spec was made on"),
            "{other}"
        );
        let missing = decoded.clone().resolve(Vec::new()).unwrap_err();
        assert!(
            missing.to_string().contains("no file was given"),
            "{missing}"
        );
        let fetched = vec![("battles".to_owned(), data.into_bytes())];
        assert_eq!(decoded.resolve(fetched).unwrap(), s);
    }

    #[test]
    fn an_example_name_that_is_a_path_is_refused() {
        let s = shared("model_a,model_b,winner\nA,B,tie\n");
        let hash = s.spec.inputs["battles"].hash.clone();
        for name in ["../api/sessions", "/etc/passwd", ".hidden", "a/b.csv", ""] {
            let fragment = encode(&s, &BTreeMap::from([(hash.clone(), name.to_owned())])).unwrap();
            let e = decode(&fragment).unwrap_err();
            assert!(
                e.to_string().contains("not a plain file name"),
                "{name}: {e}"
            );
        }
    }
}
