//! The sessions API under `/api`: capability URLs for reading, an owner token for writing.
//!
//! - `POST /sessions` `{"title"}` → 201 `{id, owner_token}`. The id is 128 random bits (32 hex
//!   digits) and the token 256 (64 hex digits), both from the OS; the store keeps only the
//!   token's SHA-256.
//! - `GET /sessions/{id}` → the [`SessionView`]; `GET /sessions/{id}/datasets/{hash}` → its
//!   bytes (CSV text, or an embedding array); `GET /sessions/{id}/export` → the
//!   [`SessionArchive`]. Anyone holding the id reads.
//! - `POST /sessions/{id}/datasets?kind=battles&name=FILE` (body: the file; any
//!   [`DatasetKind`]) and `POST /sessions/{id}/analyses` `{"title", "spec"}` (an
//!   [`tribunal::analysis::Spec`] of any analysis, its inputs datasets of the session of the
//!   kinds their roles read) need `Authorization: Bearer TOKEN`:
//!   a missing or wrong token is 403 and writes nothing. A dataset that does not parse is 422
//!   with the located error, and nothing is stored. A stored dataset is 201 with its
//!   [`DatasetMeta`] and, when its reader accepted something the uploader should know (items
//!   with an empty response), `warnings`.
//! - `POST /sessions/{id}/runs` `{"items": HASH, "config": {…judge.toml as JSON…}}` (owner
//!   token) → 202 `{stream, total}`: the judge runs on the session's items dataset
//!   ([`crate::runs`]), here and in any `tribunal work` process on the same store; watch the
//!   stream over the WebSocket, on any server of the store. The judgments are stored under
//!   `<id>:<key>`, the key a hash of the config and the items, so starting the same run again
//!   resumes it. With `"head": {…model file…}` (LS for the absolute prompt, BTL for the
//!   relative one) each judgment event also carries the head's calibrated output. With
//!   `"escalate"` in the config (a cascade: thresholds, and later judges each a `--fleet`
//!   server) the items the judge is not confident on go to the next judge, under
//!   `<id>:<key>:t2`, …, on the same stream, and those the last leaves become the session's
//!   `<items>.to-people.csv`, beside `<items>.cascade.csv` ([`crate::judge::cascade`]).
//! - `POST /sessions/import` (body: an archive) → 201 `{id, owner_token}`: a new session,
//!   validated whole before one transaction writes it.
//! - `DELETE /sessions/{id}`, `…/datasets/{hash}`, `…/analyses/{analysis}`, `…/runs/{run}`
//!   (owner token) → 200 `{"deleted": what}`: gone with its blobs no session holds
//!   ([`crate::store::Storage::delete`]); 409 while a judge run of it is going, or for a
//!   dataset an analysis reads (naming them). What was deleted then answers 410 Gone — the
//!   session's routes, the dataset, and the app's share links (`/s/<id>`, `/s/<id>/a/<analysis>`).
//!
//! What one client may send ([`crate::limits`]): titles and dataset names of at most
//! [`MAX_NAME_CHARS`](tribunal::sessions::session::MAX_NAME_CHARS) characters (422), at most
//! `--max-session-bytes` of datasets in a session (an upload or import past it is 413), and
//! rates per client address (429).
//!
//! There is no listing route: an unknown id is the same 404 as any other, answered by one
//! primary-key lookup whether or not a neighbouring id exists.

use crate::build_info;
use crate::engine::{admit, Fleet};
use crate::judge::RunSpec;
use crate::limits::{check_name, limit_client_rates, Action, ClientRates, Limits};
use crate::runs::Runs;
use crate::store::{Deletion, Part, Store};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::sync::{Arc, Mutex};
use tribunal::calibration::head_file::{Head, HeadFile};
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::io::provenance::content_hash;
use tribunal::judging::escalation::Escalation;
use tribunal::judging::judge_config::{BackendConfig, JudgeConfig, RunRequest};
use tribunal::judging::judge_prompt::PromptKind;
use tribunal::sessions::run_calibration::{check_preferences, item_labels};
use tribunal::sessions::session::{
    check_dataset, spec_from_value, Analysis, CheckedDataset, SessionArchive,
};

