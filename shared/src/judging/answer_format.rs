//! The shape of a JSON prompt's answer, for decoding it under constraint: the criteria
//! prompt's block (seed 002) and the binary rubric's (seed 001), written as a sequence of
//! segments that a decoder walks character by character, so that every answer it can produce
//! parses.
//!
//! Model: an answer is the concatenation of its segments in order: [`Segment::Literal`] text
//! written as is; [`Segment::Choice`] one of a few strings (a criterion's score); the
//! [`Segment::Verdict`], one of the prompt's labels, where p_s is read; [`Segment::Text`] the
//! characters of a JSON string (anything but `"`, `\` and control characters, so it needs no
//! escapes; the decoder bounds its length); and [`Segment::Tail`], free text to the end of the
//! answer (the explanation the criteria prompt asks for after its block). A [`Cursor`] is the
//! set of places in the format a prefix of an answer can end at (a nondeterministic walk: after
//! a score `1` the answer may go on to `10` or to the next literal); a text the format cannot
//! continue with has no cursor.
//!
//! Arguments: the segments ([`AnswerFormat::criteria`], [`AnswerFormat::binary`]) and the
//! text decoded so far ([`Cursor::advance`]).
//!
//! Returns: the cursor's view of what may come next ([`Cursor::forced`], [`Cursor::at_verdict`],
//! [`Cursor::in_text`], [`Cursor::complete`]); the same format as a GBNF grammar for servers that
//! take one ([`AnswerFormat::gbnf`]).
//!
//! Errors: none; a text that leaves the format gives `None` from [`Cursor::advance`].

use serde::{Deserialize, Serialize};

/// One part of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// Written as is.
    Literal(String),
    /// One of these strings.
    Choice(Vec<String>),
    /// One of the verdict's labels: the score position.
    Verdict(Vec<String>),
    /// A JSON string's characters, without escapes.
    Text,
    /// Anything, to the end of the answer.
    Tail,
}

/// An answer's segments, adjacent literals merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerFormat {
    pub segments: Vec<Segment>,
}

impl AnswerFormat {
    fn build(parts: Vec<Segment>) -> Self {
        let mut segments: Vec<Segment> = Vec::new();
        for part in parts {
            match (segments.last_mut(), part) {
                (Some(Segment::Literal(last)), Segment::Literal(more)) => last.push_str(&more),
                (_, part) => segments.push(part),
            }
        }
        Self { segments }
    }

    /// The criteria prompt's answer: a fenced JSON block scoring `completion_A` and then
    /// `completion_B` on `criteria` (in the order shown) from 1 to 10, the preference among
    /// `labels`, the closing fence, then free text.
    pub fn criteria(criteria: &[&str], labels: &[String]) -> Self {
        let scores: Vec<String> = (1..=10).map(|s| s.to_string()).collect();
        let mut parts = vec![Segment::Literal("```json\n{".to_owned())];
        for (k, side) in ["completion_A", "completion_B"].iter().enumerate() {
            let comma = if k == 0 { "" } else { ", " };
            parts.push(Segment::Literal(format!("{comma}{}: {{", quoted(side))));
            for (c, name) in criteria.iter().enumerate() {
                let comma = if c == 0 { "" } else { ", " };
                parts.push(Segment::Literal(format!("{comma}{}: ", quoted(name))));
                parts.push(Segment::Choice(scores.clone()));
            }
            parts.push(Segment::Literal("}".to_owned()));
        }
        parts.push(Segment::Literal(", \"preference\": \"".to_owned()));
        parts.push(Segment::Verdict(labels.to_vec()));
        parts.push(Segment::Literal("\"}\n```\n".to_owned()));
        parts.push(Segment::Tail);
        Self::build(parts)
    }

    /// The binary rubric's answer: a fenced JSON block with the analysis (a string), each of
    /// `criteria` (in the order shown) scored 0 or 1, and the label among `labels`; nothing
    /// after it.
    pub fn binary(criteria: &[&str], labels: &[String]) -> Self {
        let mut parts = vec![
            Segment::Literal("```json\n{\"analysis\": \"".to_owned()),
            Segment::Text,
            Segment::Literal("\", \"criterion_scores\": {".to_owned()),
        ];
        for (c, name) in criteria.iter().enumerate() {
            let comma = if c == 0 { "" } else { ", " };
            parts.push(Segment::Literal(format!("{comma}{}: ", quoted(name))));
            parts.push(Segment::Choice(vec!["0".to_owned(), "1".to_owned()]));
        }
        parts.push(Segment::Literal("}, \"label\": \"".to_owned()));
        parts.push(Segment::Verdict(labels.to_vec()));
        parts.push(Segment::Literal("\"}\n```".to_owned()));
        Self::build(parts)
    }

