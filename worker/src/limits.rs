//! What one client may ask of `tribunal serve`, and the clear errors past each limit:
//!
//! - a request body (an upload, an import, a run) over `--max-upload-bytes` is 413, before
//!   more than the limit is read;
//! - a dataset with more than `--max-rows` data rows is 413, and nothing is stored;
//! - an HTTP request (body included) that takes longer than `--request-timeout-seconds` is
//!   408 — a client that stops sending half-way holds nothing for longer;
//! - a WebSocket message over `--ws-max-message-bytes` ends the connection with an error
//!   message naming the limit;
//! - a WebSocket client sending more than `--ws-messages-per-second` (bursts of ten seconds'
//!   worth allowed) gets an error message and the connection is closed;
//! - one client address may create (or import) `--sessions-per-hour` sessions an hour and
//!   send `--uploads-per-minute` datasets, analyses and runs a minute (bursts of that many);
//!   past either, 429 with `Retry-After` ([`ClientRates`]); the address is the connection's,
//!   or with `--forwarded-for` the last entry of `X-Forwarded-For` (behind one reverse proxy);
//! - a session holds at most `--max-session-bytes` of datasets (an upload or an import past it
//!   is 413, and nothing is stored);
//! - a session title, an analysis title or a dataset name is at most [`MAX_NAME_CHARS`]
//!   characters (422).
//!
//! 413, 408 and 429 answers get a JSON body `{"error": …}` saying which limit and its value, as
//! every other API error does.

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use clap::Args;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tribunal::sessions::session::MAX_NAME_CHARS;

/// An error naming `field` when `value` is longer than [`MAX_NAME_CHARS`].
pub fn check_name(field: &str, value: &str) -> Result<(), String> {
    let chars = value.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "{field}: {chars} characters; this server takes at most {MAX_NAME_CHARS}"
        ));
    }
    Ok(())
}

/// The server's limits (flags of `tribunal serve`).
#[derive(Args, Clone, Debug, PartialEq)]
pub struct Limits {
    /// Largest request body (a dataset upload, an archive import, a run), in bytes.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_upload_bytes: usize,
    /// Most data rows in one uploaded dataset.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_rows: u64,
    /// Seconds an HTTP request may take, its body included (WebSocket connections excepted).
    #[arg(long, default_value_t = 30.0)]
    pub request_timeout_seconds: f64,
    /// Largest WebSocket message a client may send, in bytes.
    #[arg(long, default_value_t = 64 << 10)]
    pub ws_max_message_bytes: usize,
    /// Messages per second a WebSocket client may send on average.
    #[arg(long, default_value_t = 20.0)]
    pub ws_messages_per_second: f64,
    /// Sessions one client address may create or import per hour (bursts of that many).
    #[arg(long, default_value_t = 60.0)]
    pub sessions_per_hour: f64,
    /// Datasets, analyses and runs one client address may send per minute (bursts of that
    /// many).
    #[arg(long, default_value_t = 120.0)]
    pub uploads_per_minute: f64,
    /// Most bytes of datasets one session may hold.
    #[arg(long, default_value_t = 256 << 20)]
    pub max_session_bytes: u64,
    /// Take a client's address from the last entry of `X-Forwarded-For` (set this behind one
    /// reverse proxy that appends it; otherwise every client would share the proxy's).
    #[arg(long)]
    pub forwarded_for: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_upload_bytes: 64 << 20,
            max_rows: 1_000_000,
            request_timeout_seconds: 30.0,
            ws_max_message_bytes: 64 << 10,
            ws_messages_per_second: 20.0,
            sessions_per_hour: 60.0,
            uploads_per_minute: 120.0,
            max_session_bytes: 256 << 20,
            forwarded_for: false,
        }
    }
}