/// An API error: its status and a message for a person, sent as `{"error": …}`.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(error: anyhow::Error) -> Self {
        tracing::error!(%error, "store");
        Self(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the store failed".to_owned(),
        )
    }
}

type ApiResult<T> = Result<T, ApiError>;

fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such session".to_owned())
}

/// 410 for a session its owner deleted, 404 for one that never was.
fn absent(store: &Store, id: &str) -> ApiError {
    if store.deleted(id, &Part::Session).unwrap_or(false) {
        return ApiError(
            StatusCode::GONE,
            "this session was deleted by its owner".to_owned(),
        );
    }
    not_found()
}

/// 422 unless `value` is short enough ([`check_name`]).
fn bounded(field: &str, value: &str) -> ApiResult<()> {
    check_name(field, value).map_err(|message| ApiError(StatusCode::UNPROCESSABLE_ENTITY, message))
}

/// 413 when a session holding `held` bytes of datasets would hold `held + adding`.
fn within_session_bytes(limits: &Limits, what: &str, held: u64, adding: u64) -> ApiResult<()> {
    if held.saturating_add(adding) > limits.max_session_bytes {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{what}: the session would hold {} bytes of datasets; this server keeps at most \
                 {} per session (--max-session-bytes)",
                held.saturating_add(adding),
                limits.max_session_bytes
            ),
        ));
    }
    Ok(())
}

/// What the session routes share.
#[derive(Clone)]
pub struct Sessions {
    pub store: Store,
    pub runs: Runs,
    pub limits: Limits,
    /// The OpenAI-compatible servers runs may use.
    pub fleets: Arc<Vec<Fleet>>,
    /// Held while a dataset is checked against the session's byte limit and stored, so two
    /// uploads to one session through this process cannot both pass it.
    pub uploads: Arc<Mutex<()>>,
    /// Each client address's rates of creating sessions and uploading.
    pub rates: ClientRates,
}

/// The `/api` routes for sessions, relative to `/api`.
pub fn router(state: Sessions) -> Router {
    let body_limit = state.limits.max_upload_bytes;
    let gate =
        |action| axum::middleware::from_fn_with_state(state.rates.gate(action), limit_client_rates);
    Router::new()
        .route(
            "/sessions",
            post(create).route_layer(gate(Action::CreateSession)),
        )
        .route(
            "/sessions/import",
            post(import).route_layer(gate(Action::CreateSession)),
        )
        .route("/sessions/{id}", get(view).delete(delete_session))
        .route("/sessions/{id}/export", get(export))
        .route(
            "/sessions/{id}/datasets",
            post(add_dataset).route_layer(gate(Action::Upload)),
        )
        .route(
            "/sessions/{id}/datasets/{hash}",
            get(dataset).delete(delete_dataset),
        )
        .route(
            "/sessions/{id}/analyses/{analysis}",
            delete(delete_analysis),
        )
        .route("/sessions/{id}/runs/{run}", delete(delete_run))
        .route(
            "/sessions/{id}/analyses",
            post(add_analysis).route_layer(gate(Action::Upload)),
        )
        .route(
            "/sessions/{id}/runs",
            post(start_run).route_layer(gate(Action::Upload)),
        )
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state)
}

/// The answer to any other `/api` path.
pub async fn unknown_api_route() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such API route".to_owned())
}

fn random_hex(bytes: usize) -> ApiResult<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("no randomness from the OS: {e}"),
        )
    })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// A fresh session id and owner token, and the hash the store keeps.
fn new_owner() -> ApiResult<(String, String, String)> {
    let id = random_hex(16)?;
    let token = random_hex(32)?;
    let hash = content_hash(token.as_bytes());
    Ok((id, token, hash))
}

fn created(id: &str, token: &str) -> Response {
    (
        StatusCode::CREATED,
        Json(serde_json::json!({ "id": id, "owner_token": token })),
    )
        .into_response()
}

#[derive(Deserialize)]
struct NewSession {
    #[serde(default)]
    title: String,
}

