//! Files in and out of the page: the uploads a user picks (read here, in the browser) and the
//! downloads a page offers (as `data:` URLs).

use gloo_file::futures::read_as_bytes;
use tribunal::io::provenance::content_hash_of_digest;
use tribunal_app::stats_worker::Upload;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;

/// The name and bytes of the file chosen in `input`, if any.
pub async fn chosen(input: Option<&HtmlInputElement>) -> Result<Option<(String, Vec<u8>)>, String> {
    let Some(file) = input.and_then(|i| i.files()).and_then(|list| list.get(0)) else {
        return Ok(None);
    };
    let file = gloo_file::File::from(file);
    let name = file.name();
    let bytes = read_as_bytes(&file)
        .await
        .map_err(|e| format!("{name}: the file could not be read: {e}"))?;
    Ok(Some((name, bytes)))
}

/// The text file chosen in `input`, if any, with its content hash.
pub async fn chosen_text(input: Option<&HtmlInputElement>) -> Result<Option<Upload>, String> {
    let Some((name, bytes)) = chosen(input).await? else {
        return Ok(None);
    };
    let hash = browser_content_hash(&bytes).await;
    Ok(Some(Upload {
        hash,
        ..Upload::new(name, bytes)?
    }))
}

/// The [`content_hash`](tribunal::io::provenance::content_hash) of `bytes` by the browser's
/// own SHA-256 (`crypto.subtle`: native code, off the WASM thread; hashing a 1.5 MB file in WASM
/// took the page 62–66 ms, before the engine had optimised it), or `None` where the page has
/// none (a page served over plain HTTP from another host is not a secure context); the spec
/// then hashes in WASM.
pub async fn browser_content_hash(bytes: &[u8]) -> Option<String> {
    let subtle = web_sys::window()?.crypto().ok()?.subtle();
    let digest = subtle.digest_with_str_and_u8_array("SHA-256", bytes).ok()?;
    let digest = JsFuture::from(digest).await.ok()?;
    Some(content_hash_of_digest(
        &js_sys::Uint8Array::new(&digest).to_vec(),
    ))
}

/// `text` as a `data:` URL of type `mime` (every byte outside A–Z a–z 0–9 percent-encoded).
pub fn data_url(mime: &str, text: &str) -> String {
    let mut url = format!("data:{mime};charset=utf-8,");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}
