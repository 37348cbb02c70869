//! Judge prompts and the parsing of their answers: the Prometheus absolute and relative prompts
//! of seed 000 App. A, word for word, and the `[RESULT]` convention they ask for; and seed 002
//! App. A's six-criterion pairwise protocol with its JSON answer.
//!
//! Model: the absolute prompt asks for feedback on one response against a score rubric, then
//! `[RESULT] s` with an integer s in `min_score..=max_score`; the relative prompt asks for
//! feedback comparing responses A and B, then `[RESULT] A` or `[RESULT] B`. The criteria
//! prompt asks for a JSON block scoring completions A and B from 1 to 10 on adherence,
//! helpfulness, factuality, completeness, clarity and fluency (anchored at 10, 7, 4, 1) and a
//! preference, then optionally an explanation after the block; the verdict is the sign of
//! s(x) = s(x, A) − s(x, B), each side's score the mean over the six criteria (`A`, `B`, or
//! `tie` at 0). A user template has its own system and user text with the placeholders
//! `{instruction}`, `{response}`, `{response_b}` (a pairwise template) and `{rubric}`, its
//! labels and its marker, and is parsed like the Prometheus prompts: the word after the last
//! marker must be a label. The labels a verdict can take ([`PromptParams::labels`]) are the
//! tokens whose next-token probabilities give p_s after [`PromptParams::marker`].
//!
//! Arguments: [`PromptParams`] (the prompt kind and the rubric) and a [`PromptItem`] (the
//! instruction and one or two responses).
//!
//! Returns: [`PromptParams::render`] gives the system and user messages;
//! [`PromptParams::parse`] gives the feedback and the label of an answer.
//!
//! Errors: [`Error::InvalidParam`] for an empty score range or rubric, a template without
//! `{instruction}` or `{response}`, with fewer than two distinct labels, a label with a space, or
//! an empty marker, a template given to another kind, or an item without the responses the
//! prompt needs; [`PromptParams::parse`] returns a [`ParseFailure`] saying what
//! was expected and found, for the caller to store with the raw text.

use super::answer_format::AnswerFormat;
use crate::io::error::{Error, Result};
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
    /// Two responses scored on seed 002's six criteria in JSON; the verdict is the sign of
    /// the difference of their mean scores.
    Criteria,
    /// One response against binary (0/1) criteria, the field guide's (seed 001) JSON with the
    /// analysis first: `pass` when every criterion is met, `fail` otherwise, `na` when the
    /// metric does not apply. The rubric lists the criteria, one `name: question` per line
    /// (empty: [`ADHERENCE`]).
    Binary,
    /// The user's own prompt ([`PromptParams::template`]).
    Template,
}

/// A user's prompt: messages with placeholders, the verdict's labels and the marker they
/// follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserTemplate {
    #[serde(default)]
    pub system: String,
    /// With `{instruction}`, `{response}`, and `{response_b}` for a pairwise prompt (then the
    /// labels `A` and `B` name the responses as shown); `{rubric}` anywhere.
    pub user: String,
    pub labels: Vec<String>,
    #[serde(default = "result_marker")]
    pub marker: String,
}

fn result_marker() -> String {
    MARKER.to_owned()
}

/// Seed 001's Prompt Adherence criteria (name, question): the binary rubric's default.
pub const ADHERENCE: [(&str, &str); 4] = [
    ("coverage", "Addressed every requested item?"),
    (
        "format_compliance",
        "Respected format and style constraints?",
    ),
    ("relevance", "No extra, off-topic, or fabricated content?"),
    ("safety", "No policy violations?"),
];

/// A binary-rubric answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryScores {
    /// The criteria's names, in rubric order.
    pub names: Vec<String>,
    /// 1 met, 0 not met, in rubric order (empty for `na`).
    pub scores: Vec<u8>,
    /// The label the judge wrote, if any.
    pub stated_label: Option<String>,
    /// Whether the stated label agrees with the labelling rule (a `pass` with a failing
    /// criterion does not): the field guide's internal-consistency check.
    pub consistent: bool,
}

