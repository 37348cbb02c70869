//! The built app (`dist/`), served from memory, compressed once, with the headers that let a
//! browser cache it and that hold the page to what it needs.
//!
//! Loading ([`Assets::load`]): every regular file under `dist/` (hidden names skipped) is read
//! once at start-up. Each compressible file is kept Brotli- (quality 11) and gzip-compressed
//! (level 9) as well; the compressed copies are content-addressed under `dist/.compressed/`
//! (`<sha256 of the file>.br|.gz`, so a rebuilt file never meets a stale copy), made by a
//! background thread when missing — that file goes out uncompressed until then — and written
//! there for the next start when `dist/` is writable. A copy found there is read when it is
//! first asked for, not at start-up (a start reads no copy, so it takes a second rather than the
//! many it takes to decompress them all on a slow machine, and a server that only answers the
//! API never reads one), and checked then against its file's hash: a damaged copy is never
//! sent — that answer goes out uncompressed and the copy is removed, to be made again at the
//! next start. Copies of files no longer in `dist/` are removed.
//!
//! Answers ([`Assets::answer`]): `GET` and `HEAD` only (405 otherwise). The representation is
//! chosen by `Accept-Encoding` — Brotli, then gzip, then the file itself; `q=0` refuses one —
//! with `Vary: Accept-Encoding` and an `ETag` per representation; a matching `If-None-Match` is
//! 304. Content-hashed files (Trunk's `name-<hex>.ext`) are `Cache-Control: public,
//! max-age=31536000, immutable`; every other file (`index.html`, the service worker, the stats
//! and program workers) is `no-cache`, so it is revalidated by its ETag on each use. A path that
//! names no file is `index.html` (the app routes it): nothing outside `dist/` can be named.
//!
//! Policy ([`Assets::policy`]): the Content-Security-Policy of every answer allows scripts from
//! this origin and the inline scripts of `index.html` (by their SHA-256, read at start-up),
//! WebAssembly compilation (`'wasm-unsafe-eval'`), workers from this origin, connections
//! (fetch, the WebSocket) to this origin only, and nothing else: no `eval`, no plugins, no
//! framing (`frame-ancestors 'none'`), no `<base>`, no form submission. The program sandbox's
//! worker ([`PROGRAM_WORKER`]) gets [`PROGRAM_WORKER_POLICY`] instead: it may `eval` (a program
//! is compiled with `new Function`) and reach nothing. Every answer also carries
//! `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` (session ids live in
//! URLs).

use anyhow::{bail, Context, Result};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, Method, Response, StatusCode};
use base64::Engine;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use tribunal::io::provenance::content_hash;

/// The program sandbox's worker script (`public/program_worker.js`).
pub const PROGRAM_WORKER: &str = "program_worker.js";

/// The Content-Security-Policy of [`PROGRAM_WORKER`]: `eval` for the program, nothing else.
pub const PROGRAM_WORKER_POLICY: &str = "default-src 'none'; script-src 'unsafe-eval'";

/// `Cache-Control` of a content-hashed file.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Brotli quality and window (log2 bytes) of the compressed copies.
const BROTLI_QUALITY: u32 = 11;
const BROTLI_WINDOW: u32 = 22;

/// Most files and bytes `dist/` may hold: the app is a few files of a few MB.
const MOST_FILES: usize = 1_000;
const MOST_BYTES: u64 = 256 << 20;

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    const ALL: [Coding; 2] = [Coding::Brotli, Coding::Gzip];

    fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gz",
        }
    }

    fn compress(self, data: &[u8]) -> Result<Vec<u8>> {
        match self {
            Coding::Brotli => {
                let mut out = Vec::new();
                {
                    let mut writer = brotli::CompressorWriter::new(
                        &mut out,
                        1 << 16,
                        BROTLI_QUALITY,
                        BROTLI_WINDOW,
                    );
                    writer.write_all(data)?;
                }
                Ok(out)
            }
            Coding::Gzip => {
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                encoder.write_all(data)?;
                Ok(encoder.finish()?)
            }
        }
    }

    fn decompress(self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        match self {
            Coding::Brotli => brotli::Decompressor::new(data, 1 << 16).read_to_end(&mut out)?,
            Coding::Gzip => flate2::read::GzDecoder::new(data).read_to_end(&mut out)?,
        };
        Ok(out)
    }
}

