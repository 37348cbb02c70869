//! The design of a judge run: which judgments it makes and how each prompt is shown. The field
//! guide (seed 001, Part V, Tip 14): randomise the output order and the criterion order, blind
//! the judge to model identities; repeat judgments for self-consistency (Part IV). Seed 003
//! (§4.3, App. B): prompt variations `typo`, `newline` and `paraphrase` whose scores the IRT
//! diagnostics compare with the original prompt's.
//!
//! ```text
//! judgments = items × repeats (0 … r − 1) × variants ("" the original, then each variation)
//!             × orders (ab; ab and ba; or one of them drawn per item, repeat and variant)
//! ```
//!
//! Each judgment has the key (item, order, repeat, variant), the worker's idempotent key.
//! Randomised choices depend only on the seed and the key, through a ChaCha8 stream seeded by
//! an FNV-1a hash of them, so they do not depend on the items' order or on which judgments a
//! resumed run has still to make.
//!
//! Variations are edits of the prompt's own text, computed once from the seed on the prompt
//! with every item text left out, and applied identically to every judgment (seed 003 App. B:
//! "applied identically to all models"); item texts are filled in afterwards, so they are
//! never edited. Words that carry meaning for the answer's parser are protected: the labels,
//! the criterion names, the prompt's keywords (`json`, `format`, `feedback`, `response`, …),
//! and anything inside quotes, braces or backticks (the JSON schemas and output formats).
//! - `typo`: five distinct eligible words (ASCII letters only, four or more) each get one
//!   character-level error: two adjacent letters swapped, a letter doubled or a letter dropped.
//!   Seed 003 picks the five words of highest attention in Qwen3-8B and perturbs them with
//!   AugLy (an adjacent swap as fallback); neither exists here, so the words are drawn
//!   uniformly from the seed.
//! - `newline`: an extra line break after three distinct lines drawn from the prompt's lines
//!   without an item text (fewer when it has fewer).
//! - `paraphrase`: up to five eligible words found in [`SYNONYMS`], a table of the verbs and
//!   adjectives of judge prompts, replaced by their synonym (capitalisation kept). Seed 003 asks
//!   GPT-4o-mini for synonyms of five NLTK-tagged verbs and adjectives; the table stands in for
//!   both.
//!
//! Criterion order (criteria and binary prompts): a permutation per judgment. Blinding: the
//! names in [`BRANDS`] and the user's `blind_names` are replaced by `[model]` in the responses
//! (whole words, any case; longer names first); the instruction is left as written, since the
//! task may name a model.
//!
//! Arguments: [`RunDesign`] (the settings, with their seed) and the [`PromptParams`] it is
//! checked against ([`RunDesign::prepare`]). Returns: [`Design`], which lists the judgments of
//! a list of item ids ([`Design::judgments`]) and renders each one ([`Design::render`]).
//! Errors: [`Error::InvalidParam`] for zero repeats, a repeated variation, swapped orders or
//! criterion shuffling on a prompt that has no second response or no criteria, or an empty
//! blinded name; the prompt's own errors.

use crate::io::error::{Error, Result};
use crate::judging::answer_format::AnswerFormat;
use crate::judging::judge_prompt::{PromptItem, PromptKind, PromptParams, Rendered, CRITERIA};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Which orders a pairwise prompt shows the two responses in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Orders {
    /// As in the file: `response` is A.
    #[default]
    Ab,
    /// Both orders, for position bias and averaging.
    Both,
    /// One order per item, repeat and variant, AB or BA with probability ½ each.
    Random,
}

/// The order one judgment shows the responses in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    Ab,
    Ba,
}

impl Order {
    /// `ab` or `ba`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ab => "ab",
            Self::Ba => "ba",
        }
    }
}

/// A prompt variation of seed 003.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Perturbation {
    Typo,
    Newline,
    Paraphrase,
}

impl Perturbation {
    /// The variant's name in judgment keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Typo => "typo",
            Self::Newline => "newline",
            Self::Paraphrase => "paraphrase",
        }
    }
}

