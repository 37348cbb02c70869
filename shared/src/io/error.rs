//! Errors shared by every statistic and parser in the crate.
//!
//! Input errors carry a [`Location`] (source name, line, column, field) and say what was
//! expected and what was found, so a caller can show them to a person unchanged.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where in an input a problem was found. Lines and columns are 1-based, as an editor shows
/// them; a CSV column is the field's position in its record. A binary input (an embedding
/// array) is located by its 0-based byte offset instead of a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The input's name: a file path, an uploaded file's name, or `<stdin>`.
    pub source: String,
    pub line: u64,
    pub column: Option<usize>,
    pub field: Option<String>,
    /// Byte offset into a binary input; when set, it replaces the line.
    #[serde(default)]
    pub byte: Option<u64>,
}

impl Location {
    pub fn line(source: &str, line: u64) -> Self {
        Self {
            source: source.to_owned(),
            line,
            column: None,
            field: None,
            byte: None,
        }
    }

    pub fn field(source: &str, line: u64, column: usize, field: &str) -> Self {
        Self {
            source: source.to_owned(),
            line,
            column: Some(column),
            field: Some(field.to_owned()),
            byte: None,
        }
    }

    /// Byte `offset` of a binary input, in its part `field` (e.g. `header`).
    pub fn byte(source: &str, offset: u64, field: &str) -> Self {
        Self {
            source: source.to_owned(),
            line: 0,
            column: None,
            field: Some(field.to_owned()),
            byte: Some(offset),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.byte {
            Some(offset) => write!(f, "{}, byte {offset}", self.source)?,
            None => write!(f, "{}, line {}", self.source, self.line)?,
        }
        if let Some(column) = self.column {
            write!(f, ", column {column}")?;
        }
        if let Some(field) = &self.field {
            write!(f, " (`{field}`)")?;
        }
        Ok(())
    }
}

/// Every error the crate returns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The input is malformed at a known place.
    #[error("{location}: {message}")]
    Input { location: Location, message: String },
    /// A setting is out of its valid range.
    #[error("invalid setting `{name}`: {message}")]
    InvalidParam { name: &'static str, message: String },
    /// The input is well-formed but cannot support the computation (too few rows, no data).
    #[error("{0}")]
    Insufficient(String),
}

impl Error {
    pub fn input(location: Location, message: impl Into<String>) -> Self {
        Self::Input {
            location,
            message: message.into(),
        }
    }

    pub fn param(name: &'static str, message: impl Into<String>) -> Self {
        Self::InvalidParam {
            name,
            message: message.into(),
        }
    }

    /// The location of an input error, if the error has one.
    pub fn location(&self) -> Option<&Location> {
        match self {
            Self::Input { location, .. } => Some(location),
            _ => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
