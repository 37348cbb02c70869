//! The session owner's form for a new analysis of the session's datasets ([`NewAnalysis`]):
//! any kind, every setting (the spec's JSON, starting from the kind's defaults in
//! [`Analysis::each_kind`]), and a dataset of the session for each role those settings read —
//! a judge run's battles beside the humans' for a study, calibration files with their
//! embeddings, ratings for agreement. Saving stores the spec and opens it
//! (`/s/<id>/a/<analysis>`), where this browser computes it as any visitor's would.

use crate::api;
use crate::device::go;
use crate::format::words;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;
use tribunal::analysis::kind::Role;
use tribunal::analysis::{Analysis, InputRef, Spec, SPEC_VERSION};
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::sessions::session::{DatasetMeta, SessionView, MAX_NAME_CHARS};

type Loaded = RwSignal<Option<Result<SessionView, String>>>;

/// The settings as the form shows them: the analysis's JSON, indented.
fn pretty(analysis: &Analysis) -> String {
    serde_json::to_string_pretty(analysis).unwrap_or_default()
}

/// The edited settings read back, with the line and column of a syntax error or the setting
/// out of range.
fn read_settings(text: &str) -> Result<Analysis, String> {
    let analysis: Analysis = serde_json::from_str(text)
        .map_err(|e| format!("settings, line {}, column {}: {e}", e.line(), e.column()))?;
    analysis.validate().map_err(|e| format!("settings: {e}"))?;
    Ok(analysis)
}

/// The loaded session's datasets of `kind` (none while it loads or after an error).
pub fn datasets_of(
    session: &Option<Result<SessionView, String>>,
    kind: DatasetKind,
) -> Vec<DatasetMeta> {
    session
        .as_ref()
        .and_then(|s| s.as_ref().ok())
        .map(|s| {
            s.datasets
                .iter()
                .filter(|d| d.kind == kind)
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// The dataset of each role: the one picked, else for a required role the first of its kind.
fn inputs_of(
    analysis: &Analysis,
    session: &Option<Result<SessionView, String>>,
    picked: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, InputRef>, String> {
    let mut inputs = BTreeMap::new();
    for Role {
        name: role,
        kind,
        required,
    } in analysis.roles().iter()
    {
        let candidates = datasets_of(session, *kind);
        let chosen = match picked.get(role) {
            Some(hash) => candidates.iter().find(|d| &d.hash == hash),
            None if *required => candidates.first(),
            None => None,
        };
        match chosen {
            Some(d) => {
                let input = InputRef {
                    hash: d.hash.clone(),
                    name: d.name.clone(),
                };
                inputs.insert(role.clone(), input);
            }
            None if *required => {
                return Err(format!(
                    "the role `{role}` reads a {} dataset: add one to the session first",
                    kind.as_str()
                ))
            }
            None => {}
        }
    }
    Ok(inputs)
}

/// New analysis: title, kind, settings, a dataset per role, "Save and open".
#[component]
pub fn NewAnalysis(
    id: String,
    token: String,
    session: Loaded,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let kinds = StoredValue::new(Analysis::each_kind());
    let title = RwSignal::new("Leaderboard".to_owned());
    let settings = RwSignal::new(kinds.with_value(|k| pretty(&k[0])));
    let picked = RwSignal::new(BTreeMap::<String, String>::new());
    let analysis = Memo::new(move |_| settings.with(|s| read_settings(s)));
    let choose_kind = move |ev| {
        let name = event_target_value(&ev);
        if let Some(kind) = kinds.with_value(|k| k.iter().find(|a| a.name() == name).cloned()) {
            settings.set(pretty(&kind));
            title.set(capitalised(&words(&name)));
            picked.set(BTreeMap::new());
        }
    };
    let save = move |_| {
        let built = analysis.get_untracked().and_then(|analysis| {
            let inputs = session
                .with_untracked(|s| picked.with_untracked(|p| inputs_of(&analysis, s, p)))?;
            Ok(Spec {
                version: SPEC_VERSION,
                analysis,
                inputs,
            })
        });
        let spec = match built {
            Ok(spec) => spec,
            Err(message) => return error.set(Some(message)),
        };
        let (id, token, title) = (id.clone(), token.clone(), title.get_untracked());
        spawn_local(async move {
            match api::add_analysis(&id, &token, &title, &spec).await {
                Ok(a) => go(&format!("/s/{id}/a/{}", a.id)),
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let options = kinds.with_value(|k| {
        k.iter()
            .map(|a| view! { <option value=a.name()>{words(&a.name())}</option> })
            .collect_view()
    });
    view! {
        <h3>"New analysis of this session's data"</h3>
        <p class="hint">"Pick a kind, edit its settings (every setting of the spec, with its defaults), and a dataset for each file it reads; it is saved, then computed in your browser as a visitor's would be."</p>
        <div class="controls">
            <label>"Kind " <select id="analysis-kind" on:change=choose_kind>{options}</select></label>
            <label>"Title " <input id="analysis-title" type="text" maxlength=MAX_NAME_CHARS prop:value=move || title.get()
                on:change=move |ev| title.set(event_target_value(&ev)) /></label>
        </div>
        <label class="block">"Settings"
            <textarea id="analysis-settings" class="code" rows="12" prop:value=move || settings.get()
                on:input=move |ev| settings.set(event_target_value(&ev))></textarea>
        </label>
        {move || analysis.get().err().map(|m| view! { <div id="analysis-settings-error" class="error" role="alert">{m}</div> })}
        <RoleInputs analysis session picked />
        <button id="save-analysis" on:click=save>"Save and open"</button>
    }
}

/// `words` with a capital first letter, for a default title.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// One select per role of the current settings, listing the session's datasets of the kind
/// that role reads (an optional role may stay empty).
#[component]
fn RoleInputs(
    analysis: Memo<Result<Analysis, String>>,
    session: Loaded,
    picked: RwSignal<BTreeMap<String, String>>,
) -> impl IntoView {
    let rows = move || {
        let Ok(analysis) = analysis.get() else {
            return Vec::new();
        };
        analysis
            .roles()
            .iter()
            .map(
                |Role {
                     name,
                     kind,
                     required,
                 }| {
                    let datasets = session.with(|s| datasets_of(s, *kind));
                    (name.clone(), *required, *kind, datasets)
                },
            )
            .collect()
    };
    view! {
        <div class="controls" id="analysis-inputs">
            {move || rows().into_iter().map(|(role, required, kind, datasets)| {
                let current = picked.with(|p| p.get(&role).cloned());
                let options = datasets.into_iter().map(|d| {
                    let selected = current.as_deref() == Some(d.hash.as_str());
                    view! { <option value=d.hash.clone() selected=selected>{d.name.clone()}</option> }
                }).collect_view();
                let label = format!("{role} ({}{}) ", kind.as_str(), if required { "" } else { ", optional" });
                let choose = {
                    let role = role.clone();
                    move |ev| {
                        let hash = event_target_value(&ev);
                        picked.update(|p| {
                            if hash.is_empty() { p.remove(&role); } else { p.insert(role.clone(), hash); }
                        });
                    }
                };
                view! {
                    <label>{label}
                        <select class="analysis-input" data-role=role.clone() on:change=choose>
                            {(!required).then(|| view! { <option value="">"(none)"</option> })}
                            {options}
                        </select>
                    </label>
                }
            }).collect_view()}
        </div>
    }
}
