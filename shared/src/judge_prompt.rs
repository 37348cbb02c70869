//! Judge prompts and the parsing of their answers: the Prometheus absolute and relative prompts
//! of seed 000 App. A, word for word, and the `[RESULT]` convention they ask for.
//!
//! Model: the absolute prompt asks for feedback on one response against a score rubric, then
//! `[RESULT] s` with an integer s in `min_score..=max_score`; the relative prompt asks for
//! feedback comparing responses A and B, then `[RESULT] A` or `[RESULT] B`. The labels a
//! verdict can take ([`PromptParams::labels`]) are the score tokens whose next-token
//! probabilities give p_s at the score position.
//!
//! Arguments: [`PromptParams`] (the prompt kind and the rubric) and a [`PromptItem`] (the
//! instruction and one or two responses).
//!
//! Returns: [`PromptParams::render`] gives the system and user messages;
//! [`PromptParams::parse`] gives the feedback and the label of an answer.
//!
//! Errors: [`Error::InvalidParam`] for an empty score range or rubric, or an item without the
//! responses the prompt needs; [`PromptParams::parse`] returns a [`ParseFailure`] saying what
//! was expected and found, for the caller to store with the raw text.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptKind {
    /// One response scored on `min_score..=max_score`.
    Absolute { min_score: u32, max_score: u32 },
    /// Two responses, the better one named `A` or `B`.
    Relative,
}

/// Settings of a judge prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptParams {
    #[serde(flatten)]
    pub kind: PromptKind,
    /// The score rubric (the evaluation criteria).
    pub rubric: String,
}

/// What one judgment is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptItem {
    pub instruction: String,
    /// The response (absolute), or response A (relative).
    pub response: String,
    /// Response B (relative only).
    pub response_b: Option<String>,
}

/// The messages of a chat request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    pub system: String,
    pub user: String,
}

/// A parsed answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parsed {
    /// The text before `[RESULT]`, without a leading `Feedback:`.
    pub feedback: String,
    /// One of [`PromptParams::labels`].
    pub label: String,
}

/// Why an answer could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseFailure {
    pub message: String,
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

const MARKER: &str = "[RESULT]";

const ABSOLUTE_SYSTEM: &str = "You are a fair judge assistant tasked with providing clear, \
objective feedback based on specific criteria, ensuring each assessment reflects the absolute \
standards set for performance.";

const RELATIVE_SYSTEM: &str = "You are a fair judge assistant assigned to deliver insightful \
feedback that compares individual performances, highlighting how each stands relative to others \
within the same cohort.";

impl PromptParams {
    /// Checks the score range and the rubric.
    pub fn validate(&self) -> Result<()> {
        if let PromptKind::Absolute {
            min_score,
            max_score,
        } = self.kind
        {
            if min_score >= max_score || max_score > 9 {
                return Err(Error::param(
                    "score range",
                    format!(
                        "expected single-digit scores with min < max, found {min_score}..{max_score}"
                    ),
                ));
            }
        }
        if self.rubric.trim().is_empty() {
            return Err(Error::param(
                "rubric",
                "expected a score rubric, found none",
            ));
        }
        Ok(())
    }

    /// The labels a verdict can take: the scores in order, or `A` and `B`.
    pub fn labels(&self) -> Vec<String> {
        match self.kind {
            PromptKind::Absolute {
                min_score,
                max_score,
            } => (min_score..=max_score).map(|s| s.to_string()).collect(),
            PromptKind::Relative => vec!["A".to_owned(), "B".to_owned()],
        }
    }

    /// The system and user messages for `item`.
    pub fn render(&self, item: &PromptItem) -> Result<Rendered> {
        self.validate()?;
        let rubric = self.rubric.trim();
        match (self.kind, &item.response_b) {
            (
                PromptKind::Absolute {
                    min_score,
                    max_score,
                },
                _,
            ) => Ok(Rendered {
                system: ABSOLUTE_SYSTEM.to_owned(),
                user: format!(
                    "Task Description: An instruction (might include an Input inside it), a \
                     response to evaluate, and a score rubric representing a evaluation \
                     criteria are given. 1. Write a detailed feedback that assess the quality of \
                     the response strictly based on the given score rubric, not evaluating in \
                     general. 2. After writing a feedback, write a score that is an integer \
                     between {min_score} and {max_score}. You should refer to the score rubric. \
                     3. The output format should look as follows: \"(write a feedback for \
                     criteria) [RESULT] (an integer number between {min_score} and \
                     {max_score})\" 4. Please do not generate any other opening, closing, and \
                     explanations.\n\nInstruction: {}\n\nResponse: {}\n\nScore Rubrics: \
                     {rubric}\n\nFeedback:",
                    item.instruction, item.response
                ),
            }),
            (PromptKind::Relative, Some(response_b)) => Ok(Rendered {
                system: RELATIVE_SYSTEM.to_owned(),
                user: format!(
                    "Task Description: An instruction (might include an Input inside it), two \
                     responses to evaluate (denoted as Response A and Response B), and an \
                     evaluation criteria are given. 1. Write a detailed feedback that assess the \
                     quality of the two responses strictly based on the given evaluation \
                     criteria, not evaluating in general. 2. Make comparisons between Response \
                     A and Response B. Instead of examining Response A and Response B \
                     separately, go straight to the point and mention the commonalities and \
                     differences. 3. After writing the feedback, indicate the better response, \
                     either \"A\" or \"B\". 4. The output format should look as follows: \
                     \"Feedback: (write a feedback for criteria) [RESULT] (Either \"A\" or \
                     \"B\")\" 5. Please do not generate any other opening, closing, and \
                     explanations.\n\nInstruction: {}\n\nResponse A: {}\n\nResponse B: \
                     {response_b}\n\nScore Rubrics: {rubric}\n\nFeedback:",
                    item.instruction, item.response
                ),
            }),
            (PromptKind::Relative, None) => Err(Error::param(
                "response_b",
                "the relative prompt compares two responses: expected response B, found none",
            )),
        }
    }

