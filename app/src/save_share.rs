//! The two ways an analysis leaves the page ([`SaveAndShare`]): a link that carries its spec and
//! files in the fragment (a bundled example by name; compressed in the link worker), or a saved analysis in a session this
//! device owns — one it creates when it has none (its files uploaded as the session's
//! datasets, then the spec). A link too long for its data falls back, on one click, to a
//! session's link. Both reopen in
//! the analysis view (`/s/<id>/a/<analysis>`, `/#share=…`) with the same numbers.

use crate::api;
use crate::device::{go, origin, owned_sessions, remember};
use crate::examples;
use crate::worker_pool::Computed;
use gloo_worker::WorkerBridge;
use leptos::prelude::*;
use leptos::task::spawn_local;
use tribunal::sessions::session::MAX_NAME_CHARS;
use tribunal_app::link_worker::{spawn_link_worker, LinkJob, LinkWorker};

/// Saves `c` as `title` in the owned session `id` — or, when `id` is empty or not owned here,
/// in a new session named `title` that this device then owns — uploading its files as the
/// session's datasets. Returns the saved analysis's path (`/s/<id>/a/<analysis>`).
async fn save_in_session(c: Computed, id: String, title: String) -> Result<String, String> {
    let owned = owned_sessions().into_iter().find(|s| s.0 == id);
    let (id, token) = match owned {
        Some((id, _, token)) => (id, token),
        None => {
            let created = api::create_session(&title).await?;
            remember(
                &created.id,
                Some(title.clone()),
                Some(created.owner_token.clone()),
            );
            (created.id, created.owner_token)
        }
    };
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
    let saved = api::add_analysis(&id, &token, &title, &c.spec).await?;
    Ok(format!("/s/{id}/a/{}", saved.id))
}

/// How a share went: the link being made, a link (carrying the data, or a session's), or why
/// not.
#[derive(Clone)]
enum Shared {
    Making,
    Fragment(String),
    TooLong(String),
    Session(String),
    Failed(String),
}

/// "Share as a link" and "Save to session" for what a page computed last (`computed`); the
/// elements' ids start with `prefix` (`{prefix}share-link`, `{prefix}share-url`,
/// `{prefix}share-size`, `{prefix}share-session`, `{prefix}save-session`, `{prefix}save-title`,
/// `{prefix}save`). A link too long to carry its data offers to share through a session
/// instead; saving with no session of this device's creates one named after the analysis.
/// While the page computes something new (`busy`), the buttons are disabled: the result on
/// screen is about to go.
#[component]
pub fn SaveAndShare(
    computed: RwSignal<Option<Computed>>,
    #[prop(into)] title: String,
    #[prop(optional, into)] prefix: String,
    #[prop(optional, into)] busy: Signal<bool>,
) -> impl IntoView {
    let link = RwSignal::new(None::<Shared>);
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
    // The worker that compresses links, started on the first "Share as a link". It answers in
    // order: an answer is shown only when it is the answer to the last job sent, and that job
    // was sent for the result on screen (`stale`: the jobs sent before it changed).
    let encoder = StoredValue::new_local(None::<WorkerBridge<LinkWorker>>);
    let (sent, answered, stale) = (
        StoredValue::new(0_u64),
        StoredValue::new(0_u64),
        StoredValue::new(0_u64),
    );
    Effect::new(move |_| {
        computed.track();
        stale.set_value(sent.get_value());
    });
    let share = move |_| {
        let Some(c) = computed.get_untracked() else {
            return;
        };
        if encoder.with_value(Option::is_none) {
            let bridge = spawn_link_worker(move |result| {
                answered.try_update_value(|n| *n += 1);
                let current = answered.try_get_value();
                if current == sent.try_get_value() && current > stale.try_get_value() {
                    link.set(Some(match result {
                        Ok(fragment) => Shared::Fragment(format!("{}/#share={fragment}", origin())),
                        Err(message) => Shared::TooLong(message),
                    }));
                }
            });
            encoder.set_value(Some(bridge));
        }
        link.set(Some(Shared::Making));
        let job = LinkJob {
            spec: c.spec,
            files: c.files,
            bundled: examples::bundled(),
        };
        sent.update_value(|n| *n += 1);
        encoder.with_value(|bridge| {
            if let Some(bridge) = bridge {
                bridge.send(job);
            }
        });
    };
    let share_through_session = move |_| {
        let Some(c) = computed.get_untracked() else {
            return;
        };
        let (id, title) = (session.get_untracked(), title.get_untracked());
        saving.set(Some(Ok("saving in a session on this worker…".to_owned())));
        spawn_local(async move {
            match save_in_session(c, id, title).await {
                Ok(path) => {
                    saving.set(None);
                    link.set(Some(Shared::Session(format!("{}{path}", origin()))));
                }
                Err(message) => link.set(Some(Shared::Failed(message))),
            }
        });
    };
    let save = move |_| {
        let Some(c) = computed.get_untracked() else {
            return;
        };
        let (id, title) = (session.get_untracked(), title.get_untracked());
        let message = if id.is_empty() {
            format!("saving in a new session “{title}” on this worker (listed on the home page)…")
        } else {
            "saving…".to_owned()
        };
        saving.set(Some(Ok(message)));
        spawn_local(async move {
            match save_in_session(c, id, title).await {
                Ok(path) => go(&path),
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
    let prefix = StoredValue::new(prefix);
    let id = move |name: &str| prefix.with_value(|p| format!("{p}{name}"));
    view! {
        <Show when=move || computed.with(Option::is_some)>
            <p class="controls">
                <button id=id("share-link") on:click=share disabled=move || busy.get()>"Share as a link (data in the link, not uploaded)"</button>
                <label>"Session "
                    <select id=id("save-session") on:change=move |ev| session.set(event_target_value(&ev))>
                        {options}
                        <option value="">"a new session"</option>
                    </select>
                </label>
                <label>"Title " <input id=id("save-title") type="text" maxlength=MAX_NAME_CHARS prop:value=move || title.get()
                    on:change=move |ev| title.set(event_target_value(&ev)) /></label>
                <button id=id("save") on:click=save disabled=move || busy.get()>"Save to session"</button>
            </p>
        </Show>
        {move || link.get().map(|l| match l {
            Shared::Making => view! { <p class="busy" role="status">"making the link…"</p> }.into_any(),
            Shared::Fragment(url) | Shared::Session(url) => {
                let held = if url.contains("#share=") {
                    "the data travel in it and no server sees them"
                } else {
                    "the data are stored in a session on this worker, readable by whoever has the link"
                };
                view! {
                    <p class="share">
                        <label>"Link: " <input id=id("share-url") type="text" readonly prop:value=url.clone() /></label>
                        " " <span id=id("share-size") class="hint">{format!("{} characters; {held}", url.len())}</span>
                    </p>
                }.into_any()
            }
            Shared::TooLong(message) => view! {
                <div id=id("share-error") class="warning" role="status">
                    {message} " "
                    <button id=id("share-session") on:click=share_through_session disabled=move || busy.get()>"Share through a session instead (uploads the data to this worker)"</button>
                </div>
            }.into_any(),
            Shared::Failed(message) => view! { <div id=id("share-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
        {move || saving.get().map(|s| match s {
            Ok(message) => view! { <p class="busy" role="status">{message}</p> }.into_any(),
            Err(message) => view! { <div id=id("save-error") class="error" role="alert">{message}</div> }.into_any(),
        })}
    }
}
