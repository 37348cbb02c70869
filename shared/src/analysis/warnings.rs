//! A report's warnings, read from its types: each result that can warn lists its own and its
//! parts' warnings with where they were raised, so a front end (the CLI's stderr, a page) shows
//! them without knowing the report's layout or walking its JSON.

/// A warning and where it was raised: the path of the part that holds it as the report's JSON
/// spells it (`""` for the report itself; `human`, `cells[2].report`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub place: String,
    pub text: String,
}

impl Warning {
    /// The warning as a line of text: `PLACE: TEXT`, or `TEXT` at the top.
    pub fn line(&self) -> String {
        if self.place.is_empty() {
            self.text.clone()
        } else {
            format!("{}: {}", self.place, self.text)
        }
    }
}

/// The lines to show for a report's warnings: the top level's first, then each nested one unless
/// a line already shown says it (reports that gather their parts' warnings at the top keep the
/// parts' copies too). What `tribunal stats` prints on stderr and the Python package warns.
pub fn lines(warnings: &[Warning]) -> Vec<String> {
    let (top, nested): (Vec<&Warning>, Vec<&Warning>) =
        warnings.iter().partition(|w| w.place.is_empty());
    let mut shown: Vec<String> = Vec::new();
    for warning in top.into_iter().chain(nested) {
        if !shown.iter().any(|line| line.contains(&warning.text)) {
            shown.push(warning.line());
        }
    }
    shown
}

/// A result whose parts may carry warnings (every analysis report is one).
pub trait Warned {
    /// Every warning of this result and of its parts: its own first, then each part's in the
    /// order of its fields.
    fn warnings(&self) -> Vec<Warning>;
}

/// The warnings of a result with `own` warnings and these parts (each with its place under the
/// result; `""` for a part whose fields the JSON flattens into the result's).
pub fn gather<'a>(
    own: &[String],
    parts: impl IntoIterator<Item = (String, &'a dyn Warned)>,
) -> Vec<Warning> {
    let mut all: Vec<Warning> = own
        .iter()
        .map(|text| Warning {
            place: String::new(),
            text: text.clone(),
        })
        .collect();
    for (place, part) in parts {
        all.extend(part.warnings().into_iter().map(|w| Warning {
            place: match (place.is_empty(), w.place.is_empty()) {
                (_, true) => place.clone(),
                (true, false) => w.place,
                (false, false) => format!("{place}.{}", w.place),
            },
            text: w.text,
        }));
    }
    all
}

/// The places and parts of a list field `name`: `name[0]`, `name[1]`, …
pub fn each<'a, T: Warned>(
    name: &'a str,
    parts: &'a [T],
) -> impl Iterator<Item = (String, &'a dyn Warned)> + 'a {
    parts
        .iter()
        .enumerate()
        .map(move |(i, part)| (format!("{name}[{i}]"), part as &dyn Warned))
}

/// The place and part of an optional field `name`, when present.
pub fn some<'a, T: Warned>(name: &str, part: &'a Option<T>) -> Option<(String, &'a dyn Warned)> {
    part.as_ref().map(|p| (name.to_owned(), p as &dyn Warned))
}

/// [`Warned`] for a result whose only warnings are its own `warnings` field.
macro_rules! own_warnings {
    ($($ty:ty),+ $(,)?) => {
        $(impl $crate::analysis::warnings::Warned for $ty {
            fn warnings(&self) -> Vec<$crate::analysis::warnings::Warning> {
                $crate::analysis::warnings::gather(&self.warnings, [])
            }
        })+
    };
}
pub(crate) use own_warnings;

/// [`Warned`] for a result whose only warnings are those of one part, its field `$field`.
macro_rules! part_warnings {
    ($($ty:ty => $field:ident),+ $(,)?) => {
        $(impl $crate::analysis::warnings::Warned for $ty {
            fn warnings(&self) -> Vec<$crate::analysis::warnings::Warning> {
                let part = &self.$field as &dyn $crate::analysis::warnings::Warned;
                $crate::analysis::warnings::gather(&[], [(stringify!($field).to_owned(), part)])
            }
        })+
    };
}
pub(crate) use part_warnings;

#[cfg(test)]
mod tests {
    use super::*;

    struct Leaf(Vec<String>);
    impl Warned for Leaf {
        fn warnings(&self) -> Vec<Warning> {
            gather(&self.0, [])
        }
    }
    struct Tree {
        own: Vec<String>,
        flat: Leaf,
        list: Vec<Leaf>,
        maybe: Option<Leaf>,
    }
    impl Warned for Tree {
        fn warnings(&self) -> Vec<Warning> {
            let parts = [(String::new(), &self.flat as &dyn Warned)]
                .into_iter()
                .chain(each("list", &self.list))
                .chain(some("maybe", &self.maybe));
            gather(&self.own, parts)
        }
    }

    #[test]
    fn places_follow_the_json_paths_of_the_parts() {
        let tree = Tree {
            own: vec!["top".into()],
            flat: Leaf(vec!["flattened".into()]),
            list: vec![Leaf(vec![]), Leaf(vec!["second".into()])],
            maybe: Some(Leaf(vec!["optional".into()])),
        };
        let lines: Vec<String> = tree.warnings().iter().map(Warning::line).collect();
        assert_eq!(
            lines,
            ["top", "flattened", "list[1]: second", "maybe: optional"]
        );
        let nested = Tree {
            own: vec![],
            flat: Leaf(vec![]),
            list: vec![],
            maybe: None,
        };
        assert!(nested.warnings().is_empty());
    }
}