async fn create(
    State(Sessions { store, .. }): State<Sessions>,
    Json(body): Json<NewSession>,
) -> ApiResult<Response> {
    bounded("title", &body.title)?;
    let (id, token, hash) = new_owner()?;
    let title = if body.title.trim().is_empty() {
        "untitled session".to_owned()
    } else {
        body.title.trim().to_owned()
    };
    store.create_session(&id, &hash, &title)?;
    Ok(created(&id, &token))
}

/// Equal-length strings compared without an early exit.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// 404 for an unknown session; 403 unless the request carries the session's owner token.
fn authorise(store: &Store, id: &str, headers: &HeaderMap) -> ApiResult<()> {
    let stored = store.owner_hash(id)?.ok_or_else(|| absent(store, id))?;
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|token| content_hash(token.trim().as_bytes()));
    match presented {
        Some(hash) if same(&hash, &stored) => Ok(()),
        Some(_) => Err(ApiError(
            StatusCode::FORBIDDEN,
            "the owner token does not match: this link can read the session, not change it"
                .to_owned(),
        )),
        None => Err(ApiError(
            StatusCode::FORBIDDEN,
            "changing a session needs its owner token (Authorization: Bearer …); a share link only reads"
                .to_owned(),
        )),
    }
}

async fn view(
    State(Sessions { store, .. }): State<Sessions>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let session = store.session(&id)?.ok_or_else(|| absent(&store, &id))?;
    Ok(Json(session).into_response())
}

async fn export(
    State(Sessions { store, .. }): State<Sessions>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let archive = store.archive(&id)?.ok_or_else(|| absent(&store, &id))?;
    Ok((
        [(
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tribunal-session-{id}.json\""),
        )],
        Json(archive),
    )
        .into_response())
}

async fn dataset(
    State(Sessions { store, .. }): State<Sessions>,
    Path((id, hash)): Path<(String, String)>,
) -> ApiResult<Response> {
    let missing = || {
        ApiError(
            StatusCode::NOT_FOUND,
            "no such dataset in this session".to_owned(),
        )
    };
    let session = store.session(&id)?.ok_or_else(|| absent(&store, &id))?;
    let gone = || {
        if store
            .deleted(&id, &Part::Dataset(hash.clone()))
            .unwrap_or(false)
        {
            return ApiError(
                StatusCode::GONE,
                "this dataset was deleted by the session's owner".to_owned(),
            );
        }
        missing()
    };
    let meta = session
        .datasets
        .iter()
        .find(|d| d.hash == hash)
        .ok_or_else(gone)?;
    let content = store.dataset(&id, &hash)?.ok_or_else(missing)?;
    let content_type = if meta.kind.is_binary() {
        "application/octet-stream"
    } else {
        "text/csv; charset=utf-8"
    };
    Ok(([(header::CONTENT_TYPE, content_type)], content).into_response())
}

/// The answer to a deletion.
fn deletion(outcome: Deletion, what: &str) -> ApiResult<Response> {
    match outcome {
        Deletion::Deleted => Ok(Json(serde_json::json!({ "deleted": what })).into_response()),
        Deletion::Missing => Err(ApiError(
            StatusCode::NOT_FOUND,
            format!("no such {what} in this session"),
        )),
        Deletion::Busy => Err(ApiError(
            StatusCode::CONFLICT,
            format!("the {what} has a judge run in progress: delete it once the run has finished"),
        )),
    }
}

async fn delete_session(
    State(Sessions { store, .. }): State<Sessions>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    deletion(store.delete(&id, &Part::Session)?, "session")
}