    /// Where an answer starts.
    pub fn start(&self) -> Cursor<'_> {
        let mut cursor = Cursor {
            format: self,
            places: Vec::new(),
        };
        cursor.enter(Place {
            segment: 0,
            option: 0,
            offset: 0,
        });
        cursor
    }

    /// The format as a GBNF grammar (llama.cpp's): each text segment at most `text_chars`
    /// characters, the tail at most `tail_chars`.
    pub fn gbnf(&self, text_chars: usize, tail_chars: usize) -> String {
        let alternatives = |options: &[String]| {
            let quoted: Vec<String> = options.iter().map(|o| gbnf_literal(o)).collect();
            format!("({})", quoted.join(" | "))
        };
        let parts: Vec<String> = self
            .segments
            .iter()
            .map(|segment| match segment {
                Segment::Literal(text) => gbnf_literal(text),
                Segment::Choice(options) | Segment::Verdict(options) => alternatives(options),
                Segment::Text => format!("[^\"\\\\\\x00-\\x1f\\x7f]{{0,{text_chars}}}"),
                Segment::Tail => format!("[^\\x00]{{0,{tail_chars}}}"),
            })
            .collect();
        format!("root ::= {}\n", parts.join(" "))
    }

    /// The most characters an answer can have when each text segment and the tail hold at
    /// most `free_chars` (a token budget that fits any such answer, each token writing at
    /// least one character).
    pub fn most_chars(&self, free_chars: usize) -> usize {
        self.segments
            .iter()
            .map(|segment| match segment {
                Segment::Literal(text) => text.chars().count(),
                Segment::Choice(options) | Segment::Verdict(options) => {
                    options.iter().map(|o| o.chars().count()).max().unwrap_or(0)
                }
                Segment::Text | Segment::Tail => free_chars,
            })
            .sum()
    }
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// `text` as a GBNF string literal.
pub fn gbnf_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `c` may stand in a [`Segment::Text`].
fn text_char(c: char) -> bool {
    !matches!(c, '"' | '\\') && !c.is_control()
}

/// A place in the format: before byte `offset` of segment `segment`'s `option`-th string (the
/// literal's text, a choice's option), or anywhere in a text or the tail (`offset` 0).
/// `segment` past the last is the end of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    segment: usize,
    option: usize,
    offset: usize,
}

/// The places a prefix of an answer can end at (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor<'a> {
    format: &'a AnswerFormat,
    places: Vec<Place>,
}