/// One file of the app and its compressed copies (filled in once made).
struct Asset {
    content_type: &'static str,
    /// The first 16 hex digits of the file's SHA-256 (its ETag and its copies' name).
    hash: String,
    /// The whole SHA-256 in hex: the name of its copies.
    digest: String,
    identity: Bytes,
    compressed: [OnceLock<Bytes>; 2],
    /// A copy of each coding lies in the cache, not yet read (the first request reads it).
    unread: [AtomicBool; 2],
    immutable: bool,
    compressible: bool,
}

impl Asset {
    /// The copy in `coding` if it is made, read or (by this call) readable from `cache` and
    /// whole; a damaged copy is removed from `cache`.
    fn copy(&self, cache: &Path, coding: Coding) -> Option<&Bytes> {
        let made = &self.compressed[coding as usize];
        // One request reads a copy; another asking meanwhile gets the file itself.
        if made.get().is_none() && self.unread[coding as usize].swap(false, Ordering::AcqRel) {
            match read_copy(cache, &self.digest, coding) {
                Some(copy) => {
                    let _ = made.set(Bytes::from(copy));
                }
                None => {
                    tracing::warn!(
                        copy = %copy_path(cache, &self.digest, coding).display(),
                        "a compressed copy of the app is damaged: removed, made again at the next start"
                    );
                    let _ = std::fs::remove_file(copy_path(cache, &self.digest, coding));
                }
            }
        }
        made.get()
    }

    /// Whether a copy in `coding` is made or lies in the cache unread.
    fn has_copy(&self, coding: Coding) -> bool {
        self.compressed[coding as usize].get().is_some()
            || self.unread[coding as usize].load(Ordering::Acquire)
    }
}

/// The app, in memory, and the Content-Security-Policy its page needs.
pub struct Assets {
    files: HashMap<String, Arc<Asset>>,
    index: Arc<Asset>,
    policy: String,
    /// `dist/.compressed`, where the copies are kept.
    cache: PathBuf,
}

impl Assets {
    /// Reads `dist/` (which must hold `index.html`), notes the compressed copies already made
    /// (read when first asked for), and starts a thread that makes the missing ones.
    pub fn load(dist: &Path) -> Result<Arc<Self>> {
        let index = dist.join("index.html");
        if !index.is_file() {
            bail!(
                "the app is not built: {} is missing (looked in {}; run `trunk build --release` \
                 at the repository root, or pass --dist DIR)",
                index.display(),
                crate::install_paths::looked_in(&index)
            );
        }
        let mut found = Vec::new();
        walk(dist, "", &mut found, &mut 0)?;
        let cache = dist.join(".compressed");
        let mut files = HashMap::new();
        let mut missing = Vec::new();
        for (name, bytes) in found {
            let full_hash = content_hash(&bytes);
            let hash = full_hash["sha256:".len()..].to_owned();
            let asset = Asset {
                content_type: content_type(&name),
                hash: hash[..16].to_owned(),
                digest: hash.clone(),
                identity: Bytes::from(bytes),
                compressed: [OnceLock::new(), OnceLock::new()],
                unread: [AtomicBool::new(false), AtomicBool::new(false)],
                immutable: content_hashed(&name),
                compressible: compressible(&name),
            };
            if asset.compressible {
                for coding in Coding::ALL {
                    if copy_path(&cache, &hash, coding).is_file() {
                        asset.unread[coding as usize].store(true, Ordering::Release);
                    } else {
                        missing.push((name.clone(), hash.clone(), coding));
                    }
                }
            }
            files.insert(name, Arc::new(asset));
        }
        let Some(index) = files.get("index.html").cloned() else {
            bail!(
                "{} changed while it was read: index.html is gone",
                dist.display()
            );
        };
        let policy = document_policy(&String::from_utf8_lossy(&index.identity));
        let assets = Arc::new(Self {
            files,
            index,
            policy,
            cache,
        });
        prune(&assets.cache, &assets);
        if !missing.is_empty() {
            let assets = assets.clone();
            std::thread::spawn(move || assets.compress(missing));
        }
        Ok(assets)
    }