/// A dataset an analysis reads is kept (409 naming the analyses) until they are deleted.
async fn delete_dataset(
    State(Sessions { store, .. }): State<Sessions>,
    Path((id, hash)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    let session = store.session(&id)?.ok_or_else(|| absent(&store, &id))?;
    let readers: Vec<String> = session
        .analyses
        .iter()
        .filter(|a| a.spec.inputs.values().any(|input| input.hash == hash))
        .map(|a| format!("\"{}\"", a.title))
        .collect();
    if !readers.is_empty() {
        return Err(ApiError(
            StatusCode::CONFLICT,
            format!(
                "the dataset is read by the analyses {}: delete them first",
                readers.join(", ")
            ),
        ));
    }
    deletion(store.delete(&id, &Part::Dataset(hash))?, "dataset")
}

async fn delete_analysis(
    State(Sessions { store, .. }): State<Sessions>,
    Path((id, analysis)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    deletion(store.delete(&id, &Part::Analysis(analysis))?, "analysis")
}

/// `run` is the key of the run's stream `run:<id>:<run>`.
async fn delete_run(
    State(Sessions { store, .. }): State<Sessions>,
    Path((id, run)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    deletion(store.delete(&id, &Part::Run(run))?, "run")
}

#[derive(Deserialize)]
struct DatasetQuery {
    kind: String,
    name: String,
}

async fn add_dataset(
    State(Sessions {
        store,
        limits,
        uploads,
        ..
    }): State<Sessions>,
    Path(id): Path<String>,
    Query(query): Query<DatasetQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    bounded("name", &query.name)?;
    let unprocessable =
        |e: tribunal::Error| ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.to_string());
    let kind = DatasetKind::parse(&query.kind).map_err(unprocessable)?;
    let CheckedDataset { meta, warnings } =
        check_dataset(kind, &query.name, &body).map_err(unprocessable)?;
    if meta.rows > limits.max_rows {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{}: {} data rows; this server takes at most {} (--max-rows)",
                query.name, meta.rows, limits.max_rows
            ),
        ));
    }
    let _held = uploads.lock().unwrap_or_else(|e| e.into_inner());
    let session = store.session(&id)?.ok_or_else(|| absent(&store, &id))?;
    if !session.datasets.iter().any(|d| d.hash == meta.hash) {
        let held = session.datasets.iter().map(|d| d.bytes).sum();
        within_session_bytes(&limits, &query.name, held, meta.bytes)?;
    }
    let stored = store.add_dataset(&id, &meta, &body)?;
    let mut answer = serde_json::to_value(stored).map_err(anyhow::Error::from)?;
    if !warnings.is_empty() {
        answer["warnings"] = serde_json::json!(warnings);
    }
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

#[derive(Deserialize)]
struct NewAnalysis {
    title: String,
    /// An analysis spec; version 1's leaderboard spec is read too.
    spec: serde_json::Value,
}

async fn add_analysis(
    State(Sessions { store, .. }): State<Sessions>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<NewAnalysis>,
) -> ApiResult<Response> {
    authorise(&store, &id, &headers)?;
    bounded("title", &body.title)?;
    let session = store.session(&id)?.ok_or_else(|| absent(&store, &id))?;
    let spec = spec_from_value(body.spec).map_err(|e| {
        ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("spec: not an analysis spec: {e}"),
        )
    })?;
    let analysis = Analysis {
        id: random_hex(8)?,
        title: body.title,
        spec,
        created_with: Some(build_info::tool_version()),
    };
    analysis
        .validate(&session.datasets, "analysis", "spec")
        .map_err(|e| ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    store.add_analysis(&id, &analysis)?;
    Ok((StatusCode::CREATED, Json(analysis)).into_response())
}

async fn import(
    State(Sessions { store, limits, .. }): State<Sessions>,
    body: Bytes,
) -> ApiResult<Response> {
    let unprocessable = |message: String| ApiError(StatusCode::UNPROCESSABLE_ENTITY, message);
    let archive: SessionArchive = serde_json::from_slice(&body).map_err(|e| {
        unprocessable(format!(
            "archive, line {}, column {}: not a session archive: {e}",
            e.line(),
            e.column()
        ))
    })?;
    archive
        .validate("archive")
        .map_err(|e| unprocessable(e.to_string()))?;
    bounded("archive: title", &archive.title)?;
    for (i, dataset) in archive.datasets.iter().enumerate() {
        bounded(&format!("archive: datasets[{i}].name"), &dataset.meta.name)?;
    }
    for (i, analysis) in archive.analyses.iter().enumerate() {
        bounded(&format!("archive: analyses[{i}].title"), &analysis.title)?;
    }
    let bytes = archive.datasets.iter().map(|d| d.meta.bytes).sum();
    within_session_bytes(&limits, "archive", 0, bytes)?;
    let (id, token, hash) = new_owner()?;
    store.import(&id, &hash, &archive)?;
    Ok(created(&id, &token))
}

