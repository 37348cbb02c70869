//! The Compare page: systems compared on pointwise scores (`tribunal stats compare`). Pick a
//! long-format scores CSV (`item,system,score` and optionally `criterion`, `epoch`, `cluster`,
//! `human` and slice columns) — or other tools' files, a model each (Inspect logs, promptfoo
//! results, AlpacaEval annotations, lm-evaluation-harness samples), converted on this device
//! and joined ([`tribunal::readers::scores_of`]) — name the columns that differ, a baseline and the slices; a web
//! worker runs the comparison spec and the page shows [`CompareView`]. The example is AlpacaEval
//! 2's own annotations of five models (`examples/compare-alpaca-eval.csv`, Apache-2.0),
//! clustered and sliced by the instructions' source dataset and by answer length.

use crate::compare_view::CompareView;
use crate::examples;
use crate::fields::{number_field, text_field, Bounds};
use crate::format::given;
use crate::glossary::term;
use crate::reliability::read_all;
use crate::save_share::SaveAndShare;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::{Analysis, Report};
use tribunal::compare::comparison::CompareParams;
use tribunal::compare::score_table::{ScoreColumns, TableParams};
use tribunal::readers::{scores_of, ConvertParams};
use tribunal_app::stats_worker::RoleFile;

/// The example's file in `dist/examples/`.
const EXAMPLE: &str = "compare-alpaca-eval.csv";

/// The comparison's settings, as the form holds them.
#[derive(Clone, Copy)]
struct CompareForm {
    system: RwSignal<String>,
    cluster: RwSignal<String>,
    baseline: RwSignal<String>,
    slices: RwSignal<String>,
    length: RwSignal<String>,
    rounds: RwSignal<usize>,
    seed: RwSignal<u64>,
}

impl CompareForm {
    fn new() -> Self {
        let defaults = CompareParams::default();
        Self {
            system: RwSignal::new(ScoreColumns::default().system),
            cluster: RwSignal::new(ScoreColumns::default().cluster),
            baseline: RwSignal::new(String::new()),
            slices: RwSignal::new(String::new()),
            length: RwSignal::new(String::new()),
            rounds: RwSignal::new(defaults.bootstrap_rounds),
            seed: RwSignal::new(defaults.seed),
        }
    }

    /// The comparison of the scores file (name, bytes), with a gold file when one is given.
    fn computed(
        self,
        (source, bytes): (String, Vec<u8>),
        gold: Option<(String, Vec<u8>)>,
    ) -> Computed {
        let params = CompareParams {
            table: TableParams {
                columns: ScoreColumns {
                    system: self.system.get_untracked().trim().to_owned(),
                    cluster: self.cluster.get_untracked().trim().to_owned(),
                    ..ScoreColumns::default()
                },
                slices: self
                    .slices
                    .get_untracked()
                    .split(',')
                    .filter_map(given)
                    .collect(),
                length: given(&self.length.get_untracked()),
            },
            baseline: given(&self.baseline.get_untracked()),
            bootstrap_rounds: self.rounds.get_untracked(),
            seed: self.seed.get_untracked(),
            ..CompareParams::default()
        };
        let mut files = vec![RoleFile::new("scores", source, bytes)];
        files.extend(gold.map(|(name, bytes)| RoleFile::new("gold", name, bytes)));
        Computed::new(Analysis::Compare(params), files)
    }
}

