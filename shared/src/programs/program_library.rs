//! The built-in programmatic judges: one deterministic scoring function of (query, response) per
//! rubric of seed 004 App. A.2. Each returns a quality score in [0, 10], higher is better; an
//! empty response scores 0 on every rubric. They read the text only (no model, no randomness),
//! so a score is the same natively and in WASM, and a pair is judged in microseconds.
//!
//! A text is analysed once ([`TextStats`]: lower-cased words, sentences, lines) and every
//! program reads that analysis. Words are maximal runs of alphanumeric characters (an inner
//! apostrophe kept); sentences end at `.`, `!` or `?` followed by whitespace, or at a line
//! break; content words are words of three or more characters outside a short stop list.
//!
//! The rubrics and their formulas (w = words, s = sentences, densities per 100 words):
//! 1. `relevance` — share of the query's content words that the response uses: 10·|Q∩R|/|Q|
//!    (5 when the query has no content words).
//! 2. `readability` — Flesch reading ease F = 206.835 − 1.015·w/s − 84.6·syllables/w with a
//!    vowel-group syllable count; 10 − |F − 60|/8, so plain prose (F≈60) scores highest; minus 1
//!    per point of type-token ratio below 0.35 ×10 (very repetitive vocabulary).
//! 3. `completeness` — the query split into aspects (at `?`, `;`, `,`, ` and `, line breaks);
//!    an aspect is covered when half its content words appear: 7·covered/aspects +
//!    3·min(1, ln(1+w)/ln 201) (depth saturates at 200 words).
//! 4. `factual_indicators` — 5 + 1.5·ln(1 + specifics density) − 1.5·absolutes density −
//!    3·sensational density, where specifics are numbers, years, capitalised mid-sentence names,
//!    citations (`[n]`, `according to`, URLs); absolutes are `always`, `never`, `100%`, … and
//!    sensational phrases are `shocking`, `they don't want you to know`, ….
//! 5. `coherence` — 4 + 3·min(1, 4·transitions per sentence) + 2·[s ≥ 2] + 1·[ends with
//!    sentence punctuation] − 6·share of repeated sentences.
//! 6. `conciseness` — 10 − 12·share of repeated word trigrams − 1.5·filler phrases −
//!    max(0, (w − 350)/100), floored at 0; fillers are `it is important to note`, `basically`,
//!    `as an ai`, `in conclusion`, ….
//! 7. `reasoning_transparency` — 2·ln(1 + step markers) + 2·ln(1 + causal connectives) +
//!    2·[at least two numbered lines], capped at 10; step markers are `first`, `second`,
//!    `step`, `then`, `next`, `finally`; connectives `because`, `therefore`, `since`, `thus`, `so`.
//! 8. `epistemic_calibration` — 5 + 5·tanh((hedges − 2·overconfident)/4) with hedges such as
//!    `likely`, `may`, `suggests`, `approximately` and overconfident words such as `definitely`,
//!    `undoubtedly`, `guaranteed`, `proven`.
//! 9. `structure` — 2 + 2·min(1, list lines/3) + 1.5·min(1, headers/2) + 2·min(1,
//!    paragraphs/3) + 2.5·[no wall of text], where a wall of text is a single paragraph over
//!    120 words; list lines start with `-`, `*`, `•` or `n.`/`n)`; headers start with `#` or
//!    end with `:`.
//! 10. `evidence_density` — 3 + 2·ln(1 + specifics density) + 1.5·ln(1 + example markers) −
//!     2·vague fillers, clamped; example markers are `for example`, `e.g.`, `such as`, `for
//!     instance`; vague fillers `many people`, `it depends`, `various factors`, `some say`, ….
//!
//! Arguments: the query and the response text. Returns: the score. No errors: every input,
//! empty or not, has a score.

use serde::{Deserialize, Serialize};

