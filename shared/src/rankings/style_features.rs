//! Style features of an answer, as LMArena's style control counts them (FastChat's
//! `count_markdown_elements`), and a battle's feature: the normalised difference of its two
//! answers' counts.
//!
//! Per answer: its length in characters (Unicode scalar values), and — after removing fenced
//! code blocks (```` ``` ```` … ```` ``` ```` with no backtick inside) — its markdown headers (a
//! line starting with one to six `#` and a space), list items (a line starting, after any
//! whitespace, with digits and `.` then a space, or with `-`, `*` or `+` then a space) and bold
//! spans (`**text**` or `__text__` on one line). "Digit" and "space" are ASCII (a space is any of
//! space, tab, newline, carriage return, form feed, vertical tab); each count is what Python's
//! `re.findall` finds for FastChat's patterns with `re.MULTILINE | re.ASCII`, which
//! `shared/tests/fixtures/make_style_reference.py` uses to make the reference.
//!
//! A battle's feature k is (a_k − b_k) / (a_k + b_k), 0 when both counts are 0: in [−1, 1],
//! positive when answer A has more of it. Arguments: the answers' text. No errors.

/// The style features, in the order of [`style_counts`].
pub const STYLE_FEATURES: [&str; 4] = ["length", "headers", "lists", "bold"];

/// Length, headers, list items and bold spans of `answer`.
pub fn style_counts(answer: &str) -> [f64; 4] {
    let plain = without_code_blocks(answer.as_bytes());
    let lines = line_starts(&plain);
    let headers = anchored_matches(&plain, &lines, header_at);
    let lists = anchored_matches(&plain, &lines, ordered_item_at)
        + anchored_matches(&plain, &lines, unordered_item_at);
    let bold = spans(&plain, b'*') + spans(&plain, b'_');
    [
        answer.chars().count() as f64,
        headers as f64,
        lists as f64,
        bold as f64,
    ]
}

/// The normalised difference (a − b) / (a + b) of each count; 0 where both are 0.
pub fn style_difference(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    std::array::from_fn(|k| {
        let sum = a[k] + b[k];
        if sum == 0.0 {
            0.0
        } else {
            (a[k] - b[k]) / sum
        }
    })
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `text` less every ```` ``` ```` … ```` ``` ```` block with no backtick inside, scanning left
/// to right as a regex search does.
fn without_code_blocks(text: &[u8]) -> Vec<u8> {
    let fence = b"```";
    let mut out = Vec::with_capacity(text.len());
    let mut s = 0;
    while s < text.len() {
        if text[s..].starts_with(fence) {
            let inside = s + fence.len();
            let next_tick = text[inside..]
                .iter()
                .position(|&c| c == b'`')
                .map(|p| inside + p);
            if let Some(close) = next_tick.filter(|&t| text[t..].starts_with(fence)) {
                s = close + fence.len();
                continue;
            }
        }
        out.push(text[s]);
        s += 1;
    }
    out
}

/// Where each line starts (`^` under `re.MULTILINE`: the start and after each `\n`).
fn line_starts(text: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            text.iter()
                .enumerate()
                .filter(|(_, &c)| c == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// How many non-overlapping matches `at` finds, trying each line start in turn.
fn anchored_matches(
    text: &[u8],
    lines: &[usize],
    at: impl Fn(&[u8], usize) -> Option<usize>,
) -> usize {
    let (mut count, mut end) = (0, 0);
    for &start in lines {
        if start >= end {
            if let Some(e) = at(text, start) {
                count += 1;
                end = e;
            }
        }
    }
    count
}

/// `#{1,6}\s` at `s`: the end of the match.
fn header_at(text: &[u8], s: usize) -> Option<usize> {
    let hashes = text[s..].iter().take_while(|&&c| c == b'#').count();
    let after = s + hashes;
    ((1..=6).contains(&hashes) && text.get(after).copied().is_some_and(is_space))
        .then_some(after + 1)
}

/// `\s*` then `marker` then `\s` at `s`, where `marker` returns the end of a marker at a
/// position. `\s*` backtracks, but a marker never starts with a space, so only its longest run
/// can be followed by one.
fn item_at(text: &[u8], s: usize, marker: impl Fn(&[u8], usize) -> Option<usize>) -> Option<usize> {
    let start = s + text[s..].iter().take_while(|&&c| is_space(c)).count();
    let end = marker(text, start)?;
    text.get(end)
        .copied()
        .is_some_and(is_space)
        .then_some(end + 1)
}

/// `\s*\d+\.\s` at `s`.
fn ordered_item_at(text: &[u8], s: usize) -> Option<usize> {
    item_at(text, s, |t, i| {
        let digits = t[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        (digits > 0 && t.get(i + digits) == Some(&b'.')).then_some(i + digits + 1)
    })
}

/// `\s*[-*+]\s` at `s`.
fn unordered_item_at(text: &[u8], s: usize) -> Option<usize> {
    item_at(text, s, |t, i| {
        matches!(t.get(i), Some(b'-' | b'*' | b'+')).then_some(i + 1)
    })
}

/// Non-overlapping `MM[^M\n]+MM` spans for the mark `M` (`*` or `_`).
fn spans(text: &[u8], mark: u8) -> usize {
    let (mut count, mut s) = (0, 0);
    while s + 1 < text.len() {
        if text[s] == mark && text[s + 1] == mark {
            let inside = s + 2;
            let run = text[inside..]
                .iter()
                .take_while(|&&c| c != mark && c != b'\n')
                .count();
            let close = inside + run;
            if run > 0 && text.get(close) == Some(&mark) && text.get(close + 1) == Some(&mark) {
                count += 1;
                s = close + 2;
                continue;
            }
        }
        s += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_patterns_by_hand() {
        let answer =
            "# Title\n\nSome **bold** and __more__ text.\n\n1. one\n2. two\n  - nested\n* star\n\
                      ####### seven\n#no space\n```\n# not a header\n- not an item\n```\n**a*b**";
        let [length, headers, lists, bold] = style_counts(answer);
        assert_eq!(length, answer.chars().count() as f64);
        assert_eq!(
            headers, 1.0,
            "`####### seven` and `#no space` are no headers"
        );
        assert_eq!(lists, 4.0, "the fenced block's item is not counted");
        assert_eq!(bold, 2.0, "`**a*b**` has a `*` inside");
        // A marker followed by a newline is an item; a blank line before one is skipped.
        assert_eq!(style_counts("1.\n2. x\n\n\n- y")[2], 3.0);
        // An unclosed fence removes nothing.
        assert_eq!(style_counts("```\n# h")[1], 1.0);
        assert_eq!(style_counts("")[..], [0.0; 4]);
    }

    #[test]
    fn the_difference_is_normalised_and_zero_when_both_are_zero() {
        let d = style_difference(&[30.0, 0.0, 3.0, 1.0], &[10.0, 0.0, 1.0, 0.0]);
        assert_eq!(d, [0.5, 0.0, 0.5, 1.0]);
    }
}
