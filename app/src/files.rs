//! Files in and out of the page: the uploads a user picks (read here, in the browser) and the
//! downloads a page offers (as `data:` URLs).

use gloo_file::futures::read_as_bytes;
use tribunal_app::stats_worker::Upload;
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

/// The text file chosen in `input`, if any.
pub async fn chosen_text(input: Option<&HtmlInputElement>) -> Result<Option<Upload>, String> {
    match chosen(input).await? {
        Some((name, bytes)) => Upload::new(name, bytes).map(Some),
        None => Ok(None),
    }
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