impl Limits {
    /// An error naming the first setting that is not positive.
    pub fn check(&self) -> anyhow::Result<()> {
        let seconds = self.request_timeout_seconds;
        let rate = self.ws_messages_per_second;
        for (ok, flag, found) in [
            (
                self.max_upload_bytes > 0,
                "--max-upload-bytes",
                self.max_upload_bytes.to_string(),
            ),
            (self.max_rows > 0, "--max-rows", self.max_rows.to_string()),
            (
                seconds.is_finite() && seconds > 0.0,
                "--request-timeout-seconds",
                seconds.to_string(),
            ),
            (
                self.ws_max_message_bytes > 0,
                "--ws-max-message-bytes",
                self.ws_max_message_bytes.to_string(),
            ),
            (
                rate.is_finite() && rate > 0.0,
                "--ws-messages-per-second",
                rate.to_string(),
            ),
            (
                self.sessions_per_hour.is_finite() && self.sessions_per_hour >= 1.0,
                "--sessions-per-hour",
                self.sessions_per_hour.to_string(),
            ),
            (
                self.uploads_per_minute.is_finite() && self.uploads_per_minute >= 1.0,
                "--uploads-per-minute",
                self.uploads_per_minute.to_string(),
            ),
            (
                self.max_session_bytes > 0,
                "--max-session-bytes",
                self.max_session_bytes.to_string(),
            ),
        ] {
            if !ok {
                anyhow::bail!(
                    "{flag}: expected a positive number (rates at least 1), found {found}"
                );
            }
        }
        Ok(())
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.request_timeout_seconds)
    }

    /// A 413 or 408 answer without a JSON body gets one naming the limit.
    pub fn explain(&self, response: Response) -> Response {
        let is_json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
        let message = match response.status() {
            StatusCode::PAYLOAD_TOO_LARGE if !is_json => format!(
                "the request body is larger than this server's limit of {} bytes \
                 (--max-upload-bytes)",
                self.max_upload_bytes
            ),
            StatusCode::REQUEST_TIMEOUT if !is_json => format!(
                "the request took longer than this server's limit of {} s \
                 (--request-timeout-seconds)",
                self.request_timeout_seconds
            ),
            _ => return response,
        };
        let (mut parts, _) = response.into_parts();
        parts.headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        parts.headers.remove(header::CONTENT_LENGTH);
        Response::from_parts(
            parts,
            Body::from(serde_json::json!({ "error": message }).to_string()),
        )
    }
}

/// A token bucket: `rate` tokens a second on average, bursts of `burst`.
pub struct RateBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl RateBucket {
    /// `rate` a second, bursts of ten seconds' worth.
    pub fn new(rate: f64) -> Self {
        Self::with_burst(rate, rate * 10.0)
    }

    pub fn with_burst(rate: f64, burst: f64) -> Self {
        Self {
            rate,
            burst,
            tokens: burst,
            at: Instant::now(),
        }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
    }

    /// Takes one token; false when the client is over its rate.
    pub fn take(&mut self) -> bool {
        self.refill();
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }

    /// Seconds until the next token.
    fn wait_seconds(&self) -> f64 {
        ((1.0 - self.tokens) / self.rate).max(0.0)
    }

    fn full(&mut self) -> bool {
        self.refill();
        self.tokens >= self.burst
    }
}

/// What a rate-limited route does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Creating or importing a session.
    CreateSession,
    /// Sending a dataset, an analysis or a run.
    Upload,
}

/// Client addresses kept before idle ones (buckets full again) are forgotten.
const TRACKED_CLIENTS: usize = 10_000;

/// Per client address, the buckets for creating sessions and for uploads.
#[derive(Clone)]
pub struct ClientRates {
    limits: Limits,
    clients: Arc<Mutex<HashMap<IpAddr, [RateBucket; 2]>>>,
}

impl ClientRates {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            clients: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// The client's address: the connection's, or `X-Forwarded-For`'s last entry when the
    /// server is told to trust it.
    fn address(&self, connection: Option<SocketAddr>, headers: &HeaderMap) -> IpAddr {
        let forwarded = self
            .limits
            .forwarded_for
            .then(|| headers.get("x-forwarded-for")?.to_str().ok())
            .flatten()
            .and_then(|v| v.rsplit(',').next()?.trim().parse().ok());
        forwarded
            .or(connection.map(|c| c.ip()))
            .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }

    /// None when `address` may do `action` now; otherwise the 429 answer.
    fn refuse(&self, address: IpAddr, action: Action) -> Option<Response> {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() >= TRACKED_CLIENTS {
            clients.retain(|_, buckets| !buckets.iter_mut().all(RateBucket::full));
        }
        let limits = &self.limits;
        let buckets = clients.entry(address).or_insert_with(|| {
            [
                RateBucket::with_burst(limits.sessions_per_hour / 3600.0, limits.sessions_per_hour),
                RateBucket::with_burst(limits.uploads_per_minute / 60.0, limits.uploads_per_minute),
            ]
        });
        let bucket = &mut buckets[action as usize];
        if bucket.take() {
            return None;
        }
        let wait = bucket.wait_seconds().ceil().max(1.0);
        let message = match action {
            Action::CreateSession => format!(
                "this address has created {} sessions in the last hour, this server's limit                  (--sessions-per-hour); try again in {wait} s",
                limits.sessions_per_hour
            ),
            Action::Upload => format!(
                "this address has sent {} uploads in the last minute, this server's limit                  (--uploads-per-minute); try again in {wait} s",
                limits.uploads_per_minute
            ),
        };
        let mut response = (
            StatusCode::TOO_MANY_REQUESTS,
            Json(serde_json::json!({ "error": message })),
        )
            .into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait as u64));
        Some(response)
    }
}

/// One limited route's middleware state: the shared buckets and what the route does.
#[derive(Clone)]
pub struct RateGate {
    rates: ClientRates,
    action: Action,
}

impl ClientRates {
    /// The gate of a route doing `action` (for [`limit_client_rates`]).
    pub fn gate(&self, action: Action) -> RateGate {
        RateGate {
            rates: self.clone(),
            action,
        }
    }
}

/// Middleware of the routes that create sessions or upload: holds each client address to its
/// rate for the route's [`Action`].
pub async fn limit_client_rates(
    State(gate): State<RateGate>,
    request: Request,
    next: Next,
) -> Response {
    let connection = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let address = gate.rates.address(connection, request.headers());
    if let Some(refusal) = gate.rates.refuse(address, gate.action) {
        return refusal;
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let mut bucket = RateBucket::new(2.0);
        assert_eq!((0..25).filter(|_| bucket.take()).count(), 20);
        std::thread::sleep(Duration::from_millis(600));
        assert!(bucket.take(), "one token refilled after half a second");
        assert!(!bucket.take());
    }

    #[test]
    fn the_forwarded_address_counts_only_when_trusted() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("10.0.0.9, 192.0.2.7"),
        );
        let connection = Some(SocketAddr::from(([127, 0, 0, 1], 5000)));
        let trusting = ClientRates::new(Limits {
            forwarded_for: true,
            ..Limits::default()
        });
        assert_eq!(
            trusting.address(connection, &headers),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
        let plain = ClientRates::new(Limits::default());
        assert_eq!(
            plain.address(connection, &headers),
            "127.0.0.1".parse::<IpAddr>().unwrap()
        );
    }

    #[test]
    fn a_client_past_its_rate_gets_429_with_retry_after_and_others_do_not() {
        let rates = ClientRates::new(Limits {
            sessions_per_hour: 2.0,
            ..Limits::default()
        });
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(rates.refuse(a, Action::CreateSession).is_none());
        assert!(rates.refuse(a, Action::CreateSession).is_none());
        let refusal = rates
            .refuse(a, Action::CreateSession)
            .expect("a third is refused");
        assert_eq!(refusal.status(), StatusCode::TOO_MANY_REQUESTS);
        // One session every 30 minutes: the next one in 1,800 s.
        assert_eq!(refusal.headers()[header::RETRY_AFTER], "1800");
        assert!(
            rates.refuse(a, Action::Upload).is_none(),
            "uploads have their own rate"
        );
        assert!(
            rates.refuse(b, Action::CreateSession).is_none(),
            "another address"
        );
    }

    #[test]
    fn names_are_bounded() {
        assert!(check_name("title", &"é".repeat(MAX_NAME_CHARS)).is_ok());
        let error = check_name("title", &"x".repeat(MAX_NAME_CHARS + 1)).unwrap_err();
        assert!(
            error.contains("title: 201 characters") && error.contains("200"),
            "{error}"
        );
    }

    #[test]
    fn a_zero_limit_is_refused() {
        let limits = Limits {
            max_rows: 0,
            ..Limits::default()
        };
        let error = limits.check().unwrap_err().to_string();
        assert!(error.contains("--max-rows"), "{error}");
        assert!(Limits::default().check().is_ok());
    }
}