/// A built-in programmatic judge, one per rubric of seed 004 App. A.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinProgram {
    Relevance,
    Readability,
    Completeness,
    FactualIndicators,
    Coherence,
    Conciseness,
    ReasoningTransparency,
    EpistemicCalibration,
    Structure,
    EvidenceDensity,
}

impl BuiltinProgram {
    /// The ten programs, in the rubric order of App. A.2.
    pub const ALL: [Self; 10] = [
        Self::Relevance,
        Self::Readability,
        Self::Completeness,
        Self::FactualIndicators,
        Self::Coherence,
        Self::Conciseness,
        Self::ReasoningTransparency,
        Self::EpistemicCalibration,
        Self::Structure,
        Self::EvidenceDensity,
    ];

    /// The program's name (its column in vote files).
    pub fn name(self) -> &'static str {
        match self {
            Self::Relevance => "relevance",
            Self::Readability => "readability",
            Self::Completeness => "completeness",
            Self::FactualIndicators => "factual_indicators",
            Self::Coherence => "coherence",
            Self::Conciseness => "conciseness",
            Self::ReasoningTransparency => "reasoning_transparency",
            Self::EpistemicCalibration => "epistemic_calibration",
            Self::Structure => "structure",
            Self::EvidenceDensity => "evidence_density",
        }
    }

    /// The rubric it encodes, as App. A.2 names it.
    pub fn rubric(self) -> &'static str {
        match self {
            Self::Relevance => "Relevance to the Query",
            Self::Readability => "Language Quality and Readability",
            Self::Completeness => "Completeness and Coverage",
            Self::FactualIndicators => "Factual Accuracy Indicators",
            Self::Coherence => "Logical Coherence and Argument Structure",
            Self::Conciseness => "Clarity and Conciseness",
            Self::ReasoningTransparency => "Reasoning Transparency and Step-wise Formulation",
            Self::EpistemicCalibration => "Epistemic Calibration and Uncertainty Communication",
            Self::Structure => "Structural Organization and Formatting",
            Self::EvidenceDensity => "Evidence Density and Specificity",
        }
    }

    /// The score of `response` to `query` on this rubric, in [0, 10].
    pub fn score(self, query: &str, response: &str) -> f64 {
        self.score_stats(&TextStats::of(query), &TextStats::of(response))
    }

    /// The score from analysed texts (what [`score_all`] uses to analyse each text once).
    pub fn score_stats(self, query: &TextStats, response: &TextStats) -> f64 {
        if response.words.is_empty() {
            return 0.0;
        }
        let raw = match self {
            Self::Relevance => relevance(query, response),
            Self::Readability => readability(response),
            Self::Completeness => completeness(query, response),
            Self::FactualIndicators => factual_indicators(response),
            Self::Coherence => coherence(response),
            Self::Conciseness => conciseness(response),
            Self::ReasoningTransparency => reasoning_transparency(response),
            Self::EpistemicCalibration => epistemic_calibration(response),
            Self::Structure => structure(response),
            Self::EvidenceDensity => evidence_density(response),
        };
        raw.clamp(0.0, 10.0)
    }
}

/// The scores of `response` under each of `programs`, analysing each text once.
pub fn score_all(programs: &[BuiltinProgram], query: &str, response: &str) -> Vec<f64> {
    let q = TextStats::of(query);
    let r = TextStats::of(response);
    programs.iter().map(|p| p.score_stats(&q, &r)).collect()
}

/// One analysed text: what every program reads.
#[derive(Debug, Clone)]
pub struct TextStats {
    /// The text, lower-cased.
    lower: String,
    /// Byte ranges of the words in `lower`.
    words: Vec<(usize, usize)>,
    /// Words that start with a capital letter and are not the first of their sentence.
    inner_capitals: usize,
    /// Words made of digits (numbers, years), plus `%` signs.
    numbers: usize,
    sentences: Vec<String>,
    /// Lines with their leading whitespace removed (empty lines kept).
    lines: Vec<String>,
    syllables: usize,
}

