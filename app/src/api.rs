//! The worker's HTTP API as the page calls it: sessions, their datasets and analyses, judge
//! runs. Each call answers the body it expects, or a message for a person: the API's
//! `{"error"}` (with the status) or why the worker could not be reached.

use gloo_net::http::{Request, Response};
use serde::{Deserialize, Serialize};
use tribunal::analysis::Spec;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::io::provenance::content_hash;
use tribunal::judging::judge_config::RunRequest;
use tribunal::sessions::session::{Analysis, DatasetMeta, SessionView};

/// A new session's id and its owner token.
#[derive(Deserialize)]
pub struct Created {
    pub id: String,
    pub owner_token: String,
}

/// The API's answer to a request it refused.
#[derive(Deserialize)]
struct ApiError {
    error: String,
}

/// The body of a response, or the API's `{"error"}` message (or the status) when it failed.
async fn body<T: for<'de> Deserialize<'de>>(response: Response) -> Result<T, String> {
    if response.ok() {
        return response
            .json()
            .await
            .map_err(|e| format!("unexpected answer from the worker: {e}"));
    }
    let status = response.status();
    let message = response
        .json::<ApiError>()
        .await
        .map_or_else(|_| response.status_text(), |e| e.error);
    Err(format!("HTTP {status}: {message}"))
}

/// Sends a built request and reads its answer as [`body`] does.
async fn send<T: for<'de> Deserialize<'de>>(
    request: Result<Request, gloo_net::Error>,
) -> Result<T, String> {
    let request = request.map_err(|e| e.to_string())?;
    body(request.send().await.map_err(unreachable_worker)?).await
}

fn unreachable_worker(e: gloo_net::Error) -> String {
    format!("the worker could not be reached: {e}")
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// The judges a run started from the page may use, as `/api/health` says.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Judges {
    /// Whether the worker has the local model installed.
    pub local: bool,
    /// The OpenAI-compatible servers the operator allows.
    pub fleets: Vec<String>,
}

#[derive(Deserialize)]
struct Health {
    judges: Judges,
}

/// `GET /api/health`: the judges this worker offers.
pub async fn judges() -> Result<Judges, String> {
    send::<Health>(Request::get("/api/health").build())
        .await
        .map(|h| h.judges)
}

/// `POST /api/sessions`.
pub async fn create_session(title: &str) -> Result<Created, String> {
    send(Request::post("/api/sessions").json(&serde_json::json!({ "title": title }))).await
}

/// `POST /api/sessions/import` with an archive's text.
pub async fn import_session(archive: String) -> Result<Created, String> {
    send(
        Request::post("/api/sessions/import")
            .header("Content-Type", "application/json")
            .body(archive),
    )
    .await
}

/// `GET /api/sessions/{id}`.
pub async fn fetch_session(id: &str) -> Result<SessionView, String> {
    body(
        Request::get(&format!("/api/sessions/{id}"))
            .send()
            .await
            .map_err(unreachable_worker)?,
    )
    .await
}

/// The bytes of the dataset `meta` of session `id`, checked against its hash.
pub async fn fetch_dataset(id: &str, meta: &DatasetMeta) -> Result<Vec<u8>, String> {
    let response = Request::get(&format!("/api/sessions/{id}/datasets/{}", meta.hash))
        .send()
        .await
        .map_err(unreachable_worker)?;
    if !response.ok() {
        return Err(format!(
            "HTTP {}: the dataset {} could not be read",
            response.status(),
            meta.name
        ));
    }
    let bytes = response.binary().await.map_err(|e| e.to_string())?;
    if content_hash(&bytes) != meta.hash {
        return Err(format!("{}: the data do not match their hash", meta.name));
    }
    Ok(bytes)
}

/// What the worker said of a dataset it stored (besides its metadata): what its reader
/// accepted but the uploader should know (items with an empty response).
#[derive(Deserialize)]
pub struct Added {
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// `POST /api/sessions/{id}/datasets`: `bytes` as a dataset of `kind` named `name`.
pub async fn add_dataset(
    id: &str,
    token: &str,
    kind: DatasetKind,
    name: &str,
    bytes: &[u8],
) -> Result<Added, String> {
    let url = format!(
        "/api/sessions/{id}/datasets?kind={}&name={}",
        kind.as_str(),
        String::from(js_sys::encode_uri_component(name))
    );
    let content_type = if kind.is_binary() {
        "application/octet-stream"
    } else {
        "text/csv"
    };
    send(
        Request::post(&url)
            .header("Authorization", &bearer(token))
            .header("Content-Type", content_type)
            .body(js_sys::Uint8Array::from(bytes)),
    )
    .await
}

#[derive(Serialize)]
struct NewAnalysis<'a> {
    title: &'a str,
    spec: &'a Spec,
}

/// `POST /api/sessions/{id}/analyses`: saves `spec` (its inputs datasets of the session).
pub async fn add_analysis(
    id: &str,
    token: &str,
    title: &str,
    spec: &Spec,
) -> Result<Analysis, String> {
    send(
        Request::post(&format!("/api/sessions/{id}/analyses"))
            .header("Authorization", &bearer(token))
            .json(&NewAnalysis { title, spec }),
    )
    .await
}

/// `POST /api/sessions/{id}/runs`: starts a judge run (`payload`: items and config).
pub async fn start_run(
    id: &str,
    token: &str,
    request: &RunRequest,
) -> Result<serde_json::Value, String> {
    send(
        Request::post(&format!("/api/sessions/{id}/runs"))
            .header("Authorization", &bearer(token))
            .json(request),
    )
    .await
}

/// `DELETE /api/sessions/{id}{part}` with the owner token: `part` is empty for the whole
/// session, or `/datasets/{hash}`, `/analyses/{analysis}`, `/runs/{run}`.
pub async fn delete(id: &str, token: &str, part: &str) -> Result<(), String> {
    send::<serde_json::Value>(
        Request::delete(&format!("/api/sessions/{id}{part}"))
            .header("Authorization", &bearer(token))
            .build(),
    )
    .await
    .map(|_| ())
}