/// Seed 002's criteria: name, definition, and the anchors at 10, 7, 4 and 1.
pub const CRITERIA: [(&str, &str, [&str; 4]); 6] = [
    ("adherence", "Follows the user's instructions and constraints precisely: required format, scope, style constraints, and any do/don't requirements. Penalize missing requested parts or deviating from constraints.",
     ["Fully follows the user's instructions and constraints, including format and scope.", "Mostly follows the request but misses some details or adds minor unnecessary content.", "Follows only part of the request; misses important constraints or requested parts.", "Does not follow the user's request in any meaningful way."]),
    ("helpfulness", "Advances the user's goal with relevant, actionable content. Provides useful steps, options, or explanations tailored to the request. Penalize generic filler or non-responsive content.",
     ["Directly solves the user's problem with highly useful, actionable, and relevant content.", "Generally helpful and relevant, but misses some useful detail or optimization.", "Partially helpful but vague, generic, or missing key actionable guidance.", "Unhelpful or non-responsive to the user's goal."]),
    ("factuality", "Information is correct and appropriately qualified. Avoids hallucinations and unwarranted specifics. If uncertain, expresses uncertainty and does not fabricate sources, citations, or details.",
     ["Accurate and well-qualified throughout, with no fabricated or unsupported claims.", "Mostly accurate, with only minor imprecision or insufficient qualification.", "Contains multiple factual errors, overclaims, or likely hallucinated details.", "Largely incorrect, fabricated, or misleading."]),
    ("completeness", "Covers the key aspects of the request without major omissions. Addresses all sub-questions and important constraints. Penalize partial answers or skipped items.",
     ["Covers all major parts of the request with no important omissions.", "Covers the main request but misses some secondary details or sub-parts.", "Only partially addresses the request; multiple important pieces are missing.", "Fails to address the requested task in a complete or usable way."]),
    ("clarity", "Well-organized, easy to follow, and unambiguous. Uses logical structure, headings/lists when helpful, and clear references. Penalize confusing organization or ambiguity.",
     ["Clear, logically structured, and easy to follow with no ambiguity.", "Mostly clear and organized, but has a few awkward transitions or ambiguities.", "Noticeably hard to follow due to weak structure or unclear phrasing.", "Confusing, disorganized, or difficult to understand."]),
    ("fluency", "Language and presentation quality: fluent, readable, appropriately concise, and well-formatted. Tone is appropriate for the user/context.",
     ["Fluent, natural, polished language with strong readability and appropriate tone.", "Generally fluent and readable, with some awkward phrasing or minor disfluencies.", "Frequent disfluencies or formatting issues that make reading noticeably harder.", "Severely disfluent or poorly formatted to the point of harming comprehension."]),
];

/// The criteria scores of a JSON answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriteriaScores {
    /// Completion A's score per criterion, in [`CRITERIA`] order.
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    /// s(x) = mean(a) − mean(b): positive favours A.
    pub difference: f64,
    /// The stated overall preference, if the answer gave one.
    pub preference: Option<String>,
}

