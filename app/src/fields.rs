//! Form fields the forms share: a text field and a number field bound to a signal, and the
//! column names and scale of a long-format ratings CSV — picked from the chosen file's header,
//! with a preview of its first rows.

use crate::files::chosen;
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::str::FromStr;
use tribunal::io::csv_preview::{preview, Preview};
use tribunal::reliability::ratings::{Columns, RatingsParams, ScoreScale};

/// A labelled text input with id `id` that writes `value` on change.
pub fn text_field(id: String, label: &'static str, value: RwSignal<String>) -> impl IntoView {
    view! {
        <label>{label} " "
            <input id=id type="text" prop:value=move || value.get()
                on:change=move |ev| value.set(event_target_value(&ev)) />
        </label>
    }
}

/// The `min`, `max` and `step` attributes of a number field.
pub struct Bounds {
    pub min: &'static str,
    pub max: Option<&'static str>,
    pub step: &'static str,
}

impl Bounds {
    /// Whole numbers from `min` up, in steps of `step`.
    pub const fn from(min: &'static str, step: &'static str) -> Self {
        Self {
            min,
            max: None,
            step,
        }
    }
}

/// A labelled number input with id `id` that writes `value` on change; text that does not
/// read as a number leaves the value as it was (and shows it again).
pub fn number_field<T>(
    id: &'static str,
    label: &'static str,
    bounds: Bounds,
    value: RwSignal<T>,
) -> impl IntoView
where
    T: FromStr + ToString + Send + Sync + 'static,
{
    let change = move |ev| match event_target_value(&ev).trim().parse() {
        Ok(v) => value.set(v),
        Err(_) => value.update(|_| ()),
    };
    view! {
        <label>{label} " "
            <input id=id type="number" min=bounds.min max=bounds.max step=bounds.step
                prop:value=move || value.with(ToString::to_string) on:change=change />
        </label>
    }
}

/// The item, rater and score column names and the scale of a ratings form whose field ids
/// start with `prefix` (`{prefix}-item`, `{prefix}-rater`, `{prefix}-score`, `{prefix}-scale`).
#[derive(Clone, Copy)]
pub struct RatingsFields {
    prefix: &'static str,
    item: RwSignal<String>,
    rater: RwSignal<String>,
    score: RwSignal<String>,
    nominal: RwSignal<bool>,
    /// The chosen file's header and first rows.
    preview: RwSignal<Option<Preview>>,
}

impl RatingsFields {
    /// The default column names (`item`, `rater`, `score`) on the nominal or numeric scale.
    pub fn new(prefix: &'static str, nominal: bool) -> Self {
        Self {
            prefix,
            item: RwSignal::new("item".to_owned()),
            rater: RwSignal::new("rater".to_owned()),
            score: RwSignal::new("score".to_owned()),
            nominal: RwSignal::new(nominal),
            preview: RwSignal::new(None),
        }
    }

    /// Sets the column names and the scale.
    pub fn set(&self, item: &str, rater: &str, score: &str, nominal: bool) {
        self.item.set(item.to_owned());
        self.rater.set(rater.to_owned());
        self.score.set(score.to_owned());
        self.nominal.set(nominal);
    }

    /// Reads every field, so that an effect re-runs when one changes.
    pub fn track(&self) {
        self.item.track();
        self.rater.track();
        self.score.track();
        self.nominal.track();
    }

    /// The columns and the scale as they are now (not tracked).
    pub fn settings(&self) -> (Columns, RatingsParams) {
        let columns = Columns {
            item: self.item.get_untracked(),
            rater: self.rater.get_untracked(),
            score: self.score.get_untracked(),
            ..Columns::default()
        };
        let scale = RatingsParams {
            scale: if self.nominal.get_untracked() {
                ScoreScale::Nominal
            } else {
                ScoreScale::Numeric
            },
            categories: None,
        };
        (columns, scale)
    }

