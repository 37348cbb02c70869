//! What the bundled judge is for and what it measured, where a judge is chosen (the home
//! page's judge job, the runs page and the run form): SmolLM2-135M is there to try the pipeline
//! on any machine; on LLMFAO it agrees with the crowd at chance, as the study's judge value
//! gauge measured it (`docs/llmfao-study/smollm2-value.json`, written by `tribunal study` and
//! compiled in, so the page says what the committed study says). For labels worth having, a
//! run points at an OpenAI-compatible judge, gauged first on a pilot.

use leptos::prelude::*;
use tribunal::ppi::judge_value::JudgeValue;

/// The study's gauge of the bundled judge against the LLMFAO crowd.
const MEASURED: &str = include_str!("../../docs/llmfao-study/smollm2-value.json");

fn measured() -> Option<JudgeValue> {
    serde_json::from_str(MEASURED).ok()
}

/// One sentence of what the gauge measured, or none when the study's file does not read.
fn measured_words() -> Option<String> {
    let g = measured()?;
    let rho = g.rho.map_or_else(
        || "ρ not identified".to_owned(),
        |r| format!("ρ = {:.2} [{:.2}, {:.2}]", r.estimate, r.lower, r.upper),
    );
    Some(format!(
        "Measured on LLMFAO against the crowd ({} human-labelled pairs), it picks the crowd's \
         side on {:.0} % of them where two independent raters would by chance on {:.0} %, with \
         {rho}: {}.",
        g.labelled,
        100.0 * g.agreement.estimate,
        100.0 * g.chance_agreement,
        g.verdict
    ))
}

/// The bundled judge: what it is for, what it measured, and how to use a stronger one.
#[component]
pub fn BundledJudgeNote() -> impl IntoView {
    view! {
        <div id="bundled-judge" class="hint">
            <p>"The bundled judge, SmolLM2-135M, runs on any machine so that you can try the whole pipeline — a run, its live page, the analyses of its verdicts. It is not a judge to trust: "
                {measured_words()} " (the LLMFAO study, " <code>"docs/llmfao-study.md"</code> " in Tribunal's repository)."</p>
            <p>"For verdicts worth having, point a run at a stronger judge on any OpenAI-compatible server (vLLM, llama.cpp's server, a hosted API): start the worker with "
                <code>"tribunal serve --fleet URL"</code> " and pick that fleet and its model name in the run form."</p>
        </div>
    }
}

/// Under the run form's judge: for the bundled judge what it measured; for a fleet judge how
/// to gauge it before trusting it.
#[component]
pub fn ChosenJudgeNote(local: bool) -> impl IntoView {
    let gauge = view! {
        "Before spending human labels on a judge, gauge it on a pilot: a few dozen items with both its label and a person's, as a labelled-battles file ("
        <code>"model_a,model_b,judge,human"</code> ") in a session's " <em>"judge value"</em> " analysis (New analysis), or "
        <code>"tribunal stats judge-value"</code> ". It says how often the judge picks the people's side, its correlation ρ with them, and how many labels it can replace at most (a share ρ²)."
    };
    if local {
        view! { <p id="chosen-judge" class="warning" data-local="true">"The bundled judge is for trying the pipeline. " {measured_words()} " " {gauge}</p> }.into_any()
    } else {
        view! { <p id="chosen-judge" class="hint" data-local="false">{gauge}</p> }.into_any()
    }
}
