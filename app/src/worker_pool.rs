//! A page's statistics web workers in one place: how many there are, the number of the request
//! in flight, the split of a range of work (bootstrap rounds, cross-validation folds) into one
//! share per worker, and the filter that drops the replies to superseded requests — so that a
//! page only says what to send and what to do with the answers ([`WorkerPool`]); and the one
//! analysis at a time that every page computes ([`AnalysisRun`]): its preview, its parts split
//! across the pool with progress, and its report, through the three generic jobs of
//! [`tribunal_app::stats_worker`].

use gloo_worker::WorkerBridge;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::ops::Range;
use tribunal::analysis::partial::Partial;
use tribunal::analysis::{Analysis, Report, Spec};
use tribunal::io::provenance::content_hash;
use tribunal_app::stats_worker::{spawn_stats_worker, Job, Reply, RoleFile, StatsWorker};

/// A spec and its files, as a page last computed them (what "Save" and "Share" take).
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub spec: Spec,
    pub files: Vec<RoleFile>,
}

impl Computed {
    /// `analysis` on `files`. Each file's content hash (the one it was read with, or computed
    /// now) names it in the spec and travels with it, so that no worker hashes it again.
    pub fn new(analysis: Analysis, mut files: Vec<RoleFile>) -> Self {
        for file in &mut files {
            if file.hash.is_none() {
                file.hash = Some(content_hash(file.bytes()));
            }
        }
        Self {
            spec: Spec::new(analysis, &RoleFile::inputs(&files)),
            files,
        }
    }
}

/// Statistics workers that answer one request at a time. Copy it into closures.
#[derive(Clone, Copy)]
pub struct WorkerPool {
    workers: StoredValue<Vec<WorkerBridge<StatsWorker>>, LocalStorage>,
    request: StoredValue<u64>,
}

