//! A page's statistics web workers in one place: how many there are, the number of the request
//! in flight, the split of a range of work (bootstrap rounds, cross-validation folds) into one
//! share per worker, and the filter that drops the replies to superseded requests — so that a
//! page only says what to send and what to do with the answers ([`WorkerPool`]); and the one
//! analysis at a time that most pages compute whole ([`AnalysisRun`]).

use gloo_worker::WorkerBridge;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::ops::Range;
use tribunal::analysis::{Report, Spec};
use tribunal_app::stats_worker::{spawn_stats_worker, Job, Reply, RoleFile, StatsWorker};

/// A spec and its files, as a page last computed them (what "Save" and "Share" take).
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub spec: Spec,
    pub files: Vec<RoleFile>,
}

/// Statistics workers that answer one request at a time. Copy it into closures.
#[derive(Clone, Copy)]
pub struct WorkerPool {
    workers: StoredValue<Vec<WorkerBridge<StatsWorker>>, LocalStorage>,
    request: StoredValue<u64>,
}

impl WorkerPool {
    /// `n` workers (at least one). Their replies to the current request, and those that answer
    /// no request (a training file parsed), go to `on_reply`; replies to superseded requests
    /// are dropped here.
    pub fn spawn(n: usize, on_reply: impl Fn(Reply) + Clone + 'static) -> Self {
        let pool = Self {
            workers: StoredValue::new_local(Vec::new()),
            request: StoredValue::new(0),
        };
        let workers = (0..n.max(1))
            .map(|_| {
                let on_reply = on_reply.clone();
                spawn_stats_worker(move |reply: Reply| {
                    if reply.request().is_none_or(|r| pool.is_current(r)) {
                        on_reply(reply);
                    }
                })
            })
            .collect();
        pool.workers.set_value(workers);
        pool
    }

    /// A new request: its number, which the jobs sent for it carry. Replies to earlier
    /// requests are dropped from now on.
    pub fn begin(self) -> u64 {
        let request = self.request.get_value() + 1;
        self.request.set_value(request);
        request
    }

    /// Drops the replies still to come for the current request (it failed, or was replaced).
    pub fn cancel(self) {
        self.begin();
    }

    /// The number of the request in flight.
    pub fn current(self) -> u64 {
        self.request.get_value()
    }

    /// Whether `request` is the one in flight; never, once the pool's view is gone (a reply
    /// can still be on its way then).
    pub fn is_current(self, request: u64) -> bool {
        self.request.try_get_value() == Some(request)
    }

    /// How many workers there are.
    pub fn size(self) -> usize {
        self.workers.with_value(Vec::len)
    }

    /// Sends `job` to worker `k` (modulo the pool's size), after the current event handler.
    pub fn send(self, k: usize, job: Job) {
        spawn_local(async move {
            self.workers.with_value(|w| {
                if let Some(worker) = w.get(k % w.len().max(1)) {
                    worker.send(job);
                }
            });
        });
    }

    /// `0..total` in contiguous shares, one per worker, none empty (fewer when `total` is
    /// smaller than the pool).
    pub fn shares(self, total: usize) -> Vec<Range<usize>> {
        let n = self.size();
        (0..n)
            .map(|k| total * k / n..total * (k + 1) / n)
            .filter(|share| !share.is_empty())
            .collect()
    }
}

/// One analysis at a time, run whole in a worker of its own: [`AnalysisRun::run`] sends a
/// spec and its files; the report, the error and whether it is computing are signals, and
/// `computed` is the analysis the report on screen came from (what "Save" and "Share" take).
/// A failed run shows its error and keeps the previous report. Copy it into closures.
#[derive(Clone, Copy)]
pub struct AnalysisRun {
    pub report: RwSignal<Option<Report>>,
    pub error: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    pub computed: RwSignal<Option<Computed>>,
    pending: StoredValue<Option<Computed>, LocalStorage>,
    pool: WorkerPool,
}

impl AnalysisRun {
    /// Spawns its worker.
    pub fn spawn() -> Self {
        let report = RwSignal::new(None);
        let error = RwSignal::new(None);
        let busy = RwSignal::new(false);
        let computed = RwSignal::new(None);
        let pending = StoredValue::new_local(None::<Computed>);
        let pool = WorkerPool::spawn(1, move |reply| {
            if let Reply::Analysed { result, .. } = reply {
                busy.set(false);
                match result {
                    Ok(done) => {
                        report.set(Some(done));
                        error.set(None);
                        computed.set(pending.get_value());
                    }
                    Err(message) => error.set(Some(message)),
                }
            }
        });
        Self {
            report,
            error,
            busy,
            computed,
            pending,
            pool,
        }
    }

    /// Computes `analysis` (its replies supersede those of any analysis still computing).
    pub fn run(self, analysis: Computed) {
        self.busy.set(true);
        let request = self.pool.begin();
        self.pending.set_value(Some(analysis.clone()));
        self.pool.send(
            0,
            Job::Analyse {
                request,
                spec: Box::new(analysis.spec),
                files: analysis.files,
            },
        );
    }

    /// Shows why the analysis could not be sent (a file that could not be read, a setting out
    /// of range), dropping any reply still to come.
    pub fn fail(self, message: String) {
        self.pool.cancel();
        self.busy.set(false);
        self.error.set(Some(message));
    }
}
