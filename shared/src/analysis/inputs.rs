//! The files an analysis reads, by role: [`Inputs`] carry the bytes, a [`Spec`](super::Spec)
//! keeps an [`InputRef`] (content hash and name) of each.

use crate::io::error::{Error, Result};
use crate::io::provenance::content_hash;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A file as a spec names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputRef {
    /// [`content_hash`] of the bytes.
    pub hash: String,
    /// The file's name when the spec was made: the report names the file so (and a file
    /// without a rater column names its rater after it), whatever a rerun's copy is called.
    pub name: String,
}

/// A file's name (for located errors) and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
    /// The bytes' [`content_hash`] when the caller has it already ([`Inputs::insert_hashed`]).
    hash: Option<String>,
}

impl Input {
    /// [`content_hash`] of the bytes: the one given with them, or computed now.
    fn hash(&self) -> String {
        self.hash
            .clone()
            .unwrap_or_else(|| content_hash(&self.bytes))
    }
}

/// The files of one run of an analysis: role → file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    files: BTreeMap<String, Input>,
}

impl Inputs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the file `name` with `bytes` in `role` (replacing one already there).
    pub fn insert(&mut self, role: impl Into<String>, name: impl Into<String>, bytes: Vec<u8>) {
        self.files.insert(
            role.into(),
            Input {
                name: name.into(),
                bytes,
                hash: None,
            },
        );
    }

    /// Adds the file `name` with `bytes` in `role`, whose [`content_hash`] the caller computed
    /// already from these very bytes (a page hashes its upload with the browser's own SHA-256,
    /// then sends the file to a web worker that would otherwise hash it again to check it).
    pub fn insert_hashed(
        &mut self,
        role: impl Into<String>,
        name: impl Into<String>,
        bytes: Vec<u8>,
        hash: String,
    ) {
        self.files.insert(
            role.into(),
            Input {
                name: name.into(),
                bytes,
                hash: Some(hash),
            },
        );
    }

    /// The roles given, in order.
    pub fn roles(&self) -> impl Iterator<Item = &String> + Clone {
        self.files.keys()
    }

    /// Each file's content hash and name, by role.
    pub fn refs(&self) -> BTreeMap<String, InputRef> {
        self.files
            .iter()
            .map(|(role, input)| {
                let reference = InputRef {
                    hash: input.hash(),
                    name: input.name.clone(),
                };
                (role.clone(), reference)
            })
            .collect()
    }

    /// The roles are `spec`'s and each file's content hash is the one `spec` names.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the first role missing, extra or with other content.
    pub fn check_against(&self, spec: &BTreeMap<String, InputRef>) -> Result<()> {
        for (role, expected) in spec {
            let input = self.files.get(role).ok_or_else(|| {
                Error::param(
                    "inputs",
                    format!(
                        "the spec reads `{}` in the role `{role}`; no file was given in it",
                        expected.name
                    ),
                )
            })?;
            let found = input.hash();
            if found != expected.hash {
                return Err(Error::param(
                    "inputs",
                    format!(
                        "role `{role}`: `{}` is not the file the spec was made on (its content \
                         is {found}; the spec's `{}` is {})",
                        input.name, expected.name, expected.hash
                    ),
                ));
            }
        }
        if let Some(extra) = self.files.keys().find(|role| !spec.contains_key(*role)) {
            return Err(Error::param(
                "inputs",
                format!(
                    "a file was given in the role `{extra}`, which the spec does not read \
                     (it reads {})",
                    spec.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The file in `role`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when there is none.
    pub fn get(&self, role: &str) -> Result<&Input> {
        self.files
            .get(role)
            .ok_or_else(|| Error::param("inputs", format!("no file in the role `{role}`")))
    }

    /// The file in `role`, if any.
    pub fn optional(&self, role: &str) -> Option<&Input> {
        self.files.get(role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_given_with_its_hash_is_named_and_checked_by_that_hash() {
        let bytes = b"model_a,model_b,winner\nx,y,model_a\n".to_vec();
        let mut hashed = Inputs::new();
        hashed.insert_hashed("battles", "a.csv", bytes.clone(), content_hash(&bytes));
        let mut plain = Inputs::new();
        plain.insert("battles", "a.csv", bytes.clone());
        assert_eq!(hashed.refs(), plain.refs());
        assert!(hashed.check_against(&plain.refs()).is_ok());
        // The given hash is taken as it is (the caller computed it from these bytes): a wrong
        // one names the file wrongly, and the check against the true spec says so.
        let mut wrong = Inputs::new();
        wrong.insert_hashed("battles", "a.csv", bytes, content_hash(b"other"));
        let message = wrong.check_against(&plain.refs()).unwrap_err().to_string();
        assert!(
            message.contains("is not the file the spec was made on"),
            "{message}"
        );
    }

    #[test]
    fn a_file_with_other_content_or_a_missing_role_is_refused() {
        let mut inputs = Inputs::new();
        inputs.insert("battles", "a.csv", b"model_a,model_b,winner\n".to_vec());
        let refs = inputs.refs();
        assert!(inputs.check_against(&refs).is_ok());
        let mut other = Inputs::new();
        other.insert(
            "battles",
            "b.csv",
            b"model_a,model_b,winner\nx,y,model_a\n".to_vec(),
        );
        let message = other.check_against(&refs).unwrap_err().to_string();
        assert!(
            message.contains("role `battles`") && message.contains("a.csv"),
            "{message}"
        );
        let message = Inputs::new().check_against(&refs).unwrap_err().to_string();
        assert!(message.contains("no file was given"), "{message}");
        let mut extra = inputs.clone();
        extra.insert("judge", "j.csv", Vec::new());
        let message = extra.check_against(&refs).unwrap_err().to_string();
        assert!(message.contains("`judge`"), "{message}");
    }
}
