//! The page of an analysis kind whose report needs no more than its settings and its files
//! ([`KindPage`]; the pages themselves are in [`crate::kind_pages`]): what it answers, "try it
//! on an example", the settings, one file input per role the settings read (the role's
//! expected columns beside it), Compute with a progress sign, the report's reading and view
//! ([`crate::analysis_view::report_view`]) and Save/Share. The example's files go through the
//! same path as a user's: fetched into the roles' files, then the page's own computation.

use crate::analysis_view::report_view;
use crate::examples;
use crate::files::chosen;
use crate::glossary::term;
use crate::save_share::SaveAndShare;
use crate::worker_pool::AnalysisRun;
use crate::worker_pool::Computed;
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;
use tribunal::analysis::kind::Role;
use tribunal::analysis::Analysis;
use tribunal_app::stats_worker::RoleFile;

/// A page's bundled example: what it holds (with its source and licence) and, per role, the
/// file in `dist/examples/`.
pub struct Example {
    pub what: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

/// Role → the file chosen for it (name, bytes).
type Chosen = RwSignal<BTreeMap<String, (String, Vec<u8>)>>;

/// A kind's page: `id` is its section's id and its elements' prefix (`{id}-run`,
/// `{id}-example`, `{id}-file-<role>`, `{id}-error`, `{id}-share-link`, …); `analysis` is what the settings
/// (`children`) say, `on_example` sets them for the example.
#[component]
pub fn KindPage(
    id: &'static str,
    heading: &'static str,
    /// What the analysis answers and what its files hold.
    about: &'static str,
    /// The glossary entry of the analysis's method.
    method: &'static str,
    example: Example,
    analysis: Memo<Result<Analysis, String>>,
    on_example: Callback<()>,
    children: Children,
) -> impl IntoView {
    let run = AnalysisRun::spawn(1);
    let files: Chosen = RwSignal::new(BTreeMap::new());
    let compute = move || match analysis.get_untracked() {
        Ok(analysis) => match computed(analysis, &files.get_untracked()) {
            Ok(computed) => run.run(computed),
            Err(message) => run.fail(message),
        },
        Err(message) => run.fail(message),
    };
    let try_example = move || {
        on_example.run(());
        let wanted = example.files;
        spawn_local(async move {
            for (role, name) in wanted {
                match examples::fetch(name).await {
                    Ok(bytes) => files.update(|f| {
                        f.insert((*role).to_owned(), ((*name).to_owned(), bytes));
                    }),
                    Err(message) => return run.fail(message),
                }
            }
            compute();
        });
    };
    let example_button = NodeRef::<leptos::html::Button>::new();
    examples::when_requested(example_button, try_example);
    view! {
        <section id=id class="card">
            <h2>{heading}</h2>
            <p class="hint">{about} " " {term(method, "The method in plain words.")}</p>
            <p class="example">
                <button id=format!("{id}-example") class="example" node_ref=example_button on:click=move |_| try_example()>"Try it on an example"</button>
                " " {example.what}
            </p>
            <div class="controls">{children()}</div>
            <RoleFiles id analysis files />
            <div class="controls">
                <button id=format!("{id}-run") on:click=move |_| compute()>"Compute"</button>
            </div>
            {move || run.busy.get().then(|| view! { <p class="busy" role="status">"computing…"</p> })}
            {move || run.error.get().map(|m| view! { <div id=format!("{id}-error") class="error" role="alert">{m}</div> })}
            {move || run.report.get().map(|report| analysis.with_untracked(|a| match a {
                Ok(analysis) => report_view(analysis, report),
                Err(_) => ().into_any(),
            }))}
            <SaveAndShare computed=run.computed title=heading prefix=format!("{id}-") busy=run.busy />
        </section>
    }
}

/// The spec of `analysis` on the chosen `files`: every required role must have one.
fn computed(
    analysis: Analysis,
    files: &BTreeMap<String, (String, Vec<u8>)>,
) -> Result<Computed, String> {
    let mut given = Vec::new();
    for Role {
        name,
        kind,
        required,
    } in analysis.roles().iter()
    {
        match files.get(name) {
            Some((file, bytes)) => {
                given.push(RoleFile::new(name.clone(), file.clone(), bytes.clone()))
            }
            None if *required => {
                return Err(format!(
                    "choose the {} file ({}: {})",
                    name.replace('_', " "),
                    kind.as_str().replace('_', " "),
                    kind.layout()
                ))
            }
            None => {}
        }
    }
    Ok(Computed::new(analysis, given))
}

/// One file input per role the settings read, with the columns it expects and the file now
/// chosen (picked, or the example's).
#[component]
fn RoleFiles(
    id: &'static str,
    analysis: Memo<Result<Analysis, String>>,
    files: Chosen,
) -> impl IntoView {
    let roles = move || {
        analysis.with(|a| {
            a.as_ref()
                .map(|a| a.roles().iter().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
    };
    view! {
        <div class="controls">
            {move || roles().into_iter().map(|role| view! { <RoleFile id role files /> }).collect_view()}
        </div>
        {move || analysis.get().err().map(|m| view! { <div id=format!("{id}-settings-error") class="error" role="alert">{m}</div> })}
    }
}

/// A role's file input.
#[component]
fn RoleFile(id: &'static str, role: Role, files: Chosen) -> impl IntoView {
    let input = NodeRef::<Input>::new();
    let name = role.name.clone();
    let pick = move |_| {
        let name = name.clone();
        spawn_local(async move {
            if let Ok(Some(file)) = chosen(input.get_untracked().as_ref()).await {
                files.update(|f| {
                    f.insert(name, file);
                });
            }
        });
    };
    let shown = role.name.clone();
    let current = move || {
        files.with(|f| {
            f.get(&shown)
                .map(|(file, bytes)| format!("using {file} ({} bytes)", bytes.len()))
        })
    };
    let label = format!(
        "{} ({}{}: {}) ",
        role.name.replace('_', " "),
        role.kind.as_str().replace('_', " "),
        if role.required { "" } else { ", optional" },
        role.kind.layout()
    );
    view! {
        <label class="file">{label}
            <input id=format!("{id}-file-{}", role.name) type="file" accept=".csv,text/csv,.npy" node_ref=input on:change=pick />
        </label>
        {move || current().map(|c| view! { <span class="hint chosen-file">{c}</span> })}
    }
}