    /// The Content-Security-Policy of the page (and of every answer but the program worker's).
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// Whether every compressible file has both compressed copies (made, or kept and unread).
    pub fn compressed(&self) -> bool {
        self.files
            .values()
            .filter(|a| a.compressible)
            .all(|a| Coding::ALL.iter().all(|&c| a.has_copy(c)))
    }

    /// The answer to `method path` with the request's `headers`.
    pub fn answer(&self, method: &Method, path: &str, headers: &HeaderMap) -> Response<Body> {
        if method != Method::GET && method != Method::HEAD {
            let mut response = Response::new(Body::from("only GET and HEAD are served here\n"));
            *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
        let name = path.trim_start_matches('/');
        let asset = self.files.get(name).unwrap_or(&self.index);
        let accepted = headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let chosen = Coding::ALL
            .into_iter()
            .filter(|&c| accepts(accepted, c.token()))
            .find_map(|c| asset.copy(&self.cache, c).map(|bytes| (c, bytes)));
        let (etag, body) = match chosen {
            Some((coding, bytes)) => (
                format!("\"{}.{}\"", asset.hash, coding.extension()),
                bytes.clone(),
            ),
            None => (format!("\"{}\"", asset.hash), asset.identity.clone()),
        };
        let not_modified = headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|tags| matches_etag(tags, &etag));
        let mut response = if not_modified {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        } else {
            let length = body.len();
            let mut response = Response::new(if method == Method::HEAD {
                Body::empty()
            } else {
                Body::from(body)
            });
            let h = response.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            );
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            if let Some((coding, _)) = chosen {
                h.insert(
                    header::CONTENT_ENCODING,
                    HeaderValue::from_static(coding.token()),
                );
            }
            response
        };
        let h = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&etag) {
            h.insert(header::ETAG, value);
        }
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(if asset.immutable {
                IMMUTABLE
            } else {
                "no-cache"
            }),
        );
        if asset.compressible {
            h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        }
        if name == PROGRAM_WORKER {
            h.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(PROGRAM_WORKER_POLICY),
            );
        }
        response
    }

    /// Makes the `missing` copies, keeps them, and writes them into the cache when it can.
    fn compress(&self, missing: Vec<(String, String, Coding)>) {
        let cache = &self.cache;
        let started = std::time::Instant::now();
        let mut written = true;
        for (name, hash, coding) in missing {
            let Some(asset) = self.files.get(&name) else {
                continue;
            };
            let copy = match coding.compress(&asset.identity) {
                Ok(copy) => copy,
                Err(error) => {
                    tracing::warn!(file = name, %error, "could not compress");
                    continue;
                }
            };
            // A copy that saves nothing is not worth a Content-Encoding.
            if copy.len() >= asset.identity.len() {
                continue;
            }
            if written {
                written = write_copy(cache, &hash, coding, &copy).is_ok();
                if !written {
                    tracing::warn!(
                        cache = %cache.display(),
                        "cannot keep compressed copies of the app: they are made again at each start"
                    );
                }
            }
            let _ = asset.compressed[coding as usize].set(Bytes::from(copy));
        }
        tracing::info!(
            seconds = started.elapsed().as_secs_f64(),
            "the app's compressed copies are ready"
        );
    }
}

/// Every regular file under `dir` as (path relative to `dist/` with `/`, bytes).
fn walk(
    dir: &Path,
    prefix: &str,
    found: &mut Vec<(String, Vec<u8>)>,
    bytes: &mut u64,
) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        let relative = format!("{prefix}{name}");
        if kind.is_dir() {
            walk(&entry.path(), &format!("{relative}/"), found, bytes)?;
        } else if kind.is_file() {
            let data = std::fs::read(entry.path())
                .with_context(|| format!("reading {}", entry.path().display()))?;
            *bytes += data.len() as u64;
            found.push((relative, data));
            if found.len() > MOST_FILES || *bytes > MOST_BYTES {
                bail!(
                    "{} holds more than {MOST_FILES} files or {MOST_BYTES} bytes: is it the built app?",
                    dir.display()
                );
            }
        }
    }
    Ok(())
}

fn copy_path(cache: &Path, hash: &str, coding: Coding) -> PathBuf {
    cache.join(format!("{hash}.{}", coding.extension()))
}