/// Settings of a run's design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunDesign {
    #[serde(default)]
    pub orders: Orders,
    /// Judgments per item, order and variant (≥ 1).
    #[serde(default = "one")]
    pub repeats: u32,
    /// Variations judged besides the original prompt.
    #[serde(default)]
    pub variants: Vec<Perturbation>,
    /// Shuffle the criteria per judgment (criteria and binary prompts).
    #[serde(default)]
    pub shuffle_criteria: bool,
    /// Replace model and brand names in the responses by `[model]`.
    #[serde(default)]
    pub blind: bool,
    /// Names blinded besides [`BRANDS`].
    #[serde(default)]
    pub blind_names: Vec<String>,
    /// Seed of the random orders, criterion orders and variations; recorded with the run.
    #[serde(default)]
    pub seed: u64,
}

fn one() -> u32 {
    1
}

impl Default for RunDesign {
    fn default() -> Self {
        Self {
            orders: Orders::Ab,
            repeats: 1,
            variants: Vec::new(),
            shuffle_criteria: false,
            blind: false,
            blind_names: Vec::new(),
            seed: 0,
        }
    }
}

/// Brand and model names blinded by default.
pub const BRANDS: [&str; 24] = [
    "ChatGPT",
    "GPT-4o",
    "GPT-4",
    "GPT-3.5",
    "GPT-3",
    "GPT",
    "OpenAI",
    "Claude",
    "Anthropic",
    "Gemini",
    "Bard",
    "PaLM",
    "LLaMA",
    "Meta AI",
    "Mistral",
    "Mixtral",
    "Vicuna",
    "Alpaca",
    "Falcon",
    "Qwen",
    "DeepSeek",
    "Gemma",
    "SmolLM",
    "Copilot",
];

/// The paraphrase table: a verb or adjective of judge prompts and its synonym.
pub const SYNONYMS: [(&str, &str); 32] = [
    ("evaluate", "assess"),
    ("assess", "evaluate"),
    ("write", "compose"),
    ("given", "provided"),
    ("detailed", "thorough"),
    ("strictly", "rigorously"),
    ("better", "superior"),
    ("mention", "note"),
    ("examining", "inspecting"),
    ("indicate", "specify"),
    ("refer", "consult"),
    ("generate", "produce"),
    ("careful", "meticulous"),
    ("expert", "specialist"),
    ("explain", "clarify"),
    ("compare", "contrast"),
    ("follows", "adheres to"),
    ("follow", "adhere to"),
    ("useful", "helpful"),
    ("relevant", "pertinent"),
    ("accurate", "correct"),
    ("clear", "lucid"),
    ("fluent", "smooth"),
    ("precisely", "exactly"),
    ("important", "crucial"),
    ("missing", "absent"),
    ("correct", "accurate"),
    ("complete", "full"),
    ("provides", "offers"),
    ("addressed", "handled"),
    ("requested", "asked-for"),
    ("respected", "honoured"),
];

/// Words never edited (compared in lower case), besides the labels and criterion names.
const PROTECTED: [&str; 20] = [
    "json",
    "format",
    "feedback",
    "result",
    "response",
    "responses",
    "completion",
    "completions",
    "instruction",
    "rubric",
    "rubrics",
    "score",
    "scores",
    "criterion",
    "criteria",
    "preference",
    "label",
    "analysis",
    "output",
    "tie",
];

/// Where the item texts go in a prompt's template (Unicode private-use characters).
const SLOTS: [char; 3] = ['\u{E000}', '\u{E001}', '\u{E002}'];

/// One edit of a prompt's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// Every whole-word `from` becomes `to`.
    Word { from: String, to: String },
    /// An extra line break after every line equal to `line`.
    NewlineAfter { line: String },
}

/// A variation and its edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    pub name: Perturbation,
    pub edits: Vec<Edit>,
}

