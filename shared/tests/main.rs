//! Every integration test of the statistics, in one test binary per target (natively and, for
//! wasm32, in headless Chromium): each module is one family's tests against its committed
//! reference fixtures. One binary, not one per family, so the library and its dependencies are
//! linked once per target and the browser starts once.

// In a dedicated worker, as the app runs its statistics: a test that computes for longer than
// ChromeDriver waits for the page (30 s on a slow machine) would block the page's thread, and the
// runner's polls of the output would fail ("Timed out receiving message from renderer").
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

// Every other file of `tests/` is a module of this binary, declared by the build
// (`shared/build.rs`): a new test file needs no line here.
include!(concat!(env!("OUT_DIR"), "/test_modules.rs"));