#[component]
pub fn ComparePage() -> impl IntoView {
    let form = CompareForm::new();
    let compared = AnalysisRun::spawn(1);
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let gold_ref = NodeRef::<leptos::html::Input>::new();
    let notes = RwSignal::new(Vec::<String>::new());
    let compute = move || {
        let (Some(input), Some(gold_input)) = (input_ref.get_untracked(), gold_ref.get_untracked())
        else {
            return;
        };
        compared.busy.set(true);
        notes.set(Vec::new());
        spawn_local(async move {
            let gold = match read_all(&gold_input).await {
                Ok(files) => files.into_iter().next(),
                Err(message) => return compared.fail(message),
            };
            let files = match read_all(&input).await {
                Ok(files) if files.is_empty() => {
                    Err("choose a scores CSV or tools' files".to_owned())
                }
                Ok(files) => {
                    scores_of(files, None, &ConvertParams::default()).map_err(|e| e.to_string())
                }
                Err(message) => Err(message),
            };
            match files {
                Ok((name, bytes, warnings)) => {
                    notes.set(warnings);
                    compared.run(form.computed((name, bytes), gold));
                }
                Err(message) => compared.fail(message),
            }
        });
    };
    let try_example = move || {
        examples::try_example(
            vec![(input_ref, &[EXAMPLE])],
            move || {
                form.cluster.set("dataset".to_owned());
                form.slices.set("dataset".to_owned());
                form.length.set("length".to_owned());
                compute();
            },
            move |message| compared.fail(message),
        );
    };
    examples::when_requested(input_ref, try_example);
    view! {
        <section id="compare" class="card">
            <h2>"Compare systems on scored answers"</h2>
            <p class="hint">
                "One row per score an answer received: " <code>"item,system,score"</code>
                " (pass/fail as 0/1, a grade or any number), optionally " <code>"criterion"</code> " (a rubric criterion or scorer), "
                <code>"epoch"</code> " (repeats, averaged per item), " <code>"cluster"</code>
                " (" {term("cluster", "items that belong together")} ": a template, a document), " <code>"human"</code>
                " (a person's label on some answers; or give those labels as a separate gold file) and columns to slice by. Or pick other tools' result files, one per model — Inspect logs, promptfoo results, AlpacaEval annotations, lm-evaluation-harness samples — converted here, on this device. Each system's score gets an interval; each pair of systems is compared on the items both answered (a paired difference, far narrower than two separate intervals), with " {term("p-value", "p-values")} " " {term("holm", "corrected for the many pairs")} ". The same numbers as "
                <code>"tribunal stats compare"</code> "."
            </p>
            <p class="example">
                <button id="example-compare" class="example" on:click=move |_| try_example()>"Try it on an example"</button>
                " AlpacaEval 2's GPT-4 Turbo judgments of five models' answers to its 805 instructions against GPT-4 Turbo's, clustered and sliced by the instructions' source and by answer length — from "
                <a href="https://github.com/tatsu-lab/alpaca_eval" rel="noopener">"AlpacaEval"</a>
                " (" <a href="https://www.apache.org/licenses/LICENSE-2.0" rel="license noopener">"Apache-2.0"</a> ")."
            </p>
            <CompareSettings form />
            <div class="controls">
                <label class="file">"Scores CSV or tools' files " <input id="compare-input" type="file" multiple accept=".csv,text/csv,.json,.jsonl" node_ref=input_ref /></label>
                <label class="file">"Gold labels (optional: item,system[,criterion],human) " <input id="compare-gold" type="file" accept=".csv,text/csv" node_ref=gold_ref /></label>
                <button id="compare-run" on:click=move |_| compute()>"Compare"</button>
            </div>
            {move || compared.busy.get().then(|| view! { <p class="busy" role="status">"comparing…"</p> })}
            {move || notes.get().into_iter().map(|n| view! { <p class="warning">{n}</p> }).collect_view()}
            {move || compared.error.get().map(|m| view! { <div id="compare-error" class="error" role="alert">{m}</div> })}
            {move || compared.report.get().and_then(|r| match r {
                Report::Compare(report) => Some(view! { <CompareView report=*report /> }),
                _ => None,
            })}
            <SaveAndShare computed=compared.computed title="Comparison of systems" prefix="compare-" busy=compared.busy />
        </section>
    }
}

/// The columns, baseline, slices and bootstrap.
#[component]
fn CompareSettings(form: CompareForm) -> impl IntoView {
    view! {
        <div class="controls">
            {text_field("compare-system".to_owned(), "System column", form.system)}
            {text_field("compare-cluster".to_owned(), "Cluster column (when present)", form.cluster)}
            {text_field("compare-baseline".to_owned(), "Baseline system (optional: else every pair)", form.baseline)}
            {text_field("compare-slices".to_owned(), "Slice columns (comma-separated)", form.slices)}
            {text_field("compare-length".to_owned(), "Length column (bucketed)", form.length)}
            {number_field("compare-rounds", "Bootstrap rounds", Bounds::from("0", "100"), form.rounds)}
            {number_field("compare-seed", "Seed", Bounds::from("0", "1"), form.seed)}
        </div>
    }
}