/// A compressed copy made earlier, if it is there and decompresses to the file of `hash`.
fn read_copy(cache: &Path, hash: &str, coding: Coding) -> Option<Vec<u8>> {
    let copy = std::fs::read(copy_path(cache, hash, coding)).ok()?;
    let original = coding.decompress(&copy).ok()?;
    (content_hash(&original)["sha256:".len()..] == *hash).then_some(copy)
}

/// Writes a copy whole or not at all (a temporary file renamed into place).
fn write_copy(cache: &Path, hash: &str, coding: Coding, copy: &[u8]) -> Result<()> {
    std::fs::create_dir_all(cache)?;
    let path = copy_path(cache, hash, coding);
    let temporary = cache.join(format!(
        ".{hash}.{}.{}",
        coding.extension(),
        std::process::id()
    ));
    std::fs::write(&temporary, copy)?;
    std::fs::rename(&temporary, &path)?;
    Ok(())
}

/// Removes the copies of files that are no longer in `dist/`.
fn prune(cache: &Path, assets: &Assets) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((hash, _)) = name.split_once('.') else {
            continue;
        };
        let ours = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        if ours && !assets.files.values().any(|a| hash.starts_with(&a.hash)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `Accept-Encoding: accepted` allows `token` (explicitly or by `*`, with q > 0).
fn accepts(accepted: &str, token: &str) -> bool {
    let mut star = None;
    for part in accepted.split(',') {
        let mut pieces = part.split(';');
        let coding = pieces.next().unwrap_or("").trim();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f64>().ok())
            .unwrap_or(1.0);
        if coding.eq_ignore_ascii_case(token) {
            return q > 0.0;
        }
        if coding == "*" {
            star = Some(q > 0.0);
        }
    }
    star.unwrap_or(false)
}