impl TextStats {
    /// Analyses `text`.
    pub fn of(text: &str) -> Self {
        let lower = text.to_lowercase();
        let mut words = Vec::new();
        let mut start = None;
        let mut chars = lower.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let inner_apostrophe = c == '\''
                && start.is_some()
                && chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric());
            if c.is_alphanumeric() || inner_apostrophe {
                start.get_or_insert(i);
            } else if let Some(s) = start.take() {
                words.push((s, i));
            }
        }
        if let Some(s) = start {
            words.push((s, lower.len()));
        }
        let mut inner_capitals = 0;
        let mut numbers = text.matches('%').count();
        let mut sentence_start = true;
        for token in text.split_whitespace() {
            let first = token.chars().find(|c| c.is_alphanumeric());
            if let Some(f) = first {
                if f.is_uppercase() && !sentence_start {
                    inner_capitals += 1;
                }
                if token.chars().filter(|c| c.is_ascii_digit()).count() * 2 >= token.len() {
                    numbers += 1;
                }
            }
            sentence_start = token.ends_with(['.', '!', '?', ':']);
        }
        let mut sentences = Vec::new();
        let mut current = String::new();
        let mut chars = lower.chars().peekable();
        while let Some(c) = chars.next() {
            let end = c == '\n'
                || (matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()));
            if c != '\n' {
                current.push(c);
            }
            if end {
                push_sentence(&mut sentences, &mut current);
            }
        }
        push_sentence(&mut sentences, &mut current);
        let lines = text.lines().map(|l| l.trim_start().to_owned()).collect();
        let syllables = words
            .iter()
            .map(|&(s, e)| syllable_count(&lower[s..e]))
            .sum();
        Self {
            lower,
            words,
            inner_capitals,
            numbers,
            sentences,
            lines,
            syllables,
        }
    }

    fn word(&self, i: usize) -> &str {
        let (s, e) = self.words[i];
        &self.lower[s..e]
    }

    fn word_iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(|&(s, e)| &self.lower[s..e])
    }

    /// Number of words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Content words (three or more characters, not a stop word), sorted and de-duplicated.
    fn content_words(&self) -> Vec<&str> {
        content_words_of(self.word_iter())
    }

    /// How many times the words in `list` occur.
    fn count_words(&self, list: &[&str]) -> usize {
        self.word_iter().filter(|w| list.contains(w)).count()
    }

    /// How many times the phrases in `list` occur in the lower-cased text.
    fn count_phrases(&self, list: &[&str]) -> usize {
        list.iter().map(|p| self.lower.matches(p).count()).sum()
    }

    /// Occurrences per 100 words.
    fn density(&self, count: usize) -> f64 {
        100.0 * count as f64 / self.words.len().max(1) as f64
    }

    /// Numbers, capitalised mid-sentence names and citations.
    fn specifics(&self) -> usize {
        self.numbers
            + self.inner_capitals
            + self.count_phrases(&["according to", "http://", "https://", "et al", "["])
    }
}

fn push_sentence(sentences: &mut Vec<String>, current: &mut String) {
    let trimmed = current.trim();
    if trimmed.chars().any(char::is_alphanumeric) {
        sentences.push(trimmed.to_owned());
    }
    current.clear();
}

const STOP_WORDS: [&str; 40] = [
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was",
    "one", "our", "out", "has", "his", "how", "its", "may", "who", "did", "get", "use", "why",
    "what", "with", "this", "that", "from", "they", "will", "your", "about", "into", "than",
    "then", "them", "these",
];

fn content_words_of<'a>(words: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = words
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(w))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Vowel groups of a lower-cased word, a silent final `e` dropped, at least one.
fn syllable_count(word: &str) -> usize {
    let mut count = 0;
    let mut previous_vowel = false;
    for c in word.chars() {
        let vowel = matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
        if vowel && !previous_vowel {
            count += 1;
        }
        previous_vowel = vowel;
    }
    if word.ends_with('e') && !word.ends_with("le") && count > 1 {
        count -= 1;
    }
    count.max(1)
}

