//! The bundled example: LLMFAO's files (CC BY 4.0, `tests/data/llmfao/`), which Trunk copies
//! into `dist/examples/`. Trying the example puts those files into a task page's own file
//! inputs, as if the user had picked them, and runs the page's own computation: the example
//! walks the same path from file to report as a user's data. The home page's links open a task
//! page with `?example`, which tries it as soon as the page is up. Each example file fetched is
//! remembered by its content hash ([`bundled`]), so a share link names it instead of carrying it
//! and whoever opens the link fetches it again ([`fetch`]).

use gloo_net::http::Request;
use leptos::html::{ElementType, Input};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::RefCell;
use std::collections::BTreeMap;
use tribunal::io::provenance::content_hash;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

thread_local! {
    /// The example files this page fetched: content hash → name in `/examples/`.
    static FETCHED: RefCell<BTreeMap<String, String>> = const { RefCell::new(BTreeMap::new()) };
}

/// The bundled examples this page has put into its inputs, by content hash: a share link names
/// these instead of carrying them.
pub fn bundled() -> BTreeMap<String, String> {
    FETCHED.with_borrow(Clone::clone)
}

/// The crowd's votes: `id,prompt,model_x,model_y,worker,winner,left,right`.
pub const CROWD: &str = "crowd-comparisons.csv";
/// GPT-4 as judge on the crowd's pairs, one verdict each, in the crowd's layout.
pub const GPT4: &str = "gpt4-crowd-comparisons.csv";
/// GPT-3.5 as judge on the crowd's pairs.
pub const GPT3: &str = "gpt3-crowd-comparisons.csv";
/// The pairs' texts with the crowd's plurality label: `id,instruction,response,response_b,label`.
pub const PAIRS: &str = "pairs.csv";
/// GPT-4's verdict on each pair: `id,label`.
pub const GPT4_VERDICTS: &str = "gpt4-verdicts.csv";
/// Three pairs to judge, with their models (`id,instruction,response,response_b,model,model_b`;
/// pair 169's answer is a zero-width space, which a run flags).
pub const ITEMS: &str = "llmfao-items.csv";
/// Bias probes: clean and perturbed answers.
pub const PROBES: &str = "probes.csv";
/// A BTL calibration of GPT-4's verdicts to the crowd's vote shares (`id,p,human`; made by
/// `tests/fixtures/make_calibration_example.py`): 400 training pairs …
pub const CALIBRATION_TRAIN: &str = "calibration-train.csv";
/// … and 300 test pairs.
pub const CALIBRATION_TEST: &str = "calibration-test.csv";
/// Row i: the MiniLM embedding of training pair i's texts (400 × 384 float32).
pub const CALIBRATION_TRAIN_EMBEDDINGS: &str = "calibration-train.npy";
/// Row i: the MiniLM embedding of test pair i's texts (300 × 384 float32).
pub const CALIBRATION_TEST_EMBEDDINGS: &str = "calibration-test.npy";

/// The bundled judge, SmolLM2-135M, sampled twice on 31 pairs, with the crowd's plurality
/// (`item,rater,score`, raters `run1`, `run2`, `crowd`; the A/A test) …
pub const JUDGE_RUNS: &str = "smollm2-runs.csv";
/// … the same two runs as repeats of one judge (`item,variant,score`; self-consistency) …
pub const JUDGE_REPEATS: &str = "smollm2-repeats.csv";
/// … and its verdicts on 62 pairs shown in both orders (`item,variant,score`, `ab`/`ba`;
/// position bias).
pub const JUDGE_ORDERS: &str = "smollm2-orders.csv";

/// Whether the address asks for the example (`?example`).
pub fn requested() -> bool {
    window().location().search().is_ok_and(|search| {
        search
            .trim_start_matches('?')
            .split('&')
            .any(|p| p == "example")
    })
}

/// The bundled example file `name`'s bytes, remembered as bundled ([`bundled`]).
pub async fn fetch(name: &str) -> Result<Vec<u8>, String> {
    let url = format!("/examples/{name}");
    let response = Request::get(&url)
        .send()
        .await
        .map_err(|e| format!("{url}: the example could not be fetched: {e}"))?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let bytes = response
        .binary()
        .await
        .map_err(|e| format!("{url}: the example could not be read: {e}"))?;
    FETCHED.with_borrow_mut(|f| f.insert(content_hash(&bytes), name.to_owned()));
    Ok(bytes)
}

/// Fetches the named example files and puts them into `input`, replacing what it held.
pub async fn fill(input: &HtmlInputElement, names: &[&str]) -> Result<(), String> {
    let transfer = web_sys::DataTransfer::new().map_err(|_| "this browser cannot hold files")?;
    for name in names {
        let bytes = fetch(name).await?;
        let file = gloo_file::File::new(name, bytes.as_slice());
        transfer
            .items()
            .add_with_file(file.as_ref())
            .map_err(|_| format!("/examples/{name}: the example could not be attached"))?;
    }
    input.set_files(transfer.files().as_ref());
    Ok(())
}

/// Runs `try_it` once, when the address asks for the example, as soon as `node` is on the page.
pub fn when_requested<E>(node: NodeRef<E>, try_it: impl Fn() + 'static)
where
    E: ElementType,
    E::Output: JsCast + Clone + 'static,
{
    if !requested() {
        return;
    }
    let done = StoredValue::new(false);
    Effect::new(move |_| {
        if node.get().is_some() && !done.get_value() {
            done.set_value(true);
            try_it();
        }
    });
}

/// Fills each input with its example files, then runs `then`; an error goes to `fail`.
pub fn try_example(
    fills: Vec<(NodeRef<Input>, &'static [&'static str])>,
    then: impl FnOnce() + 'static,
    fail: impl FnOnce(String) + 'static,
) {
    spawn_local(async move {
        for (input, names) in fills {
            let Some(input) = input.get_untracked() else {
                return;
            };
            if let Err(message) = fill(&input, names).await {
                return fail(message);
            }
        }
        then();
    });
}

/// The button that tries the example, and what it loads.
#[component]
pub fn ExampleButton(
    /// The button's id.
    id: &'static str,
    /// What the example holds, in a few words.
    what: &'static str,
    on_try: Callback<()>,
) -> impl IntoView {
    view! {
        <p class="example">
            <button id=id class="example" on:click=move |_| on_try.run(())>"Try it on an example"</button>
            " " {what} " — from "
            <a href="https://github.com/dustalov/llmfao" rel="noopener">"LLMFAO"</a>
            " ("<a href="https://creativecommons.org/licenses/by/4.0/" rel="license noopener">"CC BY 4.0"</a>")."
        </p>
    }
}