    /// The feedback and the label of `answer`: the text after the last `[RESULT]`, without
    /// surrounding whitespace, quotes, brackets or a final period, must be one of the labels.
    pub fn parse(&self, answer: &str) -> std::result::Result<Parsed, ParseFailure> {
        let labels = self.labels();
        let Some(at) = answer.rfind(MARKER) else {
            return Err(ParseFailure {
                message: format!(
                    "expected `{MARKER}` followed by one of `{}`, found no `{MARKER}`",
                    labels.join("`, `")
                ),
            });
        };
        let after = answer[at + MARKER.len()..].trim();
        let verdict = after
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '(' | ')' | '[' | ']' | '*' | '.'));
        if !labels.iter().any(|l| l == verdict) {
            return Err(ParseFailure {
                message: format!(
                    "expected one of `{}` after `{MARKER}`, found `{}`",
                    labels.join("`, `"),
                    after.chars().take(40).collect::<String>()
                ),
            });
        }
        let feedback = answer[..at].trim();
        let feedback = feedback
            .strip_prefix("Feedback:")
            .unwrap_or(feedback)
            .trim();
        Ok(Parsed {
            feedback: feedback.to_owned(),
            label: verdict.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn absolute() -> PromptParams {
        PromptParams {
            kind: PromptKind::Absolute {
                min_score: 1,
                max_score: 5,
            },
            rubric: "Is the answer helpful?".to_owned(),
        }
    }

    #[test]
    fn renders_the_seed_000_prompts() {
        let item = PromptItem {
            instruction: "Name a prime.".to_owned(),
            response: "7".to_owned(),
            response_b: Some("8".to_owned()),
        };
        let r = absolute().render(&item).unwrap();
        assert!(r
            .system
            .starts_with("You are a fair judge assistant tasked"));
        assert!(r
            .user
            .contains("write a score that is an integer between 1 and 5."));
        assert!(r.user.ends_with(
            "Instruction: Name a prime.\n\nResponse: 7\n\nScore Rubrics: Is the answer \
             helpful?\n\nFeedback:"
        ));
        let relative = PromptParams {
            kind: PromptKind::Relative,
            ..absolute()
        };
        let r = relative.render(&item).unwrap();
        assert!(r.user.contains("Response A: 7\n\nResponse B: 8\n\n"));
        let err = relative
            .render(&PromptItem {
                response_b: None,
                ..item
            })
            .unwrap_err();
        assert!(err.to_string().contains("expected response B"), "{err}");
    }

    #[test]
    fn parses_the_result_marker_and_reports_what_it_found() {
        let p = absolute();
        let parsed = p.parse("Feedback: Correct and brief. [RESULT] 4").unwrap();
        assert_eq!(parsed.feedback, "Correct and brief.");
        assert_eq!(parsed.label, "4");
        assert_eq!(p.parse("ok [RESULT] (5).").unwrap().label, "5");
        let err = p.parse("Great answer, 5/5").unwrap_err();
        assert_eq!(
            err.message,
            "expected `[RESULT]` followed by one of `1`, `2`, `3`, `4`, `5`, found no `[RESULT]`"
        );
        let err = p.parse("meh [RESULT] 7").unwrap_err();
        assert!(err.message.ends_with("found `7`"), "{}", err.message);
        let relative = PromptParams {
            kind: PromptKind::Relative,
            ..absolute()
        };
        assert_eq!(relative.parse("A is wrong. [RESULT] B").unwrap().label, "B");
        assert!(absolute().labels() == ["1", "2", "3", "4", "5"]);
        let bad = PromptParams {
            kind: PromptKind::Absolute {
                min_score: 5,
                max_score: 5,
            },
            ..absolute()
        };
        assert!(bad.validate().is_err());
    }
}