/// One judgment of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    /// Index of the item in the list given to [`Design::judgments`].
    pub item: usize,
    pub order: Order,
    pub repeat: u32,
    /// `""` for the original prompt, else the variation's name.
    pub variant: String,
}

/// A design checked against its prompt, with the variations' edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    pub params: RunDesign,
    pub prompt: PromptParams,
    pub variants: Vec<Variant>,
    /// [`BRANDS`] and the user's names, longest first (empty without blinding).
    blind_names: Vec<String>,
}

impl RunDesign {
    /// Checks the settings against `prompt`.
    pub fn validate(&self, prompt: &PromptParams) -> Result<()> {
        prompt.validate()?;
        if self.repeats == 0 {
            return Err(Error::param("repeats", "expected at least 1, found 0"));
        }
        for (k, v) in self.variants.iter().enumerate() {
            if self.variants[..k].contains(v) {
                return Err(Error::param(
                    "variants",
                    format!("the variation `{}` appears twice", v.as_str()),
                ));
            }
        }
        if self.orders != Orders::Ab && !prompt.pairwise() {
            return Err(Error::param(
                "orders",
                "swapping the order needs a pairwise prompt (relative or criteria)",
            ));
        }
        if self.shuffle_criteria && criteria_count(prompt)? == 0 {
            return Err(Error::param(
                "shuffle_criteria",
                "shuffling criteria needs a prompt with criteria (criteria or binary)",
            ));
        }
        if self.blind_names.iter().any(|n| n.trim().is_empty()) {
            return Err(Error::param(
                "blind_names",
                "expected non-empty names, found an empty one",
            ));
        }
        Ok(())
    }

    /// Checks the settings and computes the variations' edits on `prompt`.
    pub fn prepare(&self, prompt: &PromptParams) -> Result<Design> {
        self.validate(prompt)?;
        let template = template(prompt, None)?;
        let variants = self
            .variants
            .iter()
            .map(|&name| Variant {
                name,
                edits: edits(name, &template, prompt, self.seed),
            })
            .collect();
        let mut blind_names: Vec<String> = if self.blind {
            BRANDS
                .iter()
                .map(|b| (*b).to_owned())
                .chain(self.blind_names.iter().map(|n| n.trim().to_owned()))
                .collect()
        } else {
            Vec::new()
        };
        blind_names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        Ok(Design {
            params: self.clone(),
            prompt: prompt.clone(),
            variants,
            blind_names,
        })
    }
}

impl Design {
    /// Every judgment of the run over items with these ids, item by item.
    pub fn judgments(&self, ids: &[&str]) -> Vec<Planned> {
        let variants: Vec<&str> = std::iter::once("")
            .chain(self.variants.iter().map(|v| v.name.as_str()))
            .collect();
        let mut out = Vec::new();
        for (item, id) in ids.iter().enumerate() {
            for repeat in 0..self.params.repeats {
                for &variant in &variants {
                    let orders: Vec<Order> = match self.params.orders {
                        Orders::Ab => vec![Order::Ab],
                        Orders::Both => vec![Order::Ab, Order::Ba],
                        Orders::Random => {
                            let mut rng = self.stream(id, repeat, variant, "order");
                            vec![if rng.random_bool(0.5) {
                                Order::Ba
                            } else {
                                Order::Ab
                            }]
                        }
                    };
                    out.extend(orders.into_iter().map(|order| Planned {
                        item,
                        order,
                        repeat,
                        variant: variant.to_owned(),
                    }));
                }
            }
        }
        out
    }

