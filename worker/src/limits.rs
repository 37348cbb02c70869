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
//!   worth allowed) gets an error message and the connection is closed.
//!
//! 413 and 408 answers get a JSON body `{"error": …}` saying which limit and its value, as
//! every other API error does.

use axum::body::Body;
use axum::http::{header, StatusCode};
use axum::response::Response;
use clap::Args;
use std::time::{Duration, Instant};

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
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_upload_bytes: 64 << 20,
            max_rows: 1_000_000,
            request_timeout_seconds: 30.0,
            ws_max_message_bytes: 64 << 10,
            ws_messages_per_second: 20.0,
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
        ] {
            if !ok {
                anyhow::bail!("{flag}: expected a positive number, found {found}");
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

/// A token bucket: `rate` messages a second on average, bursts of ten seconds' worth.
pub struct RateBucket {
    rate: f64,
    tokens: f64,
    at: Instant,
}

impl RateBucket {
    pub fn new(rate: f64) -> Self {
        Self {
            rate,
            tokens: rate * 10.0,
            at: Instant::now(),
        }
    }

    /// Takes one message's token; false when the client is over its rate.
    pub fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.rate * 10.0);
        self.at = now;
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
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