impl WorkerPool {
    /// `n` workers (at least one). Their replies to the current request go to `on_reply`;
    /// replies to superseded requests are dropped here.
    pub fn spawn(n: usize, on_reply: impl Fn(Reply) + Clone + 'static) -> Self {
        let pool = Self {
            workers: StoredValue::new_local(Vec::new()),
            request: StoredValue::new(0),
        };
        let workers = (0..n.max(1))
            .map(|_| {
                let on_reply = on_reply.clone();
                spawn_stats_worker(move |reply: Reply| {
                    if pool.is_current(reply.request()) {
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

/// The analysis in flight: what it is, and its parts' results as they arrive (by the start
/// of their range).
#[derive(Default)]
struct InFlight {
    analysis: Option<Computed>,
    parts: Vec<(usize, Option<Partial>)>,
    /// When it began (`performance.now()`, ms).
    started: f64,
}

/// One analysis at a time, computed in a pool of web workers: [`AnalysisRun::run`] sends a
/// spec and its files; a kind whose run comes in parts (a leaderboard's bootstrap rounds, a
/// calibration's folds) shows its preview first, then has its parts split across the pool
/// with progress, then its report. The report, the error, whether it is computing, the
/// progress and the time its parts took are signals, and `computed` is the analysis the report
/// on screen came from (what "Save" and "Share" take). A failed run shows its error and keeps
/// the previous report. Copy it into closures.
#[derive(Clone, Copy)]
pub struct AnalysisRun {
    pub report: RwSignal<Option<Report>>,
    pub error: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    pub computed: RwSignal<Option<Computed>>,
    /// Parts done of all, while they compute.
    pub progress: RwSignal<Option<(usize, usize)>>,
    /// How long the last run's parts took, ms (`None` for a kind that runs whole).
    pub parts_ms: RwSignal<Option<f64>>,
    in_flight: StoredValue<InFlight, LocalStorage>,
    /// The spec whose run each worker keeps prepared (it was sent there with its files): its
    /// next jobs of that spec go without the files.
    held: StoredValue<Vec<Option<Spec>>, LocalStorage>,
    pool: StoredValue<Option<WorkerPool>, LocalStorage>,
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

impl AnalysisRun {
    /// Spawns its `workers` workers (at least one).
    pub fn spawn(workers: usize) -> Self {
        let run = Self {
            report: RwSignal::new(None),
            error: RwSignal::new(None),
            busy: RwSignal::new(false),
            computed: RwSignal::new(None),
            progress: RwSignal::new(None),
            parts_ms: RwSignal::new(None),
            in_flight: StoredValue::new_local(InFlight::default()),
            held: StoredValue::new_local(vec![None; workers.max(1)]),
            pool: StoredValue::new_local(None),
        };
        let pool = WorkerPool::spawn(workers, move |reply| run.on_reply(reply));
        run.pool.set_value(Some(pool));
        run
    }

    fn send(self, k: usize, job: Job) {
        if let Some(pool) = self.pool.get_value() {
            pool.send(k, job);
        }
    }

    /// `files` for worker `k`'s job on `spec`, unless it keeps that run prepared already; from
    /// then on it does.
    fn files_for(self, k: usize, spec: &Spec, files: &[RoleFile]) -> Option<Vec<RoleFile>> {
        self.held.try_update_value(|held| {
            let slot = held.get_mut(k)?;
            if slot.as_ref() == Some(spec) {
                return None;
            }
            *slot = Some(spec.clone());
            Some(files.to_vec())
        })?
    }

    /// Computes `analysis` (its replies supersede those of any analysis still computing).
    pub fn run(self, analysis: Computed) {
        let Some(pool) = self.pool.get_value() else {
            return;
        };
        let request = pool.begin();
        self.busy.set(true);
        self.parts_ms.set(None);
        let Computed { spec, files } = analysis.clone();
        let parts = spec.analysis.parts();
        let shares = pool.shares(parts);
        self.in_flight.set_value(InFlight {
            analysis: Some(analysis),
            parts: shares.iter().map(|share| (share.start, None)).collect(),
            started: now(),
        });
        self.progress.set((parts > 0).then_some((0, parts)));
        let spec = Box::new(spec);
        if parts == 0 {
            let files = self.files_for(0, &spec, &files);
            return self.send(
                0,
                Job::Finish {
                    request,
                    spec,
                    files,
                    parts: Vec::new(),
                },
            );
        }
        // Worker 0 prepares the run for its preview and keeps it for its share and the finish;
        // every other worker prepares it for its share (each keeps it for the next run of the
        // same spec).
        self.send(
            0,
            Job::Preview {
                request,
                spec: spec.clone(),
                files: self.files_for(0, &spec, &files),
            },
        );
        for (k, share) in shares.into_iter().enumerate() {
            self.send(
                k,
                Job::Parts {
                    request,
                    spec: spec.clone(),
                    files: self.files_for(k, &spec, &files),
                    start: share.start,
                    end: share.end,
                },
            );
        }
    }

    /// Shows why the analysis could not be sent or run (a file that could not be read, a
    /// setting out of range, a parse error), dropping any reply still to come. A worker that
    /// failed may hold no run: every next job sends its files again.
    pub fn fail(self, message: String) {
        if let Some(pool) = self.pool.get_value() {
            pool.cancel();
        }
        self.held
            .update_value(|held| held.iter_mut().for_each(|h| *h = None));
        self.busy.set(false);
        self.progress.set(None);
        self.error.set(Some(message));
    }

    /// The analysis in flight becomes the one on screen, with `report`.
    fn show(self, report: Report) {
        self.report.set(Some(report));
        self.error.set(None);
        let now = self.in_flight.with_value(|f| f.analysis.clone());
        if self.computed.with_untracked(|c| *c != now) {
            self.computed.set(now);
        }
    }

    /// Handles the replies to the current request (the pool drops the others).
    fn on_reply(self, reply: Reply) {
        match reply {
            Reply::Previewed { result, .. } => match result {
                Ok(Some(preview)) => self.show(preview),
                Ok(None) => {}
                Err(message) => self.fail(message),
            },
            Reply::Progress { done, .. } => self.progress.update(|p| {
                if let Some((d, _)) = p {
                    *d += done;
                }
            }),
            Reply::Parts { start, result, .. } => match result {
                Ok(partial) => self.finish_when_ready(start, partial),
                Err(message) => self.fail(message),
            },
            Reply::Analysed { result, .. } => {
                self.busy.set(false);
                self.progress.set(None);
                match result {
                    Ok(report) => self.show(report),
                    Err(message) => self.fail(message),
                }
            }
            Reply::Fitted { .. } | Reply::ProgramTexts { .. } => {}
        }
    }

    /// Keeps the parts from `start`; once every range is in, has worker 0 finish the report.
    fn finish_when_ready(self, start: usize, partial: Partial) {
        let request = self.pool.get_value().map_or(0, WorkerPool::current);
        let job = self.in_flight.try_update_value(|f| {
            if let Some(slot) = f.parts.iter_mut().find(|p| p.0 == start) {
                slot.1 = Some(partial);
            }
            if f.parts.iter().any(|p| p.1.is_none()) {
                return None;
            }
            let spec = f.analysis.as_ref()?.spec.clone();
            f.parts.sort_by_key(|p| p.0);
            let parts = f.parts.iter_mut().filter_map(|p| p.1.take()).collect();
            Some((
                Job::Finish {
                    request,
                    spec: Box::new(spec),
                    files: None,
                    parts,
                },
                f.started,
            ))
        });
        if let Some(Some((job, started))) = job {
            self.parts_ms.set(Some(now() - started));
            self.progress.update(|p| {
                if let Some((d, t)) = p {
                    *d = *t;
                }
            });
            self.send(0, job);
        }
    }
}
