//! The items CSV a judge run reads: one row per judgment to make, with an `id`, the
//! `instruction` and the `response` (and `response_b` for pairwise prompts). A pairwise file may
//! name the models that wrote the responses in `model` and `model_b` (both or neither), for the
//! run's leaderboard; they, like any other column, are kept out of the prompt. Fields may span
//! lines (quoted), as answers do.
//!
//! Arguments: the source name (for messages), the bytes, and whether the prompt needs
//! `response_b`. Returns: the items in file order.
//!
//! Errors: [`Error::Input`] located at the header (a missing column), or at the row, column and
//! field of an empty id, instruction, response or model name, a repeated id, only one of the
//! model columns, or a model against itself; an empty file is an error at line 1.

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
        items.push(JudgeItem {
            id: key,
            line: row.line,
            prompt: PromptItem {
                instruction: row.required(instruction, "instruction")?.to_owned(),
                response: row.required(response, "response")?.to_owned(),
                response_b: response_b
                    .map(|i| row.required(i, "response_b").map(str::to_owned))
                    .transpose()?,
            },
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
            parse_judge_items("items.csv", b"id,instruction,response\np1,x,\n", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "items.csv, line 2, column 3 (`response`): expected a value, found an empty field"
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
}
