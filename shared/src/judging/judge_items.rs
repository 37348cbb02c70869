//! The items CSV a judge run reads: one row per judgment to make, with an `id`, the
//! `instruction` and the `response` (and `response_b` for pairwise prompts). A pairwise file may
//! name the models that wrote the responses in `model` and `model_b` (both or neither), for the
//! run's leaderboard; they, like any other column, are kept out of the prompt. Fields may span
//! lines (quoted), as answers do.
//!
//! A response with no visible text (empty, or only spaces and zero-width characters) is a
//! real outcome — the model answered nothing, as 289 of LLMFAO's 2,139 pairs show — so it is
//! read, judged as it is, and flagged: the item's [`JudgeItem::blank`] names the field, each of
//! its judgments carries the flag, and [`blank_summary`] says how many items have one.
//!
//! Arguments: the source name (for messages), the bytes, and whether the prompt needs
//! `response_b`. Returns: the items in file order.
//!
//! Errors: [`Error::Input`] located at the header (a missing column), or at the row, column and
//! field of an empty id, instruction or model name, a repeated id, only one of the model
//! columns, or a model against itself; an empty file is an error at line 1.

use crate::io::csv_row::{column, read_header, Row};
use crate::io::error::{Error, Location, Result};
use crate::judging::judge_prompt::PromptItem;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One row of the items CSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeItem {
    pub id: String,
    /// The file line the row starts on.
    pub line: u64,
    pub prompt: PromptItem,
    /// The models of `response` and `response_b`, when the file names them.
    #[serde(default)]
    pub models: Option<(String, String)>,
    /// The response fields (`response`, `response_b`) with no visible text: judged as they
    /// are, and flagged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blank: Vec<String>,
}

/// Whether `text` shows nothing: every character is white space or a zero-width character.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
            )
    })
}

/// How many of `items` (read from `source`) have a blank response, and on which lines (the
/// first five); `None` when none has.
pub fn blank_summary(source: &str, items: &[JudgeItem]) -> Option<String> {
    let lines: Vec<u64> = items
        .iter()
        .filter(|i| !i.blank.is_empty())
        .map(|i| i.line)
        .collect();
    if lines.is_empty() {
        return None;
    }
    let shown = lines
        .iter()
        .take(5)
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let more = if lines.len() > 5 { ", …" } else { "" };
    Some(format!(
        "{source}: {} of {} items have an empty response (line{} {shown}{more}): they are judged \
         as they are and each of their judgments is flagged `blank`",
        lines.len(),
        items.len(),
        if lines.len() == 1 { "" } else { "s" },
    ))
}

