//! The statistics web worker. The page posts a [`Job`]; the worker runs the `tribunal`
//! statistics off the UI thread and answers with [`Reply::Progress`] messages and one result.
//! Trunk builds it as `stats-worker.js` + `stats-worker_bg.wasm` (`data-type="worker"`).

use gloo_worker::{HandlerId, Worker, WorkerScope};
use serde::{Deserialize, Serialize};
use tribunal::battles::parse_battles;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::{bradley_terry_leaderboard, Leaderboard};

/// Where the page finds the worker script (Trunk's output name for the `stats-worker` bin).
pub const WORKER_PATH: &str = "./stats-worker.js";

/// Work for the statistics worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Job {
    /// Parse a battles CSV and fit the Bradley–Terry leaderboard.
    Leaderboard {
        source: String,
        bytes: Vec<u8>,
        params: BradleyTerryParams,
    },
}

/// The worker's answers: any number of progress messages, then one result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    Progress { stage: String },
    Leaderboard(Result<Leaderboard, String>),
}

/// The worker: stateless, one job at a time.
pub struct StatsWorker;

impl Worker for StatsWorker {
    type Message = ();
    type Input = Job;
    type Output = Reply;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        Self
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _message: Self::Message) {}

    fn received(&mut self, scope: &WorkerScope<Self>, job: Self::Input, id: HandlerId) {
        match job {
            Job::Leaderboard {
                source,
                bytes,
                params,
            } => {
                scope.respond(
                    id,
                    Reply::Progress {
                        stage: format!("parsing {source}"),
                    },
                );
                let result = parse_battles(&source, &bytes)
                    .and_then(|battles| {
                        scope.respond(
                            id,
                            Reply::Progress {
                                stage: format!(
                                    "fitting Bradley–Terry on {} battles",
                                    battles.battles.len()
                                ),
                            },
                        );
                        bradley_terry_leaderboard(&source, &battles, &params)
                    })
                    .map_err(|e| e.to_string());
                scope.respond(id, Reply::Leaderboard(result));
            }
        }
    }
}