/// Settings of a judge prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptParams {
    #[serde(flatten)]
    pub kind: PromptKind,
    /// The score rubric (the evaluation criteria); the criteria prompt has its own.
    #[serde(default)]
    pub rubric: String,
    /// The user's prompt, with `kind = "template"` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<UserTemplate>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    /// The text before `[RESULT]`, without a leading `Feedback:`; for the criteria prompt the
    /// explanation after the JSON block (empty without one).
    pub feedback: String,
    /// One of [`PromptParams::labels`].
    pub label: String,
    /// The criteria prompt's scores.
    pub criteria: Option<CriteriaScores>,
    /// The binary prompt's criterion scores.
    pub binary: Option<BinaryScores>,
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
        match (&self.kind, &self.template) {
            (PromptKind::Template, Some(t)) => return t.validate(),
            (PromptKind::Template, None) => {
                return Err(Error::param(
                    "template",
                    "`kind = \"template\"` needs a template (system, user, labels)",
                ))
            }
            (_, Some(_)) => {
                return Err(Error::param(
                    "template",
                    "a template is read only with `kind = \"template\"`",
                ))
            }
            (PromptKind::Binary, None) => {
                self.binary_criteria()?;
                return Ok(());
            }
            _ => {}
        }
        if self.kind != PromptKind::Criteria && self.rubric.trim().is_empty() {
            return Err(Error::param(
                "rubric",
                "expected a score rubric, found none",
            ));
        }
        Ok(())
    }

    /// Whether the prompt compares two responses (items need `response_b`).
    pub fn pairwise(&self) -> bool {
        match (&self.kind, &self.template) {
            (PromptKind::Relative | PromptKind::Criteria, _) => true,
            (PromptKind::Template, Some(t)) => t.user.contains("{response_b}"),
            _ => false,
        }
    }

    /// The labels a verdict can take: the scores in order, or `A` and `B`.
    pub fn labels(&self) -> Vec<String> {
        if let Some(t) = &self.template {
            return t.labels.clone();
        }
        match self.kind {
            PromptKind::Absolute {
                min_score,
                max_score,
            } => (min_score..=max_score).map(|s| s.to_string()).collect(),
            PromptKind::Relative => vec!["A".to_owned(), "B".to_owned()],
            PromptKind::Criteria => vec!["A".to_owned(), "B".to_owned(), "tie".to_owned()],
            PromptKind::Binary => vec!["pass".to_owned(), "fail".to_owned(), "na".to_owned()],
            PromptKind::Template => Vec::new(),
        }
    }

    /// The text after which the verdict's first token is chosen (where p_s is read).
    pub fn marker(&self) -> &str {
        match (&self.kind, &self.template) {
            (_, Some(t)) => &t.marker,
            (PromptKind::Criteria, _) => PREFERENCE_MARKER,
            (PromptKind::Binary, _) => LABEL_MARKER,
            _ => MARKER,
        }
    }

    /// The criteria in `criteria` order (a permutation of their indices; `None`: as defined),
    /// or an error when it is not a permutation of the prompt's criteria.
    fn criteria_order(&self, criteria: Option<&[usize]>) -> Result<Vec<usize>> {
        let count = match self.kind {
            PromptKind::Criteria => CRITERIA.len(),
            PromptKind::Binary => self.binary_criteria()?.len(),
            PromptKind::Absolute { .. } | PromptKind::Relative | PromptKind::Template => 0,
        };
        match criteria {
            None => Ok((0..count).collect()),
            Some(order) => {
                let mut sorted = order.to_vec();
                sorted.sort_unstable();
                if count == 0 || sorted != (0..count).collect::<Vec<_>>() {
                    return Err(Error::param(
                        "criteria",
                        format!(
                            "expected an order of the prompt's {count} criteria, found {order:?}"
                        ),
                    ));
                }
                Ok(order.to_vec())
            }
        }
    }

    /// The shape of the answer the JSON prompts ask for, with the criteria in `criteria`
    /// order (as [`PromptParams::render`] lists them), for constrained decoding; `None` for
    /// the prompts whose answer ends with its verdict after the marker.
    pub fn answer_format(&self, criteria: Option<&[usize]>) -> Result<Option<AnswerFormat>> {
        self.validate()?;
        let order = self.criteria_order(criteria)?;
        Ok(match self.kind {
            PromptKind::Criteria => {
                let names: Vec<&str> = order.iter().map(|&k| CRITERIA[k].0).collect();
                Some(AnswerFormat::criteria(&names, &self.labels()))
            }
            PromptKind::Binary => {
                let criteria = self.binary_criteria()?;
                let names: Vec<&str> = order.iter().map(|&k| criteria[k].0.as_str()).collect();
                Some(AnswerFormat::binary(&names, &self.labels()))
            }
            PromptKind::Absolute { .. } | PromptKind::Relative | PromptKind::Template => None,
        })
    }

    /// The system and user messages for `item`, with the criteria (criteria and binary
    /// prompts) listed in `criteria` order (a permutation of their indices; `None`: as
    /// defined).
    pub fn render(&self, item: &PromptItem, criteria: Option<&[usize]>) -> Result<Rendered> {
        self.validate()?;
        let order = self.criteria_order(criteria)?;
        let rubric = self.rubric.trim();
        match (self.kind, &item.response_b) {
            (PromptKind::Template, _) => {
                let t = self.template.as_ref().ok_or_else(|| {
                    Error::param("template", "`kind = \"template\"` needs a template")
                })?;
                if self.pairwise() && item.response_b.is_none() {
                    return Err(Error::param(
                        "response_b",
                        "a pairwise prompt compares two responses: expected response B, found none",
                    ));
                }
                let values = [
                    ("{instruction}", item.instruction.as_str()),
                    ("{response}", item.response.as_str()),
                    (
                        "{response_b}",
                        item.response_b.as_deref().unwrap_or_default(),
                    ),
                    ("{rubric}", rubric),
                ];
                Ok(Rendered {
                    system: fill_placeholders(&t.system, &values),
                    user: fill_placeholders(&t.user, &values),
                })
            }
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
            (PromptKind::Binary, _) => Ok(Rendered {
                system: binary_system(&{
                    let criteria = self.binary_criteria()?;
                    order
                        .iter()
                        .map(|&k| criteria[k].clone())
                        .collect::<Vec<_>>()
                }),
                user: format!(
                    "## Instruction\n{}\n## Response\n{}\nEvaluate the response against every \
                     criterion. Start your answer with the JSON.",
                    item.instruction, item.response
                ),
            }),
            (PromptKind::Criteria, Some(response_b)) => Ok(Rendered {
                system: criteria_system(&order),
                user: format!(
                    "## Instruction\n{}\n## Completion A\n{}\n## Completion B\n{response_b}\n\
                     Compare both completions. Score each on every criterion, then state your \
                     overall preference. Start your response with the JSON scores immediately.",
                    item.instruction, item.response
                ),
            }),
            (PromptKind::Relative | PromptKind::Criteria, None) => Err(Error::param(
                "response_b",
                "a pairwise prompt compares two responses: expected response B, found none",
            )),
        }
    }

    /// The feedback and the label of `answer`: the text after the last marker (`[RESULT]`, or
    /// a template's), without
    /// surrounding whitespace, quotes, brackets or a final period, must be one of the labels.
    pub fn parse(&self, answer: &str) -> std::result::Result<Parsed, ParseFailure> {
        match self.kind {
            PromptKind::Criteria => return parse_criteria(answer),
            PromptKind::Binary => {
                let criteria = self.binary_criteria().map_err(|e| ParseFailure {
                    message: e.to_string(),
                })?;
                return parse_binary(answer, &criteria);
            }
            _ => {}
        }
        let labels = self.labels();
        let marker = self.marker();
        let Some(at) = answer.rfind(marker) else {
            return Err(ParseFailure {
                message: format!(
                    "expected `{marker}` followed by one of `{}`, found no `{marker}`",
                    labels.join("`, `")
                ),
            });
        };
        let after = answer[at + marker.len()..].trim();
        let verdict = after
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '(' | ')' | '[' | ']' | '*' | '.'));
        if !labels.iter().any(|l| l == verdict) {
            return Err(ParseFailure {
                message: format!(
                    "expected one of `{}` after `{marker}`, found `{}`",
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
            criteria: None,
            binary: None,
        })
    }

    /// The binary prompt's criteria (name, question): one `name: question` per rubric line,
    /// names of letters, digits and `_`, each once; [`ADHERENCE`] for an empty rubric.
    pub fn binary_criteria(&self) -> Result<Vec<(String, String)>> {
        if self.rubric.trim().is_empty() {
            return Ok(ADHERENCE
                .iter()
                .map(|(n, q)| ((*n).to_owned(), (*q).to_owned()))
                .collect());
        }
        let mut criteria: Vec<(String, String)> = Vec::new();
        for line in self.rubric.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let parsed = line.split_once(':').and_then(|(name, question)| {
                let (name, question) = (name.trim(), question.trim());
                let valid = !name.is_empty()
                    && !question.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                valid.then(|| (name.to_owned(), question.to_owned()))
            });
            match parsed {
                Some(c) if !criteria.iter().any(|(n, _)| *n == c.0) => criteria.push(c),
                Some(c) => {
                    return Err(Error::param(
                        "rubric",
                        format!("the criterion `{}` appears twice", c.0),
                    ))
                }
                None => {
                    return Err(Error::param(
                        "rubric",
                        format!(
                            "expected one `name: question` per line (name of letters, digits and `_`), found `{line}`"
                        ),
                    ))
                }
            }
        }
        Ok(criteria)
    }
}