fn relevance(query: &TextStats, response: &TextStats) -> f64 {
    let q = query.content_words();
    if q.is_empty() {
        return 5.0;
    }
    let r = response.content_words();
    let shared = q.iter().filter(|w| r.binary_search(w).is_ok()).count();
    10.0 * shared as f64 / q.len() as f64
}

fn readability(r: &TextStats) -> f64 {
    let w = r.word_count() as f64;
    let s = r.sentences.len().max(1) as f64;
    let flesch = 206.835 - 1.015 * w / s - 84.6 * r.syllables as f64 / w;
    let mut distinct: Vec<&str> = r.word_iter().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let ttr = distinct.len() as f64 / w;
    let repetitive = if w >= 20.0 {
        (0.35 - ttr).max(0.0) * 10.0
    } else {
        0.0
    };
    10.0 - (flesch - 60.0).abs() / 8.0 - repetitive
}

fn completeness(query: &TextStats, response: &TextStats) -> f64 {
    let r = response.content_words();
    let mut aspects = 0usize;
    let mut covered = 0usize;
    for part in query
        .lower
        .split(['?', ';', ',', '\n'])
        .flat_map(|p| p.split(" and "))
    {
        let words = content_words_of(
            part.split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| !w.is_empty()),
        );
        if words.is_empty() {
            continue;
        }
        aspects += 1;
        let hit = words.iter().filter(|w| r.binary_search(w).is_ok()).count();
        if 2 * hit >= words.len() {
            covered += 1;
        }
    }
    let coverage = if aspects == 0 {
        0.5
    } else {
        covered as f64 / aspects as f64
    };
    let depth = ((1.0 + response.word_count() as f64).ln() / 201f64.ln()).min(1.0);
    7.0 * coverage + 3.0 * depth
}

const ABSOLUTES: [&str; 8] = [
    "always",
    "never",
    "everyone",
    "nobody",
    "guaranteed",
    "undeniably",
    "absolutely",
    "impossible",
];

fn factual_indicators(r: &TextStats) -> f64 {
    let sensational = r.count_phrases(&[
        "shocking",
        "they don't want you to know",
        "mind-blowing",
        "miracle",
        "cover-up",
        "wake up",
        "secret truth",
    ]);
    let absolutes = r.count_words(&ABSOLUTES) + r.count_phrases(&["100%"]);
    5.0 + 1.5 * (1.0 + r.density(r.specifics())).ln()
        - 1.5 * r.density(absolutes)
        - 3.0 * r.density(sensational)
}

const TRANSITIONS: [&str; 16] = [
    "however",
    "therefore",
    "because",
    "thus",
    "hence",
    "consequently",
    "moreover",
    "furthermore",
    "first",
    "second",
    "finally",
    "although",
    "since",
    "meanwhile",
    "instead",
    "overall",
];

fn coherence(r: &TextStats) -> f64 {
    let s = r.sentences.len();
    let transitions = r.count_words(&TRANSITIONS) as f64 / s.max(1) as f64;
    let mut sorted: Vec<&str> = r.sentences.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let repeated = sorted.windows(2).filter(|w| w[0] == w[1]).count();
    let repeated_share = repeated as f64 / s.max(1) as f64;
    let ends_cleanly = r.lower.trim_end().ends_with(['.', '!', '?', ')', '"']);
    4.0 + 3.0 * (4.0 * transitions).min(1.0)
        + if s >= 2 { 2.0 } else { 0.0 }
        + if ends_cleanly { 1.0 } else { 0.0 }
        - 6.0 * repeated_share
}

