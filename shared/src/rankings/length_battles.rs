//! The battles of length-controlled win rates ([`LengthBattles`]): a battles file (arena or
//! LLMFAO layout) with both answers' lengths in columns `length_a` and `length_b` (characters,
//! as `tribunal convert` writes them for AlpacaEval's annotations). The judge's probability
//! that side a wins is (1 + `score`)/2 when the file has a `score` column (P(a) − P(b), as
//! AlpacaEval's weighted annotators give it), else the `winner` (1, 0 or ½).
//!
//! Arguments: the file's name and bytes. Returns: [`LengthBattles`]. Errors: the battles
//! parser's located errors; [`Error::Input`] at the cell for a length that is not a finite
//! number ≥ 0 or a score outside [−1, 1].

use crate::io::error::{Error, Result};
use crate::rankings::battles::{parse_battles_with_columns, Cell};
use crate::rankings::length_control::{LengthBattle, LengthBattles};

/// Reads a battles file with answer lengths.
///
/// # Errors
/// See the [module documentation](self).
pub fn parse_length_battles(source: &str, bytes: &[u8]) -> Result<LengthBattles> {
    let has_score = csv::ReaderBuilder::new()
        .from_reader(bytes)
        .headers()
        .is_ok_and(|h| h.iter().any(|c| c.trim() == "score"));
    let columns: &[&str] = if has_score {
        &["length_a", "length_b", "score"]
    } else {
        &["length_a", "length_b"]
    };
    let (parsed, cells) = parse_battles_with_columns(source, bytes, columns)?;
    let battles = parsed
        .battles
        .iter()
        .zip(&cells)
        .map(|(b, row)| {
            let length = |cell: &Cell| -> Result<f64> {
                number(cell, "a length in characters (a number ≥ 0)").and_then(|v| {
                    if v >= 0.0 {
                        Ok(v)
                    } else {
                        Err(bad(cell, "a length in characters (a number ≥ 0)"))
                    }
                })
            };
            let p_a = match row.get(2) {
                Some(cell) => {
                    let s = number(cell, "P(a) − P(b), a number in [−1, 1]")?;
                    if !(-1.0..=1.0).contains(&s) {
                        return Err(bad(cell, "P(a) − P(b), a number in [−1, 1]"));
                    }
                    (1.0 + s) / 2.0
                }
                None => b.y,
            };
            Ok(LengthBattle {
                a: b.a,
                b: b.b,
                p_a,
                length_a: length(&row[0])?,
                length_b: length(&row[1])?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(LengthBattles {
        models: parsed.models,
        battles,
    })
}

fn bad(cell: &Cell, expected: &str) -> Error {
    Error::input(
        cell.location.clone(),
        format!("expected {expected}, found `{}`", cell.value),
    )
}

fn number(cell: &Cell, expected: &str) -> Result<f64> {
    cell.value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| bad(cell, expected))
}