    /// Takes a chosen ratings file (name, bytes): shows its header and first rows, offers the
    /// header's names in the column fields, and replaces each column name the header lacks with
    /// its guess ([`Columns::guess`]: LLMFAO's and arena layouts are recognised).
    pub fn observe(&self, source: &str, bytes: &[u8]) {
        let Ok(shown) = preview(source, bytes, 3) else {
            return self.preview.set(None);
        };
        let guess = Columns::guess(&shown.header);
        for (field, guessed) in [
            (self.item, guess.item),
            (self.rater, guess.rater),
            (self.score, guess.score),
        ] {
            if !shown.header.contains(&field.get_untracked()) {
                field.set(guessed);
            }
        }
        self.preview.set(Some(shown));
    }

    /// Reads the file chosen in `input` and [`Self::observe`]s it.
    pub fn observe_chosen(self, input: NodeRef<Input>) {
        let Some(input) = input.get_untracked() else {
            return;
        };
        spawn_local(async move {
            if let Ok(Some((name, bytes))) = chosen(Some(&input)).await {
                self.observe(&name, &bytes);
            }
        });
    }

    /// The three column fields, offering the chosen file's header names, and the preview of
    /// its first rows.
    pub fn columns_view(self) -> impl IntoView {
        let id = move |name: &str| format!("{}-{name}", self.prefix);
        let list = id("header");
        let preview = self.preview;
        let names = move || {
            preview.with(|p| {
                p.iter()
                    .flat_map(|p| p.header.clone())
                    .map(|h| view! { <option value=h></option> })
                    .collect_view()
            })
        };
        view! {
            <datalist id=list.clone()>{names}</datalist>
            {column_field(id("item"), "Item column", self.item, list.clone())}
            {column_field(id("rater"), "Rater column", self.rater, list.clone())}
            {column_field(id("score"), "Score column", self.score, list)}
            {move || preview.get().map(|p| view! { <PreviewTable id=id("preview") preview=p /> })}
        }
    }

    /// The scale selector.
    pub fn scale_view(self) -> impl IntoView {
        let nominal = self.nominal;
        view! {
            <label>"Scale "
                <select id=format!("{}-scale", self.prefix)
                    on:change=move |ev| nominal.set(event_target_value(&ev) == "nominal")>
                    <option value="numeric" prop:selected=move || !nominal.get()>"numeric"</option>
                    <option value="nominal" prop:selected=move || nominal.get()>"nominal"</option>
                </select>
            </label>
        }
    }
}

/// A column-name field that offers the names of the datalist `list`.
fn column_field(
    id: String,
    label: &'static str,
    value: RwSignal<String>,
    list: String,
) -> impl IntoView {
    view! {
        <label>{label} " "
            <input id=id type="text" list=list prop:value=move || value.get()
                on:change=move |ev| value.set(event_target_value(&ev)) />
        </label>
    }
}

/// A file's header and first rows.
#[component]
fn PreviewTable(id: String, preview: Preview) -> impl IntoView {
    let header = preview
        .header
        .into_iter()
        .map(|h| view! { <th scope="col">{h}</th> })
        .collect_view();
    let rows = preview
        .rows
        .into_iter()
        .map(|row| {
            let cells = row
                .into_iter()
                .map(|c| view! { <td>{c.chars().take(40).collect::<String>()}</td> })
                .collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table tabindex="0" class="ratings preview" id=id>
            <caption>"The file's first rows"</caption>
            <thead><tr>{header}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// A note under a form whose report is on screen (`shown`): once a setting that `track` reads
/// changes, the report no longer matches the form, and the note says so until the next
/// computation starts (`busy`).
#[component]
pub fn StaleNote(
    id: &'static str,
    #[prop(into)] shown: Signal<bool>,
    #[prop(into)] busy: Signal<bool>,
    track: impl Fn() + Send + Sync + 'static,
) -> impl IntoView {
    let stale = RwSignal::new(false);
    Effect::watch(
        track,
        move |_, _, _| {
            if shown.get_untracked() {
                stale.set(true);
            }
        },
        false,
    );
    Effect::new(move |_| {
        if busy.get() {
            stale.set(false);
        }
    });
    move || {
        stale.get().then(|| {
            view! {
                <p class="stale" id=id role="status">
                    "The settings changed since the report below was computed: compute again to update it."
                </p>
            }
        })
    }
}
