//! The share-link worker: the fragment of a link ([`tribunal::sessions::share_link::encode`])
//! compressed off the page's thread, in a wasm of its own (the `link-worker` binary) so that
//! neither the page's wasm nor the statistics worker's — which every visitor of a shared
//! analysis downloads — carries the Brotli encoder. Started on the first "Share as a link".

use crate::stats_worker::{Cbor, RoleFile};
use gloo_worker::{HandlerId, Spawnable, Worker, WorkerBridge, WorkerScope};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tribunal::analysis::Spec;
use tribunal::sessions::share_link::{encode, SharedAnalysis};

/// The script that starts the link worker (`public/link_worker_loader.js`).
pub const LINK_WORKER_LOADER_PATH: &str = "/link_worker_loader.js";

/// A link to make: the spec, its files, and the bundled examples by content hash (named, not
/// carried).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LinkJob {
    pub spec: Spec,
    pub files: Vec<RoleFile>,
    pub bundled: BTreeMap<String, String>,
}

/// The worker: each job's fragment, or why the data do not fit a link.
pub struct LinkWorker;

impl Worker for LinkWorker {
    type Message = ();
    type Input = LinkJob;
    type Output = Result<String, String>;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        Self
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _message: Self::Message) {}

    fn received(&mut self, scope: &WorkerScope<Self>, job: LinkJob, id: HandlerId) {
        let shared = SharedAnalysis {
            spec: job.spec,
            inputs: RoleFile::inputs(&job.files),
        };
        scope.respond(id, encode(&shared, &job.bundled).map_err(|e| e.to_string()));
    }
}

/// Starts a link worker whose answers go to `on_reply`.
pub fn spawn_link_worker(
    on_reply: impl Fn(Result<String, String>) + 'static,
) -> WorkerBridge<LinkWorker> {
    LinkWorker::spawner()
        .encoding::<Cbor>()
        .callback(on_reply)
        .spawn_with_loader(LINK_WORKER_LOADER_PATH)
}
