//! Every integration test of the statistics, in one test binary per target (natively and, for
//! wasm32, in headless Chromium): each module is one family's tests against its committed
//! reference fixtures. One binary, not one per family, so the library and its dependencies are
//! linked once per target and the browser starts once.

// In a dedicated worker, as the app runs its statistics: a test that computes for longer than
// ChromeDriver waits for the page (30 s on a slow machine) would block the page's thread, and the
// runner's polls of the output would fail ("Timed out receiving message from renderer").
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

mod alpha;
mod bt_bootstrap;
mod bt_standard_errors;
mod cascade;
mod compare;
mod conformal;
mod correlation;
mod head_file;
mod head_metrics;
mod head_study;
mod heads;
mod held_out;
mod input_messages;
mod irt;
mod kappa;
mod label_model;
mod length_control;
mod multiple_testing;
mod position_bias;
mod power;
mod properties;
mod quadrature;
mod ranking;
mod readers;
mod reference;
mod reliability;
mod scored_battles;
mod self_preference;
mod soft_targets;
mod split;
mod style_control;
mod transitivity;