fn conciseness(r: &TextStats) -> f64 {
    let n = r.word_count();
    let repeated_share = if n >= 4 {
        let mut trigrams: Vec<(&str, &str, &str)> = (0..n - 2)
            .map(|i| (r.word(i), r.word(i + 1), r.word(i + 2)))
            .collect();
        trigrams.sort_unstable();
        let repeated = trigrams.windows(2).filter(|w| w[0] == w[1]).count();
        repeated as f64 / trigrams.len() as f64
    } else {
        0.0
    };
    let fillers = r.count_phrases(&[
        "it is important to note",
        "it's important to note",
        "basically",
        "as an ai",
        "in conclusion",
        "needless to say",
        "at the end of the day",
        "it is worth noting",
        "i hope this helps",
    ]);
    let length = ((n as f64 - 350.0) / 100.0).max(0.0);
    10.0 - 12.0 * repeated_share - 1.5 * fillers as f64 - length
}

fn numbered_line(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(['.', ')'])
}

fn reasoning_transparency(r: &TextStats) -> f64 {
    let steps = r.count_words(&[
        "first", "second", "third", "step", "then", "next", "finally",
    ]);
    let causal = r.count_words(&["because", "therefore", "since", "thus", "so", "hence"]);
    let numbered = r.lines.iter().filter(|l| numbered_line(l)).count();
    2.0 * (1.0 + steps as f64).ln()
        + 2.0 * (1.0 + causal as f64).ln()
        + if numbered >= 2 { 2.0 } else { 0.0 }
}

fn epistemic_calibration(r: &TextStats) -> f64 {
    let hedges = r.count_words(&[
        "likely",
        "may",
        "might",
        "could",
        "suggests",
        "suggest",
        "generally",
        "typically",
        "approximately",
        "roughly",
        "uncertain",
        "possibly",
        "often",
        "usually",
    ]);
    let overconfident = r.count_words(&[
        "definitely",
        "certainly",
        "undoubtedly",
        "guaranteed",
        "proven",
        "unquestionably",
        "obviously",
        "always",
        "never",
    ]);
    5.0 + 5.0 * ((hedges as f64 - 2.0 * overconfident as f64) / 4.0).tanh()
}

fn structure(r: &TextStats) -> f64 {
    let list_lines = r
        .lines
        .iter()
        .filter(|l| l.starts_with(['-', '*', '•']) || numbered_line(l))
        .count();
    let headers = r
        .lines
        .iter()
        .filter(|l| l.starts_with('#') || (l.len() > 1 && l.trim_end().ends_with(':')))
        .count();
    let paragraphs = r
        .lines
        .split(|l| l.trim().is_empty())
        .filter(|p| !p.is_empty())
        .count();
    let wall = paragraphs <= 1 && r.word_count() > 120;
    2.0 + 2.0 * (list_lines as f64 / 3.0).min(1.0)
        + 1.5 * (headers as f64 / 2.0).min(1.0)
        + 2.0 * (paragraphs as f64 / 3.0).min(1.0)
        + if wall { 0.0 } else { 2.5 }
}

