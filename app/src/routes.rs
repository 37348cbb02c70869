//! Where the page is: the routes of the app. `/` is home; `/<task>` a task page (each with its
//! nav entry); `/s/<id>` a session and `/s/<id>/a/<analysis>` one of its saved analyses (an
//! `#owner=TOKEN` fragment is kept on this device and removed from the address bar); `/#share=…`
//! an analysis whose data travel in the link's fragment; any other path a not-found page with
//! the links that exist. The worker answers every path that names no file with the app, so
//! each route can be opened directly.

use crate::device::remember;
use leptos::prelude::*;

/// Where the page is.
pub enum Route {
    Home,
    /// `/<task>`: a task page.
    Task(Task),
    /// `/#share=…`: a fragment-shared analysis.
    Shared(String),
    Session(String),
    Analysis(String, String),
    /// Any other path: a page that says so, with the links that exist.
    NotFound(String),
}

/// The route of the current location. An `#owner=TOKEN` fragment on a session URL is stored
/// on this device and removed from the address bar.
pub fn route() -> Route {
    let location = window().location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    match parts.as_slice() {
        ["s", id] | ["s", id, "a", _] => {
            if let Some(token) = hash.strip_prefix("#owner=") {
                remember(id, None, Some(token.to_owned()));
                if let Ok(history) = window().history() {
                    let _ = history.replace_state_with_url(
                        &wasm_bindgen::JsValue::NULL,
                        "",
                        Some(&path),
                    );
                }
            }
            match parts.as_slice() {
                [_, _, _, analysis] => Route::Analysis((*id).to_owned(), (*analysis).to_owned()),
                _ => Route::Session((*id).to_owned()),
            }
        }
        [""] => shared_or_home(&hash),
        [segment] => {
            Task::of_path(segment).map_or_else(|| Route::NotFound(path.clone()), Route::Task)
        }
        _ => Route::NotFound(path.clone()),
    }
}

/// `/#share=…` or the home page.
fn shared_or_home(hash: &str) -> Route {
    match hash.strip_prefix("#share=") {
        Some(fragment) => Route::Shared(fragment.to_owned()),
        None => Route::Home,
    }
}

/// A task page: its own route (`/<path>`) and nav entry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Leaderboard,
    Style,
    LengthControl,
    Compare,
    Judge,
    Ppi,
    JudgeValue,
    SelfPreference,
    Transitivity,
    Cascade,
    Power,
    Reliability,
    Calibrate,
    Programs,
    Runs,
    Live,
    Glossary,
}

impl Task {
    pub const ALL: [Task; 17] = [
        Task::Leaderboard,
        Task::Style,
        Task::LengthControl,
        Task::Compare,
        Task::Power,
        Task::Judge,
        Task::Ppi,
        Task::JudgeValue,
        Task::SelfPreference,
        Task::Transitivity,
        Task::Cascade,
        Task::Reliability,
        Task::Calibrate,
        Task::Programs,
        Task::Runs,
        Task::Live,
        Task::Glossary,
    ];

    /// The route's path, without its slash.
    pub fn path(self) -> &'static str {
        match self {
            Task::Leaderboard => "leaderboard",
            Task::Style => "style",
            Task::LengthControl => "length-control",
            Task::Compare => "compare",
            Task::Power => "power",
            Task::Judge => "judge",
            Task::Ppi => "ppi",
            Task::JudgeValue => "judge-value",
            Task::SelfPreference => "self-preference",
            Task::Transitivity => "transitivity",
            Task::Cascade => "cascade",
            Task::Reliability => "reliability",
            Task::Calibrate => "calibrate",
            Task::Programs => "programs",
            Task::Runs => "runs",
            Task::Live => "live",
            Task::Glossary => "glossary",
        }
    }

    /// The nav entry.
    pub fn title(self) -> &'static str {
        match self {
            Task::Leaderboard => "Leaderboard",
            Task::Style => "Style control",
            Task::LengthControl => "Length control",
            Task::Compare => "Compare systems",
            Task::Power => "Items needed",
            Task::Judge => "Judge vs humans",
            Task::Ppi => "Few human labels (PPI)",
            Task::JudgeValue => "Judge's worth",
            Task::SelfPreference => "Self-preference",
            Task::Transitivity => "Transitivity",
            Task::Cascade => "Trust or escalate",
            Task::Reliability => "Agreement",
            Task::Calibrate => "Calibrate",
            Task::Programs => "Programs",
            Task::Runs => "Judge runs",
            Task::Live => "Live",
            Task::Glossary => "Glossary",
        }
    }

    /// The task of a path's first segment.
    pub fn of_path(segment: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.path() == segment)
    }
}