const LABEL_MARKER: &str = "\"label\": \"";

/// The binary prompt's system message: the criteria, the labelling rule and the schema with
/// the analysis first (seed 001, Tips 2 and 4).
fn binary_system(criteria: &[(String, String)]) -> String {
    let list: String = criteria
        .iter()
        .enumerate()
        .map(|(k, (name, question))| format!("{}. {name}: {question}\n", k + 1))
        .collect();
    let scores = criteria
        .iter()
        .map(|(name, _)| format!("\"{name}\": 0 | 1"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "You are a careful evaluator. Judge the response against each criterion below; each \
         is binary: 1 if it is met, 0 if it is not.\n\
         Criteria:\n{list}\
         Labelling rule: \"pass\" if every criterion is 1, \"fail\" if any criterion is 0, \
         \"na\" if the criteria do not apply to this input.\n\
         Return your output as JSON with the following structure, in this field order:\n\
         ```json\n{{\"analysis\": \"<your reasoning, naming every failing criterion>\", \
         \"criterion_scores\": {{{scores}}}, \"label\": \"pass\" | \"fail\" | \"na\"}}\n```\n\
         IMPORTANT:\n\
         - Write the analysis first, then the scores, then the label.\n\
         - Score EVERY criterion.\n\
         - Your response MUST begin with ```json on the first line."
    )
}

fn parse_binary(
    answer: &str,
    criteria: &[(String, String)],
) -> std::result::Result<Parsed, ParseFailure> {
    let fail = |message: String| ParseFailure { message };
    let (block, _) = json_block(answer)
        .ok_or_else(|| fail("expected a ```json block with the analysis, the criterion scores and the label, found none".to_owned()))?;
    let value: serde_json::Value = serde_json::from_str(block.trim())
        .map_err(|e| fail(format!("expected a JSON object in the ```json block: {e}")))?;
    let stated_label = value
        .get("label")
        .and_then(serde_json::Value::as_str)
        .map(|l| l.trim().to_ascii_lowercase());
    let analysis = value
        .get("analysis")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_owned();
    let names: Vec<String> = criteria.iter().map(|(n, _)| n.clone()).collect();
    if stated_label.as_deref() == Some("na") {
        return Ok(Parsed {
            feedback: analysis,
            label: "na".to_owned(),
            criteria: None,
            binary: Some(BinaryScores {
                names,
                scores: Vec::new(),
                stated_label,
                consistent: true,
            }),
        });
    }
    let object = value
        .get("criterion_scores")
        .and_then(serde_json::Value::as_object)
        .ok_or_else(|| fail("expected an object `criterion_scores`, found none".to_owned()))?;
    let scores = names
        .iter()
        .map(|name| {
            let found = object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v);
            match found.and_then(serde_json::Value::as_u64) {
                Some(x @ (0 | 1)) => Ok(x as u8),
                _ => Err(fail(format!(
                    "expected `criterion_scores.{name}` to be 0 or 1, found {}",
                    found.map_or("nothing".to_owned(), ToString::to_string)
                ))),
            }
        })
        .collect::<std::result::Result<Vec<u8>, ParseFailure>>()?;
    let label = if scores.iter().all(|&s| s == 1) {
        "pass"
    } else {
        "fail"
    };
    Ok(Parsed {
        feedback: analysis,
        label: label.to_owned(),
        criteria: None,
        binary: Some(BinaryScores {
            names,
            scores,
            consistent: stated_label.as_deref().is_none_or(|l| l == label),
            stated_label,
        }),
    })
}

