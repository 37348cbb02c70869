//! What this device remembers and where it goes: the sessions it has opened (local storage,
//! with the owner token of those it owns) and navigation.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// The local-storage key of the recent sessions list.
const RECENT_KEY: &str = "tribunal.sessions";

/// A session this device has opened.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Recent {
    pub id: String,
    pub title: String,
    /// Present when this device owns the session.
    pub owner_token: Option<String>,
}

pub(crate) fn recent() -> Vec<Recent> {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(RECENT_KEY).ok().flatten())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Records a visit (most recent first), keeping a known title and token unless new ones come.
pub(crate) fn remember(id: &str, title: Option<String>, token: Option<String>) {
    let mut list = recent();
    let old = list.iter().position(|r| r.id == id).map(|k| list.remove(k));
    let entry = Recent {
        id: id.to_owned(),
        title: title
            .or_else(|| old.as_ref().map(|r| r.title.clone()))
            .unwrap_or_default(),
        owner_token: token.or_else(|| old.and_then(|r| r.owner_token)),
    };
    list.insert(0, entry);
    list.truncate(20);
    keep(&list);
}

/// Writes the list of sessions this device opened.
fn keep(list: &[Recent]) {
    if let (Some(storage), Ok(text)) = (
        window().local_storage().ok().flatten(),
        serde_json::to_string(list),
    ) {
        let _ = storage.set_item(RECENT_KEY, &text);
    }
}

/// Forgets session `id` (deleted by its owner).
pub(crate) fn forget(id: &str) {
    let list: Vec<Recent> = recent().into_iter().filter(|r| r.id != id).collect();
    keep(&list);
}

pub(crate) fn owner_token(id: &str) -> Option<String> {
    recent()
        .into_iter()
        .find(|r| r.id == id)
        .and_then(|r| r.owner_token)
}

pub(crate) fn origin() -> String {
    window().location().origin().unwrap_or_default()
}

pub(crate) fn go(path: &str) {
    let _ = window().location().set_href(path);
}

/// The sessions this device owns: (id, title, owner token).
pub(crate) fn owned_sessions() -> Vec<(String, String, String)> {
    recent()
        .into_iter()
        .filter_map(|r| Some((r.id, r.title, r.owner_token?)))
        .collect()
}