fn evidence_density(r: &TextStats) -> f64 {
    let examples = r.count_phrases(&["for example", "e.g.", "such as", "for instance"]);
    let vague = r.count_phrases(&[
        "many people",
        "it depends",
        "various factors",
        "some say",
        "some people",
        "there are many",
        "a lot of things",
    ]);
    3.0 + 2.0 * (1.0 + r.density(r.specifics())).ln() + 1.5 * (1.0 + examples as f64).ln()
        - 2.0 * vague as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_counts_words_sentences_and_syllables() {
        let t = TextStats::of("Hello there. It's 2024, Paris is big!\n- item");
        let words: Vec<&str> = t.word_iter().collect();
        assert_eq!(
            words,
            ["hello", "there", "it's", "2024", "paris", "is", "big", "item"]
        );
        assert_eq!(
            t.sentences,
            ["hello there.", "it's 2024, paris is big!", "- item"]
        );
        assert_eq!(t.inner_capitals, 1, "Paris, not Hello or It's");
        assert_eq!(t.numbers, 1);
        assert_eq!(syllable_count("readability"), 5);
        assert_eq!(syllable_count("make"), 1);
        assert_eq!(syllable_count("table"), 2);
    }

    #[test]
    fn relevance_is_the_share_of_query_content_words_used() {
        // Query content words: capital, france → both used: 10; one used: 5; none: 0.
        let q = "What is the capital of France?";
        assert_eq!(
            BuiltinProgram::Relevance.score(q, "The capital of France is Paris."),
            10.0
        );
        assert_eq!(BuiltinProgram::Relevance.score(q, "France is nice."), 5.0);
        assert_eq!(BuiltinProgram::Relevance.score(q, "Bananas."), 0.0);
        assert_eq!(BuiltinProgram::Relevance.score(q, ""), 0.0);
    }

    #[test]
    fn each_rubric_prefers_the_response_its_rubric_describes() {
        let q = "How do I bake bread and how long should it rise?";
        let cases: [(BuiltinProgram, &str, &str); 8] = [
            (
                BuiltinProgram::Completeness,
                "To bake bread, mix flour, water, yeast and salt, knead, shape and bake at 230 C. \
                 Let it rise for about 1 to 2 hours until doubled.",
                "Use an oven.",
            ),
            (
                BuiltinProgram::Structure,
                "Steps:\n1. Mix.\n2. Knead.\n3. Bake.\n\nTiming:\n- Rise 1-2 hours.\n\nDone.",
                &"Mix flour and water and knead it and bake it in the oven ".repeat(20),
            ),
            (
                BuiltinProgram::EpistemicCalibration,
                "It usually takes roughly 1-2 hours; timing may vary and is often longer.",
                "It definitely always takes exactly one hour, guaranteed.",
            ),
            (
                BuiltinProgram::ReasoningTransparency,
                "First mix the dough, then knead it because gluten needs to form. \
                 Next let it rise, since yeast produces gas. Finally bake it.",
                "Bake it.",
            ),
            (
                BuiltinProgram::EvidenceDensity,
                "For example, King Arthur Flour suggests 75% hydration and 2 hours at 24 C.",
                "It depends on various factors and many people do it differently.",
            ),
            (
                BuiltinProgram::Conciseness,
                "Knead, rise 1-2 hours, bake at 230 C.",
                "Basically, it is important to note that you knead. Basically, you knead the \
                 dough. Basically, you knead the dough. In conclusion, you knead the dough.",
            ),
            (
                BuiltinProgram::FactualIndicators,
                "According to the USDA, bread rises in 1 to 2 hours at 24 C.",
                "Shocking! Bread always rises 100% of the time, and nobody knows why.",
            ),
            (
                BuiltinProgram::Coherence,
                "Mix the dough. However, let it rest first. Therefore the gluten relaxes.",
                "dough dough dough",
            ),
        ];
        for (program, better, worse) in cases {
            let (b, w) = (program.score(q, better), program.score(q, worse));
            assert!(b > w, "{}: {b} should beat {w}", program.name());
            assert!((0.0..=10.0).contains(&b) && (0.0..=10.0).contains(&w));
        }
    }

    #[test]
    fn readability_peaks_for_plain_prose() {
        let plain = "The cat sat on the mat. It was warm there. The dog came in and sat too.";
        let dense = "Institutionalisation notwithstanding, epistemological considerations \
                     necessitate multidimensional operationalisation.";
        let r = BuiltinProgram::Readability;
        assert!(r.score("", plain) > r.score("", dense));
    }

    #[test]
    fn scores_are_deterministic_and_bounded_on_odd_text() {
        for text in [
            "",
            " ",
            "???",
            "ñandú — 東京 2024!!",
            "a\n\n\n",
            &"x ".repeat(5000),
        ] {
            for p in BuiltinProgram::ALL {
                let s = p.score("a query?", text);
                assert!((0.0..=10.0).contains(&s), "{} on {text:?}: {s}", p.name());
                assert_eq!(s, p.score("a query?", text));
            }
        }
        assert_eq!(
            score_all(&BuiltinProgram::ALL, "q", "Some answer."),
            BuiltinProgram::ALL
                .iter()
                .map(|p| p.score("q", "Some answer."))
                .collect::<Vec<_>>()
        );
    }
}