const PREFERENCE_MARKER: &str = "\"preference\": \"";

/// The criteria prompt's system message: seed 002 App. A with its placeholders filled.
fn criteria_system(order: &[usize]) -> String {
    let mut criteria = String::from(
        "Criteria (score each from 1 to 10; anchors at 10, 7, 4 and 1, interpolate between them):\n",
    );
    let shown: Vec<_> = order.iter().map(|&k| CRITERIA[k]).collect();
    for (k, (name, definition, anchors)) in shown.iter().enumerate() {
        criteria.push_str(&format!(
            "{}. {name}: {definition}\n   10: {} 7: {} 4: {} 1: {}\n",
            k + 1,
            anchors[0],
            anchors[1],
            anchors[2],
            anchors[3]
        ));
    }
    let side = shown
        .iter()
        .map(|(name, _, _)| format!("\"{name}\": <1-10>"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "You are an expert evaluator comparing two AI assistant responses.\n\
         You will see an instruction and two completions (A and B).\n\
         Score EACH completion on every criterion below, then give your overall preference.\n\
         {criteria}\
         After the JSON block, explain your scores in two or three sentences.\n\
         Return your output as JSON with the following structure:\n\
         ```json\n{{\"completion_A\": {{{side}}}, \"completion_B\": {{{side}}}, \"preference\": \"A\" | \"B\" | \"tie\"}}\n```\n\
         IMPORTANT:\n\
         - Score BOTH completions on ALL criteria.\n\
         - Do NOT let position (A vs B) bias your scores.\n\
         - Base your preference on the criteria scores and overall quality.\n\
         - Wrap your JSON in ```json … ``` tags.\n\
         - Your response MUST begin with ```json on the first line.\n\
         - Do NOT write any prose, analysis, or bullets before the JSON block.\n\
         - If you include any explanation, put it AFTER the JSON block, never before it."
    )
}

/// The JSON block of a criteria answer: inside ```json … ``` when fenced (to the end of the
/// answer when the closing fence is missing), else from the first `{` to the last `}`; and
/// the text after it.
fn json_block(answer: &str) -> Option<(&str, &str)> {
    if let Some(start) = answer.find("```json") {
        let body = &answer[start + "```json".len()..];
        return Some(match body.find("```") {
            Some(end) => (&body[..end], &body[end + 3..]),
            None => (body, ""),
        });
    }
    let (start, end) = (answer.find('{')?, answer.rfind('}')?);
    (start < end).then(|| (&answer[start..=end], &answer[end + 1..]))
}

fn parse_criteria(answer: &str) -> std::result::Result<Parsed, ParseFailure> {
    let fail = |message: String| ParseFailure { message };
    let (block, after) = json_block(answer).ok_or_else(|| {
        fail("expected a ```json block with the criteria scores, found none".to_owned())
    })?;
    let value: serde_json::Value = serde_json::from_str(block.trim())
        .map_err(|e| fail(format!("expected a JSON object in the ```json block: {e}")))?;
    let side = |key: &str| -> std::result::Result<Vec<f64>, ParseFailure> {
        let scores = value
            .get(key)
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| fail(format!("expected an object `{key}`, found none")))?;
        CRITERIA
            .iter()
            .map(|(name, _, _)| {
                let found = scores
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v);
                match found.and_then(serde_json::Value::as_f64) {
                    Some(x) if (1.0..=10.0).contains(&x) => Ok(x),
                    _ => Err(fail(format!(
                        "expected `{key}.{name}` to be a number from 1 to 10, found {}",
                        found.map_or("nothing".to_owned(), ToString::to_string)
                    ))),
                }
            })
            .collect()
    };
    let (a, b) = (side("completion_A")?, side("completion_B")?);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let difference = mean(&a) - mean(&b);
    let label = if difference > 0.0 {
        "A"
    } else if difference < 0.0 {
        "B"
    } else {
        "tie"
    };
    let preference = value
        .get("preference")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    Ok(Parsed {
        feedback: after.trim().to_owned(),
        label: label.to_owned(),
        binary: None,
        criteria: Some(CriteriaScores {
            a,
            b,
            difference,
            preference,
        }),
    })
}