    /// The messages of judgment `planned` of the item with id `id`: responses swapped for
    /// `ba`, names blinded, criteria in this judgment's order, the variation's edits made.
    pub fn render(&self, id: &str, item: &PromptItem, planned: &Planned) -> Result<Rendered> {
        let mut shown = match planned.order {
            Order::Ab => item.clone(),
            Order::Ba => PromptItem {
                instruction: item.instruction.clone(),
                response: item.response_b.clone().unwrap_or_default(),
                response_b: Some(item.response.clone()),
            },
        };
        if !self.blind_names.is_empty() {
            shown.response = blind(&shown.response, &self.blind_names);
            shown.response_b = shown.response_b.map(|r| blind(&r, &self.blind_names));
        }
        let permutation = self.criteria_order(id, planned)?;
        let mut template = template(&self.prompt, permutation.as_deref())?;
        if let Some(variant) = self
            .variants
            .iter()
            .find(|v| v.name.as_str() == planned.variant)
        {
            template.system = apply(&template.system, &variant.edits);
            template.user = apply(&template.user, &variant.edits);
        }
        let texts = [
            shown.instruction.as_str(),
            shown.response.as_str(),
            shown.response_b.as_deref().unwrap_or_default(),
        ];
        Ok(Rendered {
            system: fill(&template.system, &texts),
            user: fill(&template.user, &texts),
        })
    }

    /// The shape of judgment `planned`'s answer (the JSON prompts, with their criteria in
    /// this judgment's order), for constrained decoding.
    pub fn answer_format(&self, id: &str, planned: &Planned) -> Result<Option<AnswerFormat>> {
        self.prompt
            .answer_format(self.criteria_order(id, planned)?.as_deref())
    }

    /// The order judgment `planned` lists the criteria in, when they are shuffled.
    fn criteria_order(&self, id: &str, planned: &Planned) -> Result<Option<Vec<usize>>> {
        if !self.params.shuffle_criteria {
            return Ok(None);
        }
        let mut order: Vec<usize> = (0..criteria_count(&self.prompt)?).collect();
        order.shuffle(&mut self.stream(
            id,
            planned.repeat,
            &planned.variant,
            planned.order.as_str(),
        ));
        Ok(Some(order))
    }

    fn stream(&self, id: &str, repeat: u32, variant: &str, purpose: &str) -> ChaCha8Rng {
        stream(
            self.params.seed,
            &[id, &repeat.to_string(), variant, purpose],
        )
    }
}

/// A ChaCha8 stream seeded by the FNV-1a hash of the seed and the parts.
fn stream(seed: u64, parts: &[&str]) -> ChaCha8Rng {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&seed.to_le_bytes());
    for part in parts {
        eat(&(part.len() as u64).to_le_bytes());
        eat(part.as_bytes());
    }
    ChaCha8Rng::seed_from_u64(h)
}

/// How many criteria the prompt lists (0 for the Prometheus prompts).
fn criteria_count(prompt: &PromptParams) -> Result<usize> {
    Ok(match prompt.kind {
        PromptKind::Criteria => CRITERIA.len(),
        PromptKind::Binary => prompt.binary_criteria()?.len(),
        PromptKind::Absolute { .. } | PromptKind::Relative | PromptKind::Template => 0,
    })
}

/// The prompt with the item texts left out (each a [`SLOTS`] character).
fn template(prompt: &PromptParams, criteria: Option<&[usize]>) -> Result<Rendered> {
    let slot = |k: usize| SLOTS[k].to_string();
    prompt.render(
        &PromptItem {
            instruction: slot(0),
            response: slot(1),
            response_b: prompt.pairwise().then(|| slot(2)),
        },
        criteria,
    )
}

/// The template with its slots replaced by `texts`, in one pass (item texts are never
/// scanned again).
fn fill(template: &str, texts: &[&str; 3]) -> String {
    let mut out =
        String::with_capacity(template.len() + texts.iter().map(|t| t.len()).sum::<usize>());
    for c in template.chars() {
        match SLOTS.iter().position(|&s| s == c) {
            Some(k) => out.push_str(texts[k]),
            None => out.push(c),
        }
    }
    out
}

