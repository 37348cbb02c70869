//! What the page and its web workers share: the jobs the page sends to the statistics worker and
//! the worker itself, and the share-link worker. The page's UI lives in the `tribunal-app`
//! binary (`src/main.rs`); the workers' entry points are the `stats-worker` and `link-worker`
//! binaries (`src/bin/`).

pub mod link_worker;
pub mod stats_worker;
