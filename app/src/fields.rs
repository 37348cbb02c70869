//! Form fields the forms share: a text field and a number field bound to a signal, and the
//! column names and scale of a long-format ratings CSV.

use leptos::prelude::*;
use std::str::FromStr;
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
        }
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

    /// The three column fields.
    pub fn columns_view(self) -> impl IntoView {
        let id = move |name: &str| format!("{}-{name}", self.prefix);
        view! {
            {text_field(id("item"), "Item column", self.item)}
            {text_field(id("rater"), "Rater column", self.rater)}
            {text_field(id("score"), "Score column", self.score)}
        }
    }

    /// The scale selector.
    pub fn scale_view(self) -> impl IntoView {
        let nominal = self.nominal;
        view! {
            <label>"Scale "
                <select id=format!("{}-scale", self.prefix)
                    on:change=move |ev| nominal.set(event_target_value(&ev) == "nominal")>
                    <option value="numeric" selected=move || !nominal.get()>"numeric"</option>
                    <option value="nominal" selected=move || nominal.get()>"nominal"</option>
                </select>
            </label>
        }
    }
}