/// The words of `text` a variation may edit, in order of appearance: runs of ASCII letters
/// of four or more, not touching a digit, `_` or `-`, outside quotes, braces and backticks,
/// and not protected.
fn eligible_words(text: &str, protected: &[String]) -> Vec<String> {
    let mut words = Vec::new();
    let (mut quoted, mut braces, mut ticks) = (false, 0usize, false);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' => quoted = !quoted,
            '`' => ticks = !ticks,
            '{' => braces += 1,
            '}' => braces = braces.saturating_sub(1),
            '\n' => quoted = false,
            _ => {}
        }
        if !c.is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_alphabetic() {
            i += 1;
        }
        let joined =
            |k: Option<&char>| k.is_some_and(|c| c.is_ascii_digit() || *c == '_' || *c == '-');
        let touches = (start > 0 && joined(chars.get(start - 1))) || joined(chars.get(i));
        let word: String = chars[start..i].iter().collect();
        let free = !quoted && braces == 0 && !ticks && !touches;
        if free && word.len() >= 4 && !protected.contains(&word.to_ascii_lowercase()) {
            words.push(word);
        }
    }
    words
}

/// The labels, criterion names and [`PROTECTED`], lower case.
fn protected_words(prompt: &PromptParams) -> Vec<String> {
    let mut words: Vec<String> = PROTECTED.iter().map(|w| (*w).to_owned()).collect();
    words.extend(prompt.labels().iter().map(|l| l.to_ascii_lowercase()));
    words.extend(CRITERIA.iter().map(|(n, _, _)| (*n).to_owned()));
    if let Ok(criteria) = prompt.binary_criteria() {
        for (name, _) in criteria {
            words.extend(name.split('_').map(str::to_ascii_lowercase));
        }
    }
    words
}

/// The edits of variation `name` on the template, drawn from `seed`.
fn edits(name: Perturbation, template: &Rendered, prompt: &PromptParams, seed: u64) -> Vec<Edit> {
    let mut rng = stream(seed, &["variation", name.as_str()]);
    let protected = protected_words(prompt);
    let text = format!("{}\n{}", template.system, template.user);
    let mut words = eligible_words(&text, &protected);
    let mut seen = Vec::new();
    words.retain(|w| {
        let new = !seen.contains(w);
        seen.push(w.clone());
        new
    });
    match name {
        Perturbation::Typo => {
            words.shuffle(&mut rng);
            words
                .into_iter()
                .take(5)
                .map(|from| {
                    let to = typo(&from, &mut rng);
                    Edit::Word { from, to }
                })
                .collect()
        }
        Perturbation::Paraphrase => {
            let mut found: Vec<(String, String)> = words
                .into_iter()
                .filter_map(|w| {
                    let lower = w.to_ascii_lowercase();
                    SYNONYMS.iter().find(|(s, _)| *s == lower).map(|(_, to)| {
                        let to = if w.starts_with(|c: char| c.is_ascii_uppercase()) {
                            capitalise(to)
                        } else {
                            (*to).to_owned()
                        };
                        (w, to)
                    })
                })
                .collect();
            found.shuffle(&mut rng);
            found
                .into_iter()
                .take(5)
                .map(|(from, to)| Edit::Word { from, to })
                .collect()
        }
        Perturbation::Newline => {
            let mut lines: Vec<String> = Vec::new();
            for line in text.lines() {
                let usable = !line.trim().is_empty() && !line.contains(SLOTS);
                if usable && !lines.iter().any(|l| l == line) {
                    lines.push(line.to_owned());
                }
            }
            lines.shuffle(&mut rng);
            lines
                .into_iter()
                .take(3)
                .map(|line| Edit::NewlineAfter { line })
                .collect()
        }
    }
}

