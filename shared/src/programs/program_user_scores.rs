//! The scores of a user's own programs: the texts they score, and the scores as a file that
//! travels with a programs analysis.
//!
//! Model: user programs (JavaScript, run in the browser's sandbox) score (query, response) texts
//! in [`program_texts`] order: per pair its two responses, then per probe the clean pair's two
//! and the perturbed pair's two. Their scores are data, like the LLM judge's verdicts: a CSV
//! with one column per program (the header names them) and one row per text, an empty cell
//! where the program abstained (a row where every program abstained is written `""`: CSV
//! readers skip blank lines). A programs analysis reads it in the role `user_scores` and puts
//! the programs beside the built-in ones ([`UserScores::pair_scores`], [`UserScores::probe_scores`]).
//!
//! Arguments: the pairs and probes; a scores file's name and bytes with the number of texts
//! it must have.
//!
//! Returns: the texts; the programs' scores as [`ScoreMatrix`]es of pairs.
//!
//! Errors: [`Error::Input`] located at the line and column of a cell that is not a number, a
//! file with another number of rows than texts, or a duplicate program name.

use crate::io::csv_row;
use crate::io::csv_row::csv_error;
use crate::io::error::{Error, Location, Result};
use crate::programs::program_pairs::{Probe, ProgramPair};
use crate::programs::program_votes::ScoreMatrix;
use serde::{Deserialize, Serialize};

/// The (query, response) texts user programs score, in order: per pair (query, `response`)
/// and (query, `response_b`); then per probe the clean pair's two and the perturbed pair's two.
pub fn program_texts(pairs: &[ProgramPair], probes: &[Probe]) -> Vec<(String, String)> {
    let both = |p: &ProgramPair| {
        [
            (p.query.clone(), p.response_a.clone()),
            (p.query.clone(), p.response_b.clone()),
        ]
    };
    pairs
        .iter()
        .flat_map(both)
        .chain(probes.iter().flat_map(|p| {
            let [a, b] = both(&p.clean);
            let [c, d] = both(&p.perturbed);
            [a, b, c, d]
        }))
        .collect()
}

/// A user program's score of each text, `None` where it abstained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserProgram {
    pub name: String,
    pub scores: Vec<Option<f64>>,
}

/// The user programs' scores of every text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserScores {
    pub programs: Vec<UserProgram>,
}

