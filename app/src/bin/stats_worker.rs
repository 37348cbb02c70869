//! Entry point of the statistics web worker (see `tribunal_app::stats_worker`).

use gloo_worker::Registrable;
use tribunal_app::stats_worker::{Cbor, StatsWorker};

fn main() {
    console_error_panic_hook::set_once();
    StatsWorker::registrar().encoding::<Cbor>().register();
}
