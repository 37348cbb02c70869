//! The battles of a style-controlled leaderboard with each battle's features
//! ([`StyledBattles`]): from the two answers of the battle's pair — a pairs or items file
//! `id,instruction,response,response_b` (model A answered `response`), joined on a column of
//! the battles file — or from numeric columns of the battles file itself.
//!
//! Arguments: the battles file and the answers file (name and bytes), the join column; or the
//! battles file and its feature columns. Returns: [`StyledBattles`] with one feature row per
//! battle ([`STYLE_FEATURES`]' differences, or the columns' values). Errors: each file's
//! located parse errors; [`Error::Input`] at the battle's cell for a key the answers file does
//! not hold (a join that misses any battle is refused, never silently partial) and for a
//! feature value that is not a finite number; [`Error::InvalidParam`] for no feature columns.

use crate::io::error::{Error, Result};
use crate::programs::program_pairs::parse_program_pairs;
use crate::rankings::battles::{parse_battles_with_columns, Cell};
use crate::rankings::style_control::StyledBattles;
use crate::rankings::style_features::{style_counts, style_difference, STYLE_FEATURES};
use std::collections::HashMap;

/// Each battle with the style differences of its pair's answers.
pub fn styled_by_answers(
    battles: (&str, &[u8]),
    answers: (&str, &[u8]),
    key: &str,
) -> Result<StyledBattles> {
    let (parsed, cells) = parse_battles_with_columns(battles.0, battles.1, &[key])?;
    let counts: HashMap<String, ([f64; 4], [f64; 4])> = parse_program_pairs(answers.0, answers.1)?
        .into_iter()
        .map(|p| {
            let counts = (style_counts(&p.response_a), style_counts(&p.response_b));
            (p.id, counts)
        })
        .collect();
    let features = cells
        .iter()
        .map(|row| {
            let cell = key_cell(row)?;
            let (a, b) = counts.get(&cell.value).ok_or_else(|| {
                Error::input(
                    cell.location.clone(),
                    format!(
                        "`{}` is not an `id` of {}: every battle needs its pair's answers",
                        cell.value, answers.0
                    ),
                )
            })?;
            Ok(style_difference(a, b).to_vec())
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(StyledBattles {
        models: parsed.models,
        battles: parsed.battles,
        feature_names: STYLE_FEATURES.map(str::to_owned).to_vec(),
        features,
    })
}

/// Each battle with the values of the battles file's `columns`.
pub fn styled_by_columns(battles: (&str, &[u8]), columns: &[String]) -> Result<StyledBattles> {
    if columns.is_empty() {
        return Err(Error::param(
            "columns",
            "expected the battles file's feature columns, or an `answers` file to compute \
             the style features from",
        ));
    }
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let (parsed, cells) = parse_battles_with_columns(battles.0, battles.1, &names)?;
    let features = cells
        .iter()
        .map(|row| row.iter().map(number).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()?;
    Ok(StyledBattles {
        models: parsed.models,
        battles: parsed.battles,
        feature_names: columns.to_vec(),
        features,
    })
}

fn key_cell(row: &[Cell]) -> Result<&Cell> {
    row.first()
        .ok_or_else(|| Error::Insufficient("a battle without its key cell".to_owned()))
}

fn number(cell: &Cell) -> Result<f64> {
    cell.value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            Error::input(
                cell.location.clone(),
                format!("expected a finite number, found `{}`", cell.value),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIRS: &str = "id,instruction,response,response_b\n\
                         p1,Q?,\"# Head\n- a\n- b\",plain\n\
                         p2,Q?,short,much longer answer\n";

    #[test]
    fn answers_join_on_the_key_and_a_missing_key_is_located() {
        let battles = "id,left,right,winner\np1,x,y,left\np2,y,x,right\n";
        let data = styled_by_answers(
            ("b.csv", battles.as_bytes()),
            ("pairs.csv", PAIRS.as_bytes()),
            "id",
        )
        .unwrap();
        assert_eq!(data.models, ["x", "y"]);
        // p1: A has a header and two items, B none; B is shorter ("plain", 5 characters).
        assert_eq!(data.features[0][1..3], [1.0, 1.0]);
        assert_eq!(data.features[1][0], (5.0 - 18.0) / 23.0);
        let missing = "id,left,right,winner\np1,x,y,left\np9,y,x,right\n";
        let error = styled_by_answers(
            ("b.csv", missing.as_bytes()),
            ("pairs.csv", PAIRS.as_bytes()),
            "id",
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("b.csv, line 3, column 1 (`id`)"),
            "{error}"
        );
        assert!(
            error.contains("`p9` is not an `id` of pairs.csv"),
            "{error}"
        );
    }

    #[test]
    fn columns_are_read_as_numbers_with_located_errors() {
        let battles = "model_a,model_b,winner,len\nx,y,model_a,0.5\ny,x,tie,-0.25\n";
        let data = styled_by_columns(("b.csv", battles.as_bytes()), &["len".to_owned()]).unwrap();
        assert_eq!(data.features, [vec![0.5], vec![-0.25]]);
        let bad = "model_a,model_b,winner,len\nx,y,model_a,0.5\ny,x,tie,long\n";
        let error = styled_by_columns(("b.csv", bad.as_bytes()), &["len".to_owned()])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("b.csv, line 3, column 4 (`len`)"),
            "{error}"
        );
        assert!(styled_by_columns(("b.csv", battles.as_bytes()), &[]).is_err());
    }
}