/// One character-level error in `word` (ASCII letters, four or more): two adjacent letters
/// swapped (where they differ), a letter doubled, or a letter dropped.
fn typo(word: &str, rng: &mut ChaCha8Rng) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let n = chars.len();
    let swaps: Vec<usize> = (0..n - 1).filter(|&i| chars[i] != chars[i + 1]).collect();
    match rng.random_range(0..3) {
        0 if !swaps.is_empty() => {
            let i = swaps[rng.random_range(0..swaps.len())];
            chars.swap(i, i + 1);
        }
        1 => {
            let i = rng.random_range(0..n);
            chars.insert(i, chars[i]);
        }
        _ => {
            chars.remove(rng.random_range(0..n));
        }
    }
    chars.into_iter().collect()
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Whether `c` continues a word.
fn word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// `text` with the edits made: whole-word replacements (case as written), extra line breaks.
fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_owned();
    for edit in edits {
        out = match edit {
            Edit::Word { from, to } => replace_words(&out, from, to, false),
            Edit::NewlineAfter { line } => {
                let mut s = String::with_capacity(out.len() + 1);
                for (k, l) in out.split('\n').enumerate() {
                    if k > 0 {
                        s.push('\n');
                    }
                    s.push_str(l);
                    if l == line {
                        s.push('\n');
                    }
                }
                s
            }
        };
    }
    out
}