/// Reads the items of `bytes`.
pub fn parse_judge_items(source: &str, bytes: &[u8], pairwise: bool) -> Result<Vec<JudgeItem>> {
    let expected = if pairwise {
        "`id,instruction,response,response_b`"
    } else {
        "`id,instruction,response`"
    };
    let (mut reader, headers) = read_header(source, bytes, expected)?;
    let column = |name: &str| column(source, &headers, name, expected);
    let id = column("id")?;
    let instruction = column("instruction")?;
    let response = column("response")?;
    let response_b = pairwise.then(|| column("response_b")).transpose()?;
    let find = |name: &str| headers.iter().position(|h| h.trim() == name);
    let models = match (pairwise, find("model"), find("model_b")) {
        (true, Some(a), Some(b)) => Some((a, b)),
        (true, Some(_), None) | (true, None, Some(_)) => {
            return Err(Error::input(
                Location::line(source, 1),
                "expected both `model` and `model_b` (the models of `response` and \
                 `response_b`) or neither, found one",
            ))
        }
        _ => None,
    };
    let mut items = Vec::new();
    let mut seen: HashMap<String, u64> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| crate::io::csv_row::csv_error(source, &e))?;
        let row = Row::new(source, &record);
        let key = row.required(id, "id")?.to_owned();
        if let Some(first) = seen.insert(key.clone(), row.line) {
            return Err(row.error(
                id,
                "id",
                format!("expected a unique id, found `{key}` again (first on line {first})"),
            ));
        }
        let prompt = PromptItem {
            instruction: row.required(instruction, "instruction")?.to_owned(),
            response: row.value(response).to_owned(),
            response_b: response_b.map(|i| row.value(i).to_owned()),
        };
        let blank = std::iter::once(("response", Some(&prompt.response)))
            .chain(std::iter::once(("response_b", prompt.response_b.as_ref())))
            .filter(|(_, text)| text.is_some_and(|t| is_blank(t)))
            .map(|(field, _)| field.to_owned())
            .collect();
        items.push(JudgeItem {
            id: key,
            line: row.line,
            prompt,
            blank,
            models: match models {
                Some((a, b)) => {
                    let (name_a, name_b) = (row.required(a, "model")?, row.required(b, "model_b")?);
                    if name_a == name_b {
                        return Err(row.error(
                            b,
                            "model_b",
                            format!("expected another model than `model`, found `{name_b}` twice"),
                        ));
                    }
                    Some((name_a.to_owned(), name_b.to_owned()))
                }
                None => None,
            },
        });
    }
    if items.is_empty() {
        return Err(Error::input(
            Location::line(source, 2),
            format!("expected at least one item after the header {expected}, found none"),
        ));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_items_with_multiline_fields_and_locates_errors() {
        let text = "id,instruction,response,response_b,topic\n\
                    p1,Say hi,\"Hi,\nthere\",Hello,chat\n\
                    p2,Add 2+2,4,5,math\n";
        let items = parse_judge_items("items.csv", text.as_bytes(), true).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].prompt.response, "Hi,\nthere");
        assert_eq!(items[1].line, 4);
        assert_eq!(items[1].prompt.response_b.as_deref(), Some("5"));
        assert_eq!(items[0].models, None);

        let named = "id,instruction,response,response_b,model,model_b\np1,x,y,z,m1,m2\n";
        let items = parse_judge_items("items.csv", named.as_bytes(), true).unwrap();
        assert_eq!(items[0].models, Some(("m1".to_owned(), "m2".to_owned())));
        assert_eq!(
            parse_judge_items("items.csv", named.as_bytes(), false).unwrap()[0].models,
            None
        );
        let err = parse_judge_items(
            "items.csv",
            b"id,instruction,response,response_b,model\np1,x,y,z,m1\n",
            true,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("items.csv, line 1: expected both `model`"),
            "{err}"
        );
        let err = parse_judge_items(
            "items.csv",
            b"id,instruction,response,response_b,model,model_b\np1,x,y,z,m1,m1\n",
            true,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "items.csv, line 2, column 6 (`model_b`): expected another model than `model`, \
             found `m1` twice"
        );

        let err = parse_judge_items("items.csv", b"id,instruction\np1,x\n", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "items.csv, line 1: expected a `response` column (header `id,instruction,response`), \
             found `id,instruction`"
        );
        let err =
            parse_judge_items("items.csv", b"id,instruction,response\np1,,y\n", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "items.csv, line 2, column 2 (`instruction`): expected a value, found an empty field"
        );
        let err = parse_judge_items(
            "items.csv",
            b"id,instruction,response\np1,x,y\np1,x,z\n",
            false,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains(
                "line 3, column 1 (`id`): expected a unique id, found `p1` again (first on line 2)"
            ),
            "{err}"
        );
    }

    #[test]
    fn blank_responses_are_read_and_flagged() {
        // LLMFAO's pairs 1165 (`.</s>`: shown, not blank) and 169 (a zero-width space: blank),
        // an empty `response`, and spaces in both.
        let text = "id,instruction,response,response_b\n\
                    1165,Argue,.</s>,Two points\n\
                    169,Explain QFT,\u{200B},A branch of physics\n\
                    7,Say hi,,hello\n\
                    8,Say hi,\"  \n \",\" \"\n";
        let items = parse_judge_items("items.csv", text.as_bytes(), true).unwrap();
        let blank: Vec<Vec<&str>> = items
            .iter()
            .map(|i| i.blank.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            blank,
            [
                vec![],
                vec!["response"],
                vec!["response"],
                vec!["response", "response_b"]
            ]
        );
        assert_eq!(items[2].prompt.response, "");
        assert_eq!(items[3].line, 5);
        assert_eq!(
            blank_summary("items.csv", &items).as_deref(),
            Some(
                "items.csv: 3 of 4 items have an empty response (lines 3, 4, 5): they are \
                 judged as they are and each of their judgments is flagged `blank`"
            )
        );
        // Only the fields the prompt reads are checked.
        let single = parse_judge_items("items.csv", text.as_bytes(), false).unwrap();
        assert_eq!(single[3].blank, ["response"]);
        assert_eq!(blank_summary("items.csv", &single[..1]), None);
        let many = "id,instruction,response\n".to_owned()
            + &(1..=7).map(|i| format!("{i},q,\n")).collect::<String>();
        let items = parse_judge_items("items.csv", many.as_bytes(), false).unwrap();
        assert!(blank_summary("items.csv", &items).unwrap().starts_with(
            "items.csv: 7 of 7 items have an empty response (lines 2, 3, 4, 5, 6, …)"
        ));
    }
}