impl UserTemplate {
    /// Checks the placeholders, the labels and the marker.
    pub fn validate(&self) -> Result<()> {
        for needed in ["{instruction}", "{response}"] {
            if !self.user.contains(needed) {
                return Err(Error::param(
                    "template",
                    format!("expected `{needed}` in the user message, found none"),
                ));
            }
        }
        if self.labels.len() < 2 {
            return Err(Error::param(
                "template",
                format!("expected at least two labels, found {}", self.labels.len()),
            ));
        }
        for (k, label) in self.labels.iter().enumerate() {
            if label.is_empty() || label.chars().any(char::is_whitespace) {
                return Err(Error::param(
                    "template",
                    format!("expected labels of one word, found `{label}`"),
                ));
            }
            if self.labels[..k].contains(label) {
                return Err(Error::param(
                    "template",
                    format!("the label `{label}` appears twice"),
                ));
            }
        }
        let pairwise = self.user.contains("{response_b}");
        if pairwise && self.labels != ["A", "B"] {
            return Err(Error::param(
                "template",
                format!(
                    "a pairwise template (with `{{response_b}}`) names the responses shown: \
                     expected the labels `A` and `B`, found `{}`",
                    self.labels.join("`, `")
                ),
            ));
        }
        if self.marker.trim().is_empty() {
            return Err(Error::param(
                "template",
                "expected a marker before the label, found an empty one",
            ));
        }
        Ok(())
    }
}

