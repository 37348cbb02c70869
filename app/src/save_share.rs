//! The two ways an analysis leaves the page ([`SaveAndShare`]): a link that carries its spec and
//! files in the fragment, or a saved analysis in a session this device owns (its files
//! uploaded as the session's datasets, then the spec). Both reopen in
//! the analysis view (`/s/<id>/a/<analysis>`, `/#share=…`) with the same numbers.

use crate::api;
use crate::device::{go, origin, owned_sessions};
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::analysis::Spec;
use tribunal::sessions::session::MAX_NAME_CHARS;
use tribunal::sessions::share_link::{encode, SharedAnalysis};
use tribunal_app::stats_worker::RoleFile;

/// A spec and its files, as a page last computed them.
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    pub spec: Spec,
    pub files: Vec<RoleFile>,
}

/// The link that carries `spec` and its files in its fragment.
fn fragment_link(spec: &Spec, files: &[RoleFile]) -> Result<String, String> {
    let shared = SharedAnalysis {
        spec: spec.clone(),
        inputs: RoleFile::inputs(files),
    };
    encode(&shared)
        .map(|fragment| format!("{}/#share={fragment}", origin()))
        .map_err(|e| e.to_string())
}

/// "Share as a link" and "Save to session" for what a page computed last (`computed`); the
/// elements' ids start with `prefix` (`{prefix}share-link`, `{prefix}share-url`,
/// `{prefix}save-session`, `{prefix}save-title`, `{prefix}save`). While the page computes
/// something new (`busy`), both buttons are disabled: the result on screen is about to go.
#[component]
pub fn SaveAndShare(
    computed: RwSignal<Option<Computed>>,
    #[prop(into)] title: String,
    #[prop(default = "")] prefix: &'static str,
    #[prop(optional, into)] busy: Signal<bool>,
) -> impl IntoView {
    let link = RwSignal::new(None::<Result<String, String>>);
    let saving = RwSignal::new(None::<Result<String, String>>);
    let sessions = StoredValue::new(owned_sessions());
    let session =
        RwSignal::new(sessions.with_value(|s| s.first().map(|s| s.0.clone()).unwrap_or_default()));
    let title = RwSignal::new(title);
    // A new result makes the old link and save message stale.
    Effect::new(move |_| {
        computed.track();
        link.set(None);
        saving.set(None);
    });
    let share = move |_| {
        if let Some(c) = computed.get_untracked() {
            link.set(Some(fragment_link(&c.spec, &c.files)));
        }
    };
    let save = move |_| {
        let Some(c) = computed.get_untracked() else {
            return;
        };
        let id = session.get_untracked();
        let token = owned_sessions()
            .into_iter()
            .find(|s| s.0 == id)
            .map(|s| s.2);
        let Some(token) = token else {
            return saving.set(Some(Err(
                "start a session (Sessions, above) to save analyses in it".to_owned(),
            )));
        };
        let title = title.get_untracked();
        saving.set(Some(Ok("saving…".to_owned())));
        spawn_local(async move {
            let outcome = async {
                for file in &c.files {
                    let kind = c.spec.analysis.roles().kind_of(&file.role).ok_or_else(|| {
                        format!(
                            "the role `{}` is not read by {}",
                            file.role,
                            c.spec.analysis.name()
                        )
                    })?;
                    api::add_dataset(&id, &token, kind, &file.name, file.bytes()).await?;
                }
                api::add_analysis(&id, &token, &title, &c.spec).await
            };
            match outcome.await {
                Ok(saved) => go(&format!("/s/{id}/a/{}", saved.id)),
                Err(message) => saving.set(Some(Err(message))),
            }
        });
    };
    let options = move || {
        sessions.with_value(|list| {
            list.iter()
                .map(|(id, title, _)| {
                    let label = if title.is_empty() {
                        id.clone()
                    } else {
                        title.clone()
                    };
                    view! { <option value=id.clone()>{label}</option> }
                })
                .collect_view()
        })
    };
    let id = move |name: &str| format!("{prefix}{name}");
    view! {
        <Show when=move || computed.with(Option::is_some)>
            <p class="controls">
                <button id=id("share-link") on:click=share disabled=move || busy.get()>"Share as a link (data in the link, not uploaded)"</button>
                <label>"Session "
                    <select id=id("save-session") on:change=move |ev| session.set(event_target_value(&ev))>{options}</select>
                </label>
                <label>"Title " <input id=id("save-title") type="text" maxlength=MAX_NAME_CHARS prop:value=move || title.get()
                    on:change=move |ev| title.set(event_target_value(&ev)) /></label>
                <button id=id("save") on:click=save disabled=move || busy.get()>"Save to session"</button>
            </p>
        </Show>
        {move || link.get().map(|l| match l {
            Ok(url) => view! { <p class="share"><label>"Link: " <input id=id("share-url") type="text" readonly prop:value=url /></label></p> }.into_any(),
            Err(message) => view! { <div id=id("share-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
        {move || saving.get().map(|s| match s {
            Ok(message) => view! { <p class="busy" role="status">{message}</p> }.into_any(),
            Err(message) => view! { <div id=id("save-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
    }
}