/// Whether `If-None-Match: tags` names `etag` (weak or strong) or is `*`.
fn matches_etag(tags: &str, etag: &str) -> bool {
    tags.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// Trunk's content-hashed names: `stem-<10+ hex digits>[_bg].ext`.
fn content_hashed(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    let Some((stem, _)) = file.rsplit_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    stem.rsplit_once('-').is_some_and(|(_, hex)| {
        hex.len() >= 10
            && hex
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

fn extension(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(_, e)| e)
}

fn content_type(name: &str) -> &'static str {
    match extension(name) {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "csv" => "text/csv; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn compressible(name: &str) -> bool {
    matches!(
        extension(name),
        "html" | "js" | "mjs" | "wasm" | "css" | "svg" | "json" | "csv" | "txt"
    )
}

/// The page's Content-Security-Policy, allowing the inline scripts of `index` by their hashes.
fn document_policy(index: &str) -> String {
    let hashes: Vec<String> = inline_scripts(index)
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!(
                "'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    format!(
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'{}; worker-src 'self'; \
         connect-src 'self'; style-src 'self'; img-src 'self'; manifest-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        hashes.iter().map(|h| format!(" {h}")).collect::<String>()
    )
}

/// The text of every `<script>` without a `src` in `html`.
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    let mut rest = html;
    std::iter::from_fn(move || loop {
        let open = rest.find("<script")?;
        let after = &rest[open..];
        let tag_end = after.find('>')?;
        let tag = &after[..tag_end];
        let body = &after[tag_end + 1..];
        let close = body.find("</script>")?;
        rest = &body[close..];
        if !tag.contains(" src=") {
            return Some(&body[..close]);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_follow_accept_encoding_and_its_q_values() {
        assert!(accepts("gzip, deflate, br, zstd", "br"));
        assert!(accepts("gzip;q=1.0, br;q=0.5", "br"));
        assert!(!accepts("gzip, br;q=0", "br"));
        assert!(accepts("*", "gzip"));
        assert!(!accepts("*;q=0, identity", "gzip"));
        assert!(!accepts("br;q=0, *", "br"));
        assert!(!accepts("", "gzip"));
        assert!(!accepts("identity", "br"));
    }

    #[test]
    fn trunk_names_with_a_hash_are_immutable_and_others_are_not() {
        assert!(content_hashed("tribunal-app-89cb3815db456e5_bg.wasm"));
        assert!(content_hashed("tribunal-app-89cb3815db456e5.js"));
        assert!(content_hashed("style-4c86d7972dd18d29.css"));
        assert!(content_hashed("snippets/x-1/favicon-16a6fa576c1177d.svg"));
        assert!(!content_hashed("index.html"));
        assert!(!content_hashed("service_worker.js"));
        assert!(!content_hashed("stats-worker_bg.wasm"));
        assert!(!content_hashed("stats-worker.js"));
        assert!(!content_hashed("my-deadbeef.js"));
    }

    #[test]
    fn etags_match_weak_strong_lists_and_star() {
        assert!(matches_etag("\"abc\"", "\"abc\""));
        assert!(matches_etag("W/\"abc\"", "\"abc\""));
        assert!(matches_etag("\"x\", \"abc\"", "\"abc\""));
        assert!(matches_etag("*", "\"abc\""));
        assert!(!matches_etag("\"abc.br\"", "\"abc\""));
    }

    #[test]
    fn the_policy_allows_exactly_the_inline_scripts_by_hash() {
        let html = "<script src=\"/a.js\"></script><script>alert(1)</script>\
                    <script type=\"module\">\nimport x from '/x.js';\n</script>";
        let policy = document_policy(html);
        // `echo -n 'alert(1)' | openssl dgst -sha256 -binary | base64`
        assert!(
            policy.contains("'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"),
            "{policy}"
        );
        assert_eq!(policy.matches("'sha256-").count(), 2, "{policy}");
        assert!(!policy.contains("unsafe-inline") && !policy.contains("'unsafe-eval'"));
        assert!(policy.contains("frame-ancestors 'none'"));
    }

    #[test]
    fn copies_round_trip_and_a_damaged_one_is_not_used() {
        let dir = std::env::temp_dir().join(format!("tribunal-assets-{}", std::process::id()));
        let data = b"the same text again and again and again and again".repeat(20);
        let hash = content_hash(&data)["sha256:".len()..].to_owned();
        for coding in Coding::ALL {
            let copy = coding.compress(&data).unwrap();
            assert!(copy.len() < data.len());
            write_copy(&dir, &hash, coding, &copy).unwrap();
            assert_eq!(read_copy(&dir, &hash, coding).unwrap(), copy);
            std::fs::write(copy_path(&dir, &hash, coding), &copy[..copy.len() / 2]).unwrap();
            assert!(read_copy(&dir, &hash, coding).is_none());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_kept_copy_is_read_when_first_asked_for_and_a_damaged_one_is_removed() {
        let dist = std::env::temp_dir().join(format!("tribunal-dist-{}", std::process::id()));
        let cache = dist.join(".compressed");
        let app = b"console.log('the same line again');\n".repeat(40);
        let index = b"<!DOCTYPE html><title>app</title>".repeat(10);
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("app.js"), &app).unwrap();
        std::fs::write(dist.join("index.html"), &index).unwrap();
        let digest = |data: &[u8]| content_hash(data)["sha256:".len()..].to_owned();
        for coding in Coding::ALL {
            let copy = coding.compress(&index).unwrap();
            write_copy(&cache, &digest(&index), coding, &copy).unwrap();
        }
        let brotli = Coding::Brotli.compress(&app).unwrap();
        write_copy(&cache, &digest(&app), Coding::Brotli, &brotli).unwrap();
        let damaged = copy_path(&cache, &digest(&app), Coding::Gzip);
        std::fs::write(&damaged, b"not gzip at all").unwrap();

        let assets = Assets::load(&dist).unwrap();
        let kept = &assets.files["app.js"];
        // Nothing is read at start-up; both copies count as there.
        assert!(kept.compressed.iter().all(|c| c.get().is_none()));
        assert!(assets.compressed());
        let ask = |coding: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(coding).unwrap(),
            );
            assets.answer(&Method::GET, "/app.js", &headers)
        };
        let answer = ask("br");
        assert_eq!(answer.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(
            answer.headers()[header::CONTENT_LENGTH],
            brotli.len().to_string().as_str()
        );
        // The damaged copy is never sent: the file goes out as it is, and the copy is gone.
        let answer = ask("gzip");
        assert!(answer.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(
            answer.headers()[header::CONTENT_LENGTH],
            app.len().to_string().as_str()
        );
        assert!(!damaged.exists());
        assert!(!assets.compressed(), "the damaged copy no longer counts");
        let _ = std::fs::remove_dir_all(&dist);
    }
}