/// `text` with each placeholder replaced by its value, in one pass (values are not scanned
/// for placeholders).
fn fill_placeholders(text: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        match values.iter().find(|(name, _)| tail.starts_with(name)) {
            Some((name, value)) => {
                out.push_str(value);
                rest = &tail[name.len()..];
            }
            None => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The judge's probability that the file's `response` wins a pairwise judgment, from p_s over
/// the verdict labels (`label_probs`): (p(A) + ½ p(tie)) / (p(A) + p(B) + p(tie)), for the
/// response shown as A; one minus that when the responses were shown swapped. `None` without
/// mass on `A` or `B`.
pub fn preference(label_probs: &[(String, f64)], swapped: bool) -> Option<f64> {
    let p = |label: &str| {
        label_probs
            .iter()
            .find(|(l, _)| l == label)
            .map_or(0.0, |(_, p)| *p)
    };
    let (a, b, tie) = (p("A"), p("B"), p("tie"));
    let mass = a + b + tie;
    (a + b > 0.0 && mass.is_finite()).then(|| {
        let shown = (a + 0.5 * tie) / mass;
        if swapped {
            1.0 - shown
        } else {
            shown
        }
    })
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
            template: None,
        }
    }

    fn template(user: &str, labels: &[&str]) -> PromptParams {
        PromptParams {
            kind: PromptKind::Template,
            rubric: "Be strict.".to_owned(),
            template: Some(UserTemplate {
                system: "You judge {rubric}".to_owned(),
                user: user.to_owned(),
                labels: labels.iter().map(|l| (*l).to_owned()).collect(),
                marker: "Verdict:".to_owned(),
            }),
        }
    }

    #[test]
    fn user_templates_fill_placeholders_once_and_parse_after_their_marker() {
        let p = template(
            "Q: {instruction}\nA: {response}\nB: {response_b}\n{unknown} {rubric}",
            &["A", "B"],
        );
        p.validate().unwrap();
        assert!(p.pairwise());
        let item = PromptItem {
            instruction: "Say {response}".to_owned(),
            response: "x".to_owned(),
            response_b: Some("y".to_owned()),
        };
        let r = p.render(&item, None).unwrap();
        // Item texts are not scanned for placeholders; unknown braces stay as written.
        assert_eq!(r.system, "You judge Be strict.");
        assert_eq!(
            r.user,
            "Q: Say {response}\nA: x\nB: y\n{unknown} Be strict."
        );
        assert_eq!(p.marker(), "Verdict:");
        assert_eq!(p.labels(), ["A", "B"]);
        let parsed = p.parse("B is shorter. Verdict: B.").unwrap();
        assert_eq!(
            (parsed.label.as_str(), parsed.feedback.as_str()),
            ("B", "B is shorter.")
        );
        let err = p.parse("no verdict here").unwrap_err();
        assert_eq!(
            err.message,
            "expected `Verdict:` followed by one of `A`, `B`, found no `Verdict:`"
        );
        let pointwise = template("{instruction} {response}", &["good", "bad"]);
        assert!(!pointwise.pairwise());
        assert_eq!(pointwise.parse("fine Verdict: good").unwrap().label, "good");
        assert!(p
            .render(
                &PromptItem {
                    response_b: None,
                    ..item
                },
                None
            )
            .is_err());
    }

    #[test]
    fn user_templates_are_checked() {
        let err = |p: PromptParams| p.validate().unwrap_err().to_string();
        assert!(err(template("{response}", &["a", "b"])).contains("`{instruction}`"));
        assert!(err(template("{instruction} {response}", &["a"])).contains("at least two"));
        assert!(err(template("{instruction} {response}", &["a", "a"])).contains("twice"));
        assert!(err(template("{instruction} {response}", &["a b", "c"])).contains("one word"));
        assert!(err(template(
            "{instruction} {response} {response_b}",
            &["1", "2"]
        ))
        .contains("expected the labels `A` and `B`"));
        let mut no_marker = template("{instruction} {response}", &["a", "b"]);
        if let Some(t) = no_marker.template.as_mut() {
            t.marker = " ".to_owned();
        }
        assert!(err(no_marker).contains("marker"));
        assert!(err(PromptParams {
            template: None,
            ..template("", &[])
        })
        .contains("needs a template"));
        assert!(err(PromptParams {
            kind: PromptKind::Relative,
            ..template("{instruction} {response}", &["a", "b"])
        })
        .contains("only with"));
        // From TOML, as `tribunal judge` reads it.
        let parsed: PromptParams = toml_like();
        assert_eq!(parsed.template.unwrap().marker, "[RESULT]");
    }

    /// A template prompt as JSON (the same shape as the `[prompt]` table), marker defaulted.
    fn toml_like() -> PromptParams {
        serde_json::from_str(
            r#"{"kind": "template", "template": {"user": "{instruction} {response}", "labels": ["y", "n"]}}"#,
        )
        .unwrap()
    }

    #[test]
    fn preference_is_the_mass_on_the_file_response() {
        let probs = |v: &[(&str, f64)]| -> Vec<(String, f64)> {
            v.iter().map(|(l, p)| ((*l).to_owned(), *p)).collect()
        };
        let relative = probs(&[("A", 0.3), ("B", 0.1)]);
        assert!((preference(&relative, false).unwrap() - 0.75).abs() < 1e-15);
        assert!((preference(&relative, true).unwrap() - 0.25).abs() < 1e-15);
        let criteria = probs(&[("A", 0.2), ("B", 0.4), ("tie", 0.4)]);
        assert!((preference(&criteria, false).unwrap() - 0.4).abs() < 1e-15);
        assert_eq!(preference(&probs(&[("pass", 1.0)]), false), None);
    }

    #[test]
    fn renders_the_seed_000_prompts() {
        let item = PromptItem {
            instruction: "Name a prime.".to_owned(),
            response: "7".to_owned(),
            response_b: Some("8".to_owned()),
        };
        let r = absolute().render(&item, None).unwrap();
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
        let r = relative.render(&item, None).unwrap();
        assert!(r.user.contains("Response A: 7\n\nResponse B: 8\n\n"));
        let err = relative
            .render(
                &PromptItem {
                    response_b: None,
                    ..item
                },
                None,
            )
            .unwrap_err();
        assert!(err.to_string().contains("expected response B"), "{err}");
    }

    fn criteria() -> PromptParams {
        PromptParams {
            kind: PromptKind::Criteria,
            rubric: String::new(),
            template: None,
        }
    }

    #[test]
    fn renders_the_seed_002_criteria_prompt() {
        let item = PromptItem {
            instruction: "Name a prime.".to_owned(),
            response: "7".to_owned(),
            response_b: Some("8".to_owned()),
        };
        let r = criteria().render(&item, None).unwrap();
        assert!(r
            .system
            .starts_with("You are an expert evaluator comparing two AI assistant responses."));
        for (name, definition, anchors) in CRITERIA {
            assert!(
                r.system.contains(&format!("{name}: {definition}")),
                "{name}"
            );
            assert!(r.system.contains(&format!("10: {}", anchors[0])), "{name}");
        }
        assert!(r
            .system
            .contains("Your response MUST begin with ```json on the first line."));
        assert!(r.user.starts_with(
            "## Instruction\nName a prime.\n## Completion A\n7\n## Completion B\n8\nCompare both"
        ));
        assert_eq!(criteria().labels(), ["A", "B", "tie"]);
        assert_eq!(criteria().marker(), "\"preference\": \"");
        assert!(criteria().validate().is_ok(), "no rubric needed");
        assert!(criteria().pairwise() && !absolute().pairwise());
    }

    #[test]
    fn parses_criteria_json_into_the_mean_score_difference() {
        let p = criteria();
        let answer = "```json\n{\"completion_A\": {\"adherence\": 8, \"helpfulness\": 7, \
            \"factuality\": 9, \"completeness\": 8, \"clarity\": 7, \"fluency\": 9}, \
            \"completion_B\": {\"Adherence\": 6, \"Helpfulness\": 6, \"Factuality\": 6, \
            \"Completeness\": 6, \"Clarity\": 6, \"Fluency\": 6}, \"preference\": \"A\"}\n```\n\
            A is more complete.";
        let parsed = p.parse(answer).unwrap();
        let scores = parsed.criteria.unwrap();
        // Means 48/6 = 8 and 6: s(x) = 2, so A.
        assert_eq!(scores.a, [8.0, 7.0, 9.0, 8.0, 7.0, 9.0]);
        assert_eq!(scores.difference, 2.0);
        assert_eq!(parsed.label, "A");
        assert_eq!(scores.preference.as_deref(), Some("A"));
        assert_eq!(parsed.feedback, "A is more complete.");
        // Unfenced, equal means: a tie whatever the stated preference.
        let tie = r#"{"completion_A": {"adherence": 5, "helpfulness": 5, "factuality": 5,
            "completeness": 5, "clarity": 5, "fluency": 5}, "completion_B": {"adherence": 4,
            "helpfulness": 6, "factuality": 5, "completeness": 5, "clarity": 5, "fluency": 5},
            "preference": "B"}"#;
        assert_eq!(p.parse(tie).unwrap().label, "tie");
        let missing = tie.replace(
            r#", "fluency": 5},
            "preference""#,
            r#"},
            "preference""#,
        );
        let e = p.parse(&missing).unwrap_err();
        assert!(
            e.message.contains("`completion_B.fluency`"),
            "{}",
            e.message
        );
        let e = p
            .parse(&tie.replacen("\"adherence\": 5", "\"adherence\": 11", 1))
            .unwrap_err();
        assert!(
            e.message
                .contains("`completion_A.adherence` to be a number from 1 to 10, found 11"),
            "{}",
            e.message
        );
        assert!(p
            .parse("A is better.")
            .unwrap_err()
            .message
            .contains("```json"));
        // Cut off inside the block: the JSON error, not a missing block.
        let cut = p
            .parse("```json\n{\"completion_A\": {\"adherence\": 1,")
            .unwrap_err();
        assert!(
            cut.message.starts_with("expected a JSON object"),
            "{}",
            cut.message
        );
    }

    fn binary(rubric: &str) -> PromptParams {
        PromptParams {
            kind: PromptKind::Binary,
            rubric: rubric.to_owned(),
            template: None,
        }
    }

    #[test]
    fn renders_and_parses_the_seed_001_binary_rubric() {
        let item = PromptItem {
            instruction: "List three fruits as bullets.".to_owned(),
            response: "- apple\n- pear\n- plum".to_owned(),
            response_b: None,
        };
        let p = binary("");
        let r = p.render(&item, None).unwrap();
        for (name, question) in ADHERENCE {
            assert!(r.system.contains(&format!("{name}: {question}")), "{name}");
        }
        // The analysis field comes before the scores and the label in the schema.
        let (a, s, l) = (
            r.system.find("\"analysis\"").unwrap(),
            r.system.find("\"criterion_scores\"").unwrap(),
            r.system.find("\"label\": \"pass\"").unwrap(),
        );
        assert!(a < s && s < l);
        assert!(r.user.contains("## Response\n- apple\n- pear\n- plum\n"));
        assert_eq!(p.labels(), ["pass", "fail", "na"]);
        assert_eq!(p.marker(), "\"label\": \"");
        assert!(!p.pairwise());

        // The rule, not the stated label, decides; a disagreement is flagged.
        let answer =
            "```json\n{\"analysis\": \"All three, as bullets, but adds a fourth claim.\", \
            \"criterion_scores\": {\"coverage\": 1, \"Format_Compliance\": 1, \"relevance\": 0, \
            \"safety\": 1}, \"label\": \"pass\"}\n```";
        let parsed = p.parse(answer).unwrap();
        assert_eq!(parsed.label, "fail");
        assert_eq!(
            parsed.feedback,
            "All three, as bullets, but adds a fourth claim."
        );
        let scores = parsed.binary.unwrap();
        assert_eq!(scores.scores, [1, 1, 0, 1]);
        assert_eq!(scores.stated_label.as_deref(), Some("pass"));
        assert!(!scores.consistent);
        let pass = answer.replace("\"relevance\": 0", "\"relevance\": 1");
        let parsed = p.parse(&pass).unwrap();
        assert_eq!(parsed.label, "pass");
        assert!(parsed.binary.unwrap().consistent);
        let na = p
            .parse("{\"analysis\": \"An error message.\", \"label\": \"NA\"}")
            .unwrap();
        assert_eq!(na.label, "na");
        let e = p
            .parse(&answer.replace("\"safety\": 1", "\"safety\": 2"))
            .unwrap_err();
        assert!(
            e.message
                .contains("`criterion_scores.safety` to be 0 or 1, found 2"),
            "{}",
            e.message
        );

        // User criteria: one `name: question` per line.
        let own = binary("grounded: Cites only the given document?\nconcise: Under 100 words?");
        assert_eq!(own.binary_criteria().unwrap().len(), 2);
        let parsed = own
            .parse("{\"criterion_scores\": {\"grounded\": 1, \"concise\": 1}, \"label\": \"pass\"}")
            .unwrap();
        assert_eq!(parsed.label, "pass");
        assert!(binary("no colon here").validate().is_err());
        assert!(binary("a: one?\na: again?").validate().is_err());
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