async fn start_run(
    State(state): State<Sessions>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<RunRequest>,
) -> ApiResult<Response> {
    let store = &state.store;
    authorise(store, &id, &headers)?;
    let session = store.session(&id)?.ok_or_else(|| absent(store, &id))?;
    let unprocessable = |message: String| ApiError(StatusCode::UNPROCESSABLE_ENTITY, message);
    let meta = session
        .datasets
        .iter()
        .find(|d| d.hash == body.items && d.kind == DatasetKind::Items)
        .ok_or_else(|| {
            unprocessable(format!(
                "items: expected the hash of an items dataset of this session, found `{}`",
                body.items
            ))
        })?;
    let bytes = store.dataset(&id, &meta.hash)?.ok_or_else(not_found)?;
    // The items' human labels become the run's calibration files at its end: refuse bad ones
    // now rather than after the judging.
    let labels = item_labels(&meta.name, &bytes).map_err(|e| unprocessable(e.to_string()))?;
    let mut config = body.config;
    if let (Some(labels), PromptKind::Relative | PromptKind::Criteria) =
        (&labels, config.prompt.kind)
    {
        check_preferences(labels, &meta.name).map_err(|e| unprocessable(e.to_string()))?;
    }
    admit(&state.fleets, &mut config.backend).map_err(unprocessable)?;
    if let Some(escalation) = &mut config.escalate {
        admit_tiers(&state.fleets, &config.backend, escalation).map_err(unprocessable)?;
    }
    state
        .runs
        .engine_ready(&config.backend)
        .map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let head = body
        .head
        .map(|file| checked_head(&file, &config).map(|head| (file, head)))
        .transpose()
        .map_err(unprocessable)?;
    config.embed_rationale |= head.is_some();
    let config_json = serde_json::to_string(&config).map_err(anyhow::Error::from)?;
    let key = content_hash(&[config_json.as_bytes(), &bytes].concat());
    let session_key = format!("{id}:{}", &key["sha256:".len().."sha256:".len() + 16]);
    let spec = RunSpec::new("config", config, meta.name.clone(), bytes, session_key)
        .map_err(|e| unprocessable(format!("{e:#}")))?
        .streamed(head);
    let total = spec.total();
    let stream = state.runs.start(spec)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(serde_json::json!({ "stream": stream, "total": total })),
    )
        .into_response())
}

/// Admits a cascade's later judges as [`admit`] does the first: each a fleet the operator
/// listed, its key variable from the listing.
fn admit_tiers(
    fleets: &[Fleet],
    first: &BackendConfig,
    escalation: &mut Escalation,
) -> Result<(), String> {
    escalation.check_judges(first).map_err(|e| e.to_string())?;
    for k in 0..escalation.tiers.len() {
        let mut backend = escalation.backend(first, k + 1);
        admit(fleets, &mut backend).map_err(|e| format!("escalate.tiers[{k}]: {e}"))?;
        if let (BackendConfig::Openai(params), Some(tier)) = (backend, escalation.tiers.get_mut(k))
        {
            tier.url = params.url;
            tier.api_key_env = params.api_key_env;
        }
    }
    Ok(())
}

/// The head in a model file, if it fits the run: LS with the absolute prompt, BTL with the
/// relative one, on MiniLM's 384-dimensional embeddings.
fn checked_head(file: &serde_json::Value, config: &JudgeConfig) -> Result<Head, String> {
    let head = HeadFile::from_json("head", &file.to_string())
        .map_err(|e| e.to_string())?
        .head;
    let fits = matches!(
        (&head, config.prompt.kind),
        (Head::Ls(_), PromptKind::Absolute { .. })
            | (Head::Btl(_), PromptKind::Relative | PromptKind::Criteria)
    );
    if !fits {
        return Err(
            "head: an LS head calibrates the absolute prompt's scores and a BTL head the relative prompt's p(A); this head does not fit the run's prompt".to_owned(),
        );
    }
    let dimension = config.rationale_embedding.dimension();
    head.predict_one(&vec![0.0; dimension], 0.5).map_err(|e| {
        format!(
            "head: it does not read the run's {dimension}-dimensional rationale embeddings: {e}"
        )
    })?;
    Ok(head)
}
