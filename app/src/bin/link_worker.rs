//! Entry point of the share-link web worker (see `tribunal_app::link_worker`).

use gloo_worker::Registrable;
use tribunal_app::link_worker::LinkWorker;
use tribunal_app::stats_worker::Cbor;

fn main() {
    console_error_panic_hook::set_once();
    LinkWorker::registrar().encoding::<Cbor>().register();
}
