//! What the page and its web worker share: the jobs the page sends to the statistics worker and
//! the worker itself. The page's UI lives in the `tribunal-app` binary (`src/main.rs`); the
//! worker's entry point is the `stats-worker` binary (`src/bin/stats_worker.rs`).

pub mod stats_worker;