impl UserScores {
    /// The scores CSV: a column per program, a row per text (empty: abstained).
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let names: Vec<&str> = self.programs.iter().map(|p| p.name.as_str()).collect();
        out.push_str(&names.join(","));
        out.push('\n');
        let rows = self
            .programs
            .iter()
            .map(|p| p.scores.len())
            .max()
            .unwrap_or(0);
        for row in 0..rows {
            let cells: Vec<String> = self
                .programs
                .iter()
                .map(|p| match p.scores.get(row).copied().flatten() {
                    Some(score) if score.is_finite() => format!("{score:?}"),
                    _ => String::new(),
                })
                .collect();
            if cells.iter().all(String::is_empty) {
                out.push_str("\"\"");
                out.push_str(&",".repeat(cells.len().saturating_sub(1)));
            } else {
                out.push_str(&cells.join(","));
            }
            out.push('\n');
        }
        out
    }

    /// Reads a scores CSV of `texts` rows.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn parse(source: &str, bytes: &[u8], texts: usize) -> Result<Self> {
        let (mut reader, headers) = csv_row::open(source, bytes)?;
        let names: Vec<String> = headers.iter().map(|h| h.trim().to_owned()).collect();
        if let Some((k, name)) = names
            .iter()
            .enumerate()
            .find(|(k, name)| name.is_empty() || names[..*k].contains(name))
        {
            return Err(Error::input(
                Location::field(source, 1, k + 1, name),
                format!("expected a unique program name per column, found `{name}`"),
            ));
        }
        let mut programs: Vec<UserProgram> = names
            .into_iter()
            .map(|name| UserProgram {
                name,
                scores: Vec::with_capacity(texts),
            })
            .collect();
        let mut line = 1;
        for record in reader.records() {
            let record = record.map_err(|e| csv_error(source, &e))?;
            line = record.position().map_or(line + 1, |p| p.line());
            for (k, program) in programs.iter_mut().enumerate() {
                let cell = record.get(k).unwrap_or_default().trim();
                let score =
                    if cell.is_empty() {
                        None
                    } else {
                        Some(
                            cell.parse::<f64>()
                                .ok()
                                .filter(|s| s.is_finite())
                                .ok_or_else(|| {
                                    Error::input(
                            Location::field(source, line, k + 1, &program.name),
                            format!("expected a finite score or an empty cell, found `{cell}`"),
                        )
                                })?,
                        )
                    };
                program.scores.push(score);
            }
        }
        let rows = programs.first().map_or(0, |p| p.scores.len());
        if rows != texts {
            return Err(Error::input(
                Location::line(source, line),
                format!(
                    "expected a row per scored text ({texts}: two per pair, four per probe), \
                     found {rows} (a row where every program abstained is `\"\"`: blank lines \
                     are skipped)"
                ),
            ));
        }
        Ok(Self { programs })
    }

    /// The scores of `count` pairs whose texts start at `offset`, `stride` texts apart (a
    /// missing score is NaN, an abstention).
    fn matrix(&self, offset: usize, count: usize, stride: usize) -> ScoreMatrix {
        let score = |s: Option<&Option<f64>>| s.copied().flatten().unwrap_or(f64::NAN);
        let mut scores = Vec::with_capacity(count * self.programs.len());
        for i in 0..count {
            let at = offset + i * stride;
            scores.extend(
                self.programs
                    .iter()
                    .map(|u| [score(u.scores.get(at)), score(u.scores.get(at + 1))]),
            );
        }
        ScoreMatrix {
            programs: self.programs.iter().map(|u| u.name.clone()).collect(),
            pairs: count,
            scores,
        }
    }

    /// The programs' scores of the `pairs` pairs.
    pub fn pair_scores(&self, pairs: usize) -> ScoreMatrix {
        self.matrix(0, pairs, 2)
    }

    /// The programs' scores of the `probes` probes after `pairs` pairs: (clean, perturbed).
    pub fn probe_scores(&self, pairs: usize, probes: usize) -> (ScoreMatrix, ScoreMatrix) {
        (
            self.matrix(2 * pairs, probes, 4),
            self.matrix(2 * pairs + 2, probes, 4),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_trip_through_the_csv_and_land_on_their_pairs() {
        let user = UserScores {
            programs: vec![
                UserProgram {
                    name: "len".to_owned(),
                    scores: vec![
                        Some(1.0),
                        Some(2.5),
                        None,
                        Some(-0.125),
                        Some(3.0),
                        Some(4.0),
                    ],
                },
                UserProgram {
                    name: "zero".to_owned(),
                    scores: vec![Some(0.0), Some(0.0), None, Some(0.0), Some(0.0), Some(0.0)],
                },
            ],
        };
        let csv = user.to_csv();
        assert_eq!(csv.lines().next(), Some("len,zero"));
        assert_eq!(UserScores::parse("u.csv", csv.as_bytes(), 6).unwrap(), user);
        // Two pairs (texts 0–3), then one probe: clean 4–5, perturbed 6–7 (missing: NaN).
        let pairs = user.pair_scores(2);
        assert_eq!(pairs.get(0, 0), [1.0, 2.5]);
        assert!(pairs.get(1, 0)[0].is_nan());
        assert!(pairs.get(1, 1)[0].is_nan());
        assert_eq!(pairs.get(1, 1)[1], 0.0);
        // A one-column file whose program abstained on a text still has its row.
        let one = UserScores {
            programs: vec![user.programs[0].clone()],
        };
        assert!(one.to_csv().contains("\n\"\"\n"), "{}", one.to_csv());
        assert_eq!(
            UserScores::parse("u.csv", one.to_csv().as_bytes(), 6).unwrap(),
            one
        );
        let (clean, perturbed) = user.probe_scores(2, 1);
        assert_eq!(clean.get(0, 0), [3.0, 4.0]);
        assert!(perturbed.get(0, 0)[0].is_nan());
    }

    #[test]
    fn bad_scores_files_are_located() {
        let e = UserScores::parse("u.csv", b"a,b\n1,x\n", 1).unwrap_err();
        let at = e.location().unwrap();
        assert_eq!(
            (at.line, at.column, at.field.as_deref()),
            (2, Some(2), Some("b")),
            "{e}"
        );
        let e = UserScores::parse("u.csv", b"a,a\n1,2\n", 1).unwrap_err();
        assert!(e.to_string().contains("unique program name"), "{e}");
        let e = UserScores::parse("u.csv", b"a\n1\n2\n", 3).unwrap_err();
        assert!(
            e.to_string().contains("expected a row per scored text (3"),
            "{e}"
        );
    }
}