/// `text` with every whole-word `from` (ASCII case ignored when `any_case`) replaced by `to`.
fn replace_words(text: &str, from: &str, to: &str, any_case: bool) -> String {
    let (hay, needle) = if any_case {
        (text.to_ascii_lowercase(), from.to_ascii_lowercase())
    } else {
        (text.to_owned(), from.to_owned())
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    let mut search = 0;
    while let Some(found) = hay[search..].find(&needle) {
        let start = search + found;
        let end = start + needle.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !word_char(before) && !word_char(after) {
            out.push_str(&text[rest..start]);
            out.push_str(to);
            rest = end;
        }
        search = end;
    }
    out.push_str(&text[rest..]);
    out
}

/// `text` with each name replaced by `[model]` (whole words, any case).
fn blind(text: &str, names: &[String]) -> String {
    names.iter().fold(text.to_owned(), |t, name| {
        replace_words(&t, name, "[model]", true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::answer_format::Segment;

    fn relative() -> PromptParams {
        PromptParams {
            kind: PromptKind::Relative,
            rubric: "Which response is more helpful?".to_owned(),
            template: None,
        }
    }

    fn item() -> PromptItem {
        PromptItem {
            instruction: "Evaluate this: write a poem.".to_owned(),
            response: "As ChatGPT, I write: roses evaluate.".to_owned(),
            response_b: Some("gpt-4 here. Claude-like text, Claudette.".to_owned()),
        }
    }

    fn planned(order: Order, variant: &str) -> Planned {
        Planned {
            item: 0,
            order,
            repeat: 0,
            variant: variant.to_owned(),
        }
    }

    #[test]
    fn judgments_cover_items_repeats_variants_and_orders() {
        let design = RunDesign {
            orders: Orders::Both,
            repeats: 2,
            variants: vec![Perturbation::Typo, Perturbation::Newline],
            ..Default::default()
        }
        .prepare(&relative())
        .unwrap();
        let all = design.judgments(&["x", "y"]);
        // 2 items × 2 repeats × 3 variants × 2 orders.
        assert_eq!(all.len(), 24);
        assert_eq!(all[0], planned(Order::Ab, ""));
        assert_eq!(all[1], planned(Order::Ba, ""));
        assert_eq!(all[2].variant, "typo");
        assert_eq!(all[5].variant, "newline");
        assert_eq!((all[6].repeat, all[12].item), (1, 1));
        let mut keys: Vec<_> = all
            .iter()
            .map(|p| (p.item, p.order.as_str(), p.repeat, p.variant.clone()))
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 24, "every key once");
    }

    #[test]
    fn random_orders_are_seeded_per_item_and_balanced() {
        let ids: Vec<String> = (0..2000).map(|i| format!("item{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let design = |seed| {
            RunDesign {
                orders: Orders::Random,
                seed,
                ..Default::default()
            }
            .prepare(&relative())
            .unwrap()
        };
        let a = design(1).judgments(&refs);
        assert_eq!(a.len(), 2000);
        assert_eq!(a, design(1).judgments(&refs));
        assert_ne!(a, design(2).judgments(&refs));
        // The draw depends on the id, not on the position in the list.
        let tail = design(1).judgments(&refs[1000..]);
        assert!(tail.iter().zip(&a[1000..]).all(|(t, f)| t.order == f.order));
        // Binomial(2000, ½): sd ≈ 22.4, so ±100 is beyond 4 sd.
        let ba = a.iter().filter(|p| p.order == Order::Ba).count();
        assert!((900..=1100).contains(&ba), "{ba}");
    }

    #[test]
    fn swapped_order_and_blinding_change_only_the_responses() {
        let design = RunDesign {
            orders: Orders::Both,
            blind: true,
            blind_names: vec!["Claudette".to_owned()],
            ..Default::default()
        }
        .prepare(&relative())
        .unwrap();
        let shown = design
            .render("x", &item(), &planned(Order::Ba, ""))
            .unwrap();
        // B's text is shown as A; names are blinded as whole words, any case; the instruction
        // keeps its text.
        assert!(shown.user.contains(
            "Instruction: Evaluate this: write a poem.\n\nResponse A: [model] here. \
             [model]-like text, [model].\n\nResponse B: As [model], I write: roses evaluate."
        ));
        assert_eq!(
            blind("Claude-like, claude, XClaude", &design.blind_names),
            "[model]-like, [model], XClaude"
        );
        let plain = RunDesign::default().prepare(&relative()).unwrap();
        let unblinded = plain.render("x", &item(), &planned(Order::Ab, "")).unwrap();
        assert_eq!(unblinded, relative().render(&item(), None).unwrap());
    }

    #[test]
    fn variations_edit_the_prompt_but_never_the_item_or_protected_words() {
        let prompt = relative();
        let design = RunDesign {
            variants: vec![
                Perturbation::Typo,
                Perturbation::Newline,
                Perturbation::Paraphrase,
            ],
            seed: 42,
            ..Default::default()
        }
        .prepare(&prompt)
        .unwrap();
        let original = prompt.render(&item(), None).unwrap();
        for variant in &design.variants {
            let shown = design
                .render("x", &item(), &planned(Order::Ab, variant.name.as_str()))
                .unwrap();
            assert_ne!(shown, original, "{:?}", variant.name);
            // The item texts are intact, though they contain edited words ("write",
            // "evaluate").
            assert!(shown
                .user
                .contains("Instruction: Evaluate this: write a poem."));
            assert!(shown.user.contains("As ChatGPT, I write: roses evaluate."));
            // The parser's words survive.
            for word in ["[RESULT]", "Response A:", "Response B:", "Feedback:"] {
                assert!(shown.user.contains(word), "{word} in {:?}", variant.name);
            }
        }
        let typo = &design.variants[0].edits;
        assert_eq!(typo.len(), 5);
        for edit in typo {
            let Edit::Word { from, to } = edit else {
                panic!("{edit:?}")
            };
            assert!(from.len() >= 4 && from != to);
            assert!(!PROTECTED.contains(&from.to_ascii_lowercase().as_str()));
            // One error: lengths differ by at most one and the letters are the same multiset
            // for a swap.
            assert!(from.len().abs_diff(to.len()) <= 1, "{from} → {to}");
        }
        assert_eq!(design.variants[1].edits.len(), 3);
        let newline = design
            .render("x", &item(), &planned(Order::Ab, "newline"))
            .unwrap();
        let lines = |r: &Rendered| format!("{}\n{}", r.system, r.user).matches('\n').count();
        assert_eq!(lines(&newline), lines(&original) + 3);
        for edit in &design.variants[2].edits {
            let Edit::Word { from, to } = edit else {
                panic!("{edit:?}")
            };
            let lower = from.to_ascii_lowercase();
            assert!(SYNONYMS
                .iter()
                .any(|(s, t)| *s == lower && t.eq_ignore_ascii_case(to)));
        }
        // Fixed by the seed; another seed edits other words.
        let again = RunDesign {
            variants: vec![Perturbation::Typo],
            seed: 42,
            ..Default::default()
        }
        .prepare(&prompt)
        .unwrap();
        assert_eq!(again.variants[0], design.variants[0]);
        let other = RunDesign {
            variants: vec![Perturbation::Typo],
            seed: 43,
            ..Default::default()
        }
        .prepare(&prompt)
        .unwrap();
        assert_ne!(other.variants[0], design.variants[0]);
    }

    #[test]
    fn eligible_words_skip_quotes_braces_ticks_and_joined_words() {
        let protected = vec!["json".to_owned()];
        let words = eligible_words(
            "Write \"quoted words\" then {\"schema\": braced} and `ticked` JSON words_x \
             x-word item12 plain",
            &protected,
        );
        assert_eq!(words, vec!["Write", "then", "plain"]);
    }

    #[test]
    fn shuffled_criteria_are_a_permutation_that_still_parses() {
        let prompt = PromptParams {
            kind: PromptKind::Binary,
            rubric: "alpha: First?\nbeta: Second?\ngamma: Third?\ndelta: Fourth?".to_owned(),
            template: None,
        };
        let design = RunDesign {
            shuffle_criteria: true,
            seed: 3,
            ..Default::default()
        }
        .prepare(&prompt)
        .unwrap();
        let orders: Vec<Vec<usize>> = (0..20)
            .map(|k| {
                let shown = design
                    .render(&format!("i{k}"), &item(), &planned(Order::Ab, ""))
                    .unwrap();
                let names = ["alpha", "beta", "gamma", "delta"];
                let mut at: Vec<(usize, usize)> = names
                    .iter()
                    .enumerate()
                    .map(|(c, name)| (shown.system.find(&format!(". {name}:")).unwrap(), c))
                    .collect();
                at.sort();
                let order: Vec<usize> = at.into_iter().map(|(_, c)| c).collect();
                // The constrained answer asks for the scores in the order shown.
                let format = design
                    .answer_format(&format!("i{k}"), &planned(Order::Ab, ""))
                    .unwrap()
                    .unwrap();
                let scores: String = format
                    .segments
                    .iter()
                    .filter_map(|s| match s {
                        Segment::Literal(text) => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                let keys: Vec<usize> = order
                    .iter()
                    .map(|&c| scores.find(&format!("\"{}\"", names[c])).unwrap())
                    .collect();
                assert!(keys.is_sorted(), "{order:?}: {scores}");
                order
            })
            .collect();
        assert!(orders.iter().any(|o| o != &[0, 1, 2, 3]));
        assert!(
            orders
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
                > 3
        );
        // Scores are read by name, whatever the order shown.
        let answer = "```json\n{\"analysis\": \"ok\", \"criterion_scores\": {\"delta\": 1, \
                      \"beta\": 1, \"alpha\": 1, \"gamma\": 0}, \"label\": \"fail\"}\n```";
        let parsed = prompt.parse(answer).unwrap();
        assert_eq!(parsed.binary.unwrap().scores, vec![1, 1, 0, 1]);
    }

    #[test]
    fn settings_are_checked_against_the_prompt() {
        let absolute = PromptParams {
            kind: PromptKind::Absolute {
                min_score: 1,
                max_score: 5,
            },
            rubric: "Helpful?".to_owned(),
            template: None,
        };
        let err = |d: RunDesign, p: &PromptParams| d.prepare(p).unwrap_err().to_string();
        assert!(err(
            RunDesign {
                orders: Orders::Random,
                ..Default::default()
            },
            &absolute
        )
        .contains("pairwise"));
        assert!(err(
            RunDesign {
                shuffle_criteria: true,
                ..Default::default()
            },
            &relative()
        )
        .contains("criteria"));
        assert!(err(
            RunDesign {
                repeats: 0,
                ..Default::default()
            },
            &absolute
        )
        .contains("repeats"));
        assert!(err(
            RunDesign {
                variants: vec![Perturbation::Typo, Perturbation::Typo],
                ..Default::default()
            },
            &absolute
        )
        .contains("twice"));
        assert!(err(
            RunDesign {
                blind_names: vec![" ".to_owned()],
                ..Default::default()
            },
            &absolute
        )
        .contains("blind_names"));
    }
}