impl<'a> Cursor<'a> {
    /// The string of `place`'s segment and option, for literals and choices.
    fn string(&self, place: Place) -> Option<&'a str> {
        match self.format.segments.get(place.segment)? {
            Segment::Literal(text) => Some(text),
            Segment::Choice(options) | Segment::Verdict(options) => {
                options.get(place.option).map(String::as_str)
            }
            Segment::Text | Segment::Tail => None,
        }
    }

    /// Adds `place` and every place reached from it without a character: the start of each
    /// option of a choice, the end of a finished string, the end of a text.
    fn enter(&mut self, place: Place) {
        if self.places.contains(&place) {
            return;
        }
        let next = Place {
            segment: place.segment + 1,
            option: 0,
            offset: 0,
        };
        match self.format.segments.get(place.segment) {
            None => self.places.push(place),
            Some(Segment::Choice(options) | Segment::Verdict(options))
                if place.offset == 0 && place.option == 0 =>
            {
                self.places.push(place);
                for option in 1..options.len() {
                    self.enter(Place { option, ..place });
                }
            }
            Some(Segment::Text) => {
                self.places.push(place);
                self.enter(next);
            }
            Some(Segment::Tail) => self.places.push(place),
            Some(_) => {
                if self.string(place).is_some_and(|s| place.offset >= s.len()) {
                    self.enter(next);
                } else {
                    self.places.push(place);
                }
            }
        }
    }

    /// The cursor after `text`, or `None` when the format cannot continue with it.
    pub fn advance(&self, text: &str) -> Option<Cursor<'a>> {
        let mut places = self.places.clone();
        for c in text.chars() {
            let mut next = Cursor {
                format: self.format,
                places: Vec::new(),
            };
            for &place in &places {
                match self.format.segments.get(place.segment) {
                    Some(Segment::Text) if text_char(c) => next.enter(place),
                    None | Some(Segment::Text) => {}
                    Some(Segment::Tail) => next.enter(place),
                    Some(_) => {
                        let string = self.string(place).unwrap_or_default();
                        if string[place.offset..].starts_with(c) {
                            next.enter(Place {
                                offset: place.offset + c.len_utf8(),
                                ..place
                            });
                        }
                    }
                }
            }
            if next.places.is_empty() {
                return None;
            }
            places = next.places;
        }
        Some(Cursor {
            format: self.format,
            places,
        })
    }

    /// The rest of a literal when it is the only way on (every place inside the same literal).
    pub fn forced(&self) -> Option<&'a str> {
        let first = *self.places.first()?;
        let all_same = self.places.iter().all(|&p| p == first);
        match self.format.segments.get(first.segment)? {
            Segment::Literal(text) if all_same => Some(&text[first.offset..]),
            _ => None,
        }
    }

    /// The verdict's labels when the next characters are the verdict's first (the score
    /// position).
    pub fn at_verdict(&self) -> Option<&'a [String]> {
        let first = self.places.first()?;
        match self.format.segments.get(first.segment)? {
            Segment::Verdict(labels)
                if self
                    .places
                    .iter()
                    .all(|p| p.segment == first.segment && p.offset == 0) =>
            {
                Some(labels)
            }
            _ => None,
        }
    }

    /// Whether the answer may be inside a text segment here (its length counts against the
    /// decoder's budget).
    pub fn in_text(&self) -> bool {
        self.places
            .iter()
            .any(|p| self.format.segments.get(p.segment) == Some(&Segment::Text))
    }

    /// Whether the answer may be in its free tail here.
    pub fn in_tail(&self) -> bool {
        self.places
            .iter()
            .any(|p| self.format.segments.get(p.segment) == Some(&Segment::Tail))
    }

    /// Whether the answer may end here.
    pub fn complete(&self) -> bool {
        self.places.iter().any(|p| {
            matches!(
                self.format.segments.get(p.segment),
                None | Some(Segment::Tail)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::judge_prompt::{PromptKind, PromptParams};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn labels(names: &[&str]) -> Vec<String> {
        names.iter().map(|&s| s.to_owned()).collect()
    }

    fn binary() -> AnswerFormat {
        AnswerFormat::binary(&["coverage", "safety"], &labels(&["pass", "fail", "na"]))
    }

    /// The binary block written by hand, walked segment by segment.
    #[test]
    fn a_binary_answer_walks_its_literals_text_choices_and_verdict() {
        let format = binary();
        let start = format.start();
        assert_eq!(start.forced(), Some("```json\n{\"analysis\": \""));
        let in_text = start.advance("```json\n{\"analysis\": \"Fine").unwrap();
        assert!(in_text.in_text());
        assert!(in_text.forced().is_none(), "a text may end or go on");
        // No quote, backslash or newline inside the analysis; the quote ends it.
        assert!(in_text.advance("a \\ b").is_none());
        assert!(in_text.advance("a\nb").is_none());
        let closed = in_text.advance(".\"").unwrap();
        assert!(!closed.in_text());
        assert_eq!(
            closed.forced(),
            Some(", \"criterion_scores\": {\"coverage\": ")
        );
        let scored = closed
            .advance(", \"criterion_scores\": {\"coverage\": 1, \"safety\": ")
            .unwrap();
        assert!(scored.advance("2").is_none());
        let verdict = scored.advance("0}, \"label\": \"").unwrap();
        assert_eq!(
            verdict.at_verdict(),
            Some(&labels(&["pass", "fail", "na"])[..])
        );
        assert!(verdict.advance("maybe").is_none());
        let done = verdict.advance("fail\"}\n```").unwrap();
        assert!(done.complete());
        assert!(!done.in_tail());
        assert!(
            done.advance(" ").is_none(),
            "nothing follows the binary block"
        );
        assert!(!verdict.advance("fa").unwrap().complete());
    }

    /// A score of 1 may go on to 10 or end: both walks are kept until a character decides.
    #[test]
    fn a_score_of_one_keeps_ten_open() {
        let format = AnswerFormat::criteria(&["clarity"], &labels(&["A", "B", "tie"]));
        let one = format
            .start()
            .advance("```json\n{\"completion_A\": {\"clarity\": 1")
            .unwrap();
        assert!(one.forced().is_none());
        let ten = one.advance("0").unwrap();
        assert_eq!(ten.forced(), Some("}, \"completion_B\": {\"clarity\": "));
        assert!(ten.advance("0").is_none(), "no score 100");
        assert_eq!(
            one.advance("}").unwrap().forced(),
            Some(", \"completion_B\": {\"clarity\": ")
        );
        assert!(format
            .start()
            .advance("```json\n{\"completion_A\": {\"clarity\": 0")
            .is_none());
        let tail = ten
            .advance("}, \"completion_B\": {\"clarity\": 7}, \"preference\": \"tie\"}\n```\n")
            .unwrap();
        assert!(tail.in_tail() && tail.complete());
        assert!(tail.advance("Both are clear.\n\"Any\" text.").is_some());
    }

    /// A walk through `format` choosing each character at random among those it allows
    /// (texts and the tail of a few letters, a quote or a space): the answer it writes.
    fn random_answer(format: &AnswerFormat, rng: &mut ChaCha8Rng) -> String {
        let mut answer = String::new();
        let mut cursor = format.start();
        let alphabet: Vec<char> = "abc 0123456789\"{}:,.\n`ABtiepasfln_"
            .chars()
            .chain(format.segments.iter().flat_map(|s| match s {
                Segment::Literal(t) => t.chars().collect::<Vec<_>>(),
                _ => Vec::new(),
            }))
            .collect();
        for _ in 0..2000 {
            if cursor.complete() && (!cursor.in_tail() || rng.random_bool(0.05)) {
                break;
            }
            let allowed: Vec<char> = alphabet
                .iter()
                .copied()
                .filter(|c| cursor.advance(&c.to_string()).is_some())
                .collect();
            let Some(&c) = allowed.get(rng.random_range(0..allowed.len().max(1))) else {
                break;
            };
            answer.push(c);
            cursor = cursor.advance(&c.to_string()).unwrap();
        }
        answer
    }

    /// Every answer the formats allow parses with the prompt's own parser, to the scores and
    /// labels the walk chose (200 seeded walks of each format).
    #[test]
    fn every_answer_the_formats_allow_parses() {
        let criteria = PromptParams {
            kind: PromptKind::Criteria,
            rubric: String::new(),
            template: None,
        };
        let binary = PromptParams {
            kind: PromptKind::Binary,
            rubric: String::new(),
            template: None,
        };
        let order = [3, 0, 5, 1, 4, 2];
        for (prompt, order) in [(&criteria, &order[..]), (&binary, &[2, 0, 3, 1][..])] {
            let format = prompt.answer_format(Some(order)).unwrap().unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            for k in 0..200 {
                let answer = random_answer(&format, &mut rng);
                let cursor = format.start().advance(&answer).unwrap();
                assert!(cursor.complete(), "walk {k}: {answer}");
                let parsed = prompt
                    .parse(&answer)
                    .unwrap_or_else(|f| panic!("walk {k}: {answer}\n{}", f.message));
                let json_end = answer.find("}\n```").unwrap() + 1;
                let block: serde_json::Value =
                    serde_json::from_str(&answer["```json\n".len()..json_end]).unwrap();
                if let Some(c) = parsed.criteria {
                    let a: f64 = c.a.iter().sum();
                    let expected: f64 = block["completion_A"]
                        .as_object()
                        .unwrap()
                        .values()
                        .map(|v| v.as_f64().unwrap())
                        .sum();
                    assert_eq!(a, expected, "walk {k}");
                    assert_eq!(
                        c.preference.as_ref(),
                        block["preference"].as_str().map(str::to_owned).as_ref()
                    );
                }
                if let Some(b) = parsed.binary {
                    assert_eq!(b.stated_label.as_deref(), block["label"].as_str());
                    assert_eq!(
                        b.names,
                        ["coverage", "format_compliance", "relevance", "safety"]
                    );
                }
            }
        }
    }

    /// The grammar, checked by hand for a one-criterion binary block.
    #[test]
    fn the_gbnf_grammar_spells_the_format() {
        let format = AnswerFormat::binary(&["say \"hi\""], &labels(&["pass", "fail"]));
        assert_eq!(
            format.gbnf(40, 10),
            "root ::= \"```json\\n{\\\"analysis\\\": \\\"\" [^\"\\\\\\x00-\\x1f\\x7f]{0,40} \
             \"\\\", \\\"criterion_scores\\\": {\\\"say \\\\\\\"hi\\\\\\\"\\\": \" (\"0\" | \"1\") \
             \"}, \\\"label\\\": \\\"\" (\"pass\" | \"fail\") \"\\\"}\\n```\"\n"
        );
    }
}
