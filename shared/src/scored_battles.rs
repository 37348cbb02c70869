//! Scored battles: pairwise comparisons with an LLM judge's signal and, where available, a
//! human label — the input of Soft-Elo (seed 002 §3.2, §5.1, App. A) and of the held-out
//! protocol.
//!
//! The CSV header names the columns (order is free, extra columns are ignored):
//!
//! | column               | required | values                                                 |
//! |----------------------|----------|--------------------------------------------------------|
//! | `model_a`, `model_b` | yes      | model names                                            |
//! | `score`              | one judge signal | s(x) = s(x, A) − s(x, B), one presentation order |
//! | `score_ab`, `score_ba` | one judge signal | s(x) from each presentation order, both oriented towards `model_a` |
//! | `judge`              | one judge signal | `model_a`, `model_b`, `tie` (`tie (bothbad)` is a tie) |
//! | `human`              | no       | the same labels; an empty cell means "not labelled"    |
//! | `prompt`             | no       | a prompt (cluster) id; an empty cell means none        |
//!
//! With both orders the score is their mean, s(x) = (s_AB + s_BA) / 2 (seed 002 App. A), and a
//! battle whose two scores have strictly opposite signs (s_AB · s_BA < 0) is marked
//! [`ScoredBattle::order_flip`]: a tie for hard targets, as seed 002 §3.2 and App. A specify. A
//! `judge` verdict may accompany scores; hard targets then still follow the scores, as in the
//! seed's Hard-Elo labels.
//!
//! Arguments: the input's name (for messages) and its bytes. Returns: [`ScoredBattles`], models
//! and prompts numbered in order of first appearance. Errors: [`Error::Input`] naming the source,
//! line, column and field, with what was expected and what was found, for a missing or ambiguous
//! header, a ragged row, invalid UTF-8, an empty or self-battling model, a missing, non-numeric or
//! non-finite score, and an unknown verdict or label; [`Error::Insufficient`] for a header without
//! rows.

use crate::battles::{csv_error, Battle, Battles, Layout, ModelIndex};
use crate::csv_row::Row;
use crate::error::{Error, Location, Result};
use serde::{Deserialize, Serialize};

/// Which judge signal a file carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeSignal {
    /// One score difference per battle (`score`).
    Score,
    /// Score differences from both presentation orders (`score_ab`, `score_ba`).
    BothOrders,
    /// Verdicts only (`judge`): hard targets, no soft ones.
    Verdict,
}

/// One battle: model `a` against model `b` with the judge's signal and an optional human label.
/// Targets use the convention of [`Battle::y`]: 1 when `a` wins, 0 when `b` wins, ½ for a tie.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoredBattle {
    pub a: usize,
    pub b: usize,
    /// Judge score difference s(x), positive when it favours `a`; the mean of both orders when
    /// both were given. `None` when the file has verdicts only.
    pub score: Option<f64>,
    /// Both orders were scored and their signs are strictly opposite.
    pub order_flip: bool,
    /// The judge's verdict as a target, when the file has a `judge` column and the cell is set.
    pub judge: Option<f64>,
    /// The human label as a target, when the battle is labelled.
    pub human: Option<f64>,
    /// Index into [`ScoredBattles::prompts`].
    pub prompt: Option<usize>,
}

impl ScoredBattle {
    /// The judge's hard target: 1, 0 or ½ by the sign of the score (½ for s = 0 or an order
    /// flip), or the verdict when there is no score.
    pub fn hard_target(&self) -> Option<f64> {
        match self.score {
            Some(_) if self.order_flip => Some(0.5),
            Some(s) if s > 0.0 => Some(1.0),
            Some(s) if s < 0.0 => Some(0.0),
            Some(_) => Some(0.5),
            None => self.judge,
        }
    }

    /// Whether model `m` plays in this battle.
    pub fn involves(&self, m: usize) -> bool {
        self.a == m || self.b == m
    }
}

/// Scored battles over named models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredBattles {
    pub models: Vec<String>,
    /// Prompt ids in order of first appearance (empty without a `prompt` column).
    pub prompts: Vec<String>,
    pub signal: JudgeSignal,
    pub battles: Vec<ScoredBattle>,
}

impl ScoredBattles {
    pub fn n_models(&self) -> usize {
        self.models.len()
    }

    /// The human-labelled battles, as hard-label [`Battles`] over the same model numbering.
    pub fn human_battles(&self) -> Battles {
        Battles {
            models: self.models.clone(),
            battles: self
                .battles
                .iter()
                .filter_map(|b| b.human.map(|y| Battle { a: b.a, b: b.b, y }))
                .collect(),
        }
    }

    /// Battles with targets `y` (one per battle, in order) over the same model numbering.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when `y` does not have one target per battle.
    pub fn with_targets(&self, y: &[f64]) -> Result<Battles> {
        if y.len() != self.battles.len() {
            return Err(Error::param(
                "y",
                format!(
                    "expected one target per battle ({}), found {}",
                    self.battles.len(),
                    y.len()
                ),
            ));
        }
        Ok(Battles {
            models: self.models.clone(),
            battles: self
                .battles
                .iter()
                .zip(y)
                .map(|(b, &y)| Battle { a: b.a, b: b.b, y })
                .collect(),
        })
    }
}

const EXPECTED_HEADER: &str = "`model_a,model_b` and a judge signal: `score`, or `score_ab` \
                               and `score_ba`, or `judge`";

/// Column positions of a recognised header.
struct Columns {
    a: usize,
    b: usize,
    score: Option<usize>,
    orders: Option<(usize, usize)>,
    judge: Option<usize>,
    human: Option<usize>,
    prompt: Option<usize>,
}

impl Columns {
    fn from_header(source: &str, headers: &csv::StringRecord) -> Result<Self> {
        let header_error = |message: String| Error::input(Location::line(source, 1), message);
        let found = headers.iter().collect::<Vec<_>>().join(",");
        if headers.is_empty() || (headers.len() == 1 && headers[0].trim().is_empty()) {
            return Err(header_error(format!(
                "the file is empty: expected a header row with {EXPECTED_HEADER}"
            )));
        }
        let find = |name: &str| headers.iter().position(|h| h.trim() == name);
        let (Some(a), Some(b)) = (find("model_a"), find("model_b")) else {
            return Err(header_error(format!(
                "header lacks `model_a` or `model_b`: expected {EXPECTED_HEADER}, found `{found}`"
            )));
        };
        let orders = match (find("score_ab"), find("score_ba")) {
            (Some(ab), Some(ba)) => Some((ab, ba)),
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(header_error(format!(
                    "header has only one of `score_ab` and `score_ba`: expected both orders, \
                     found `{found}`"
                )))
            }
        };
        let score = find("score");
        if score.is_some() && orders.is_some() {
            return Err(header_error(format!(
                "header has both `score` and `score_ab`/`score_ba`: expected one judge signal, \
                 found `{found}`"
            )));
        }
        let judge = find("judge");
        if score.is_none() && orders.is_none() && judge.is_none() {
            return Err(header_error(format!(
                "header has no judge signal: expected {EXPECTED_HEADER}, found `{found}`"
            )));
        }
        Ok(Self {
            a,
            b,
            score,
            orders,
            judge,
            human: find("human"),
            prompt: find("prompt"),
        })
    }

    fn signal(&self) -> JudgeSignal {
        match (self.score, self.orders) {
            (Some(_), _) => JudgeSignal::Score,
            (None, Some(_)) => JudgeSignal::BothOrders,
            (None, None) => JudgeSignal::Verdict,
        }
    }
}

/// Parses a scored-battles CSV (see the module documentation for the columns).
///
/// # Errors
/// See the module documentation.
pub fn parse_scored_battles(source: &str, bytes: &[u8]) -> Result<ScoredBattles> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(bytes);
    let headers = reader.headers().map_err(|e| csv_error(source, &e))?.clone();
    let columns = Columns::from_header(source, &headers)?;
    let signal = columns.signal();

    let mut models = ModelIndex::default();
    let mut prompts = ModelIndex::default();
    let mut battles = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(source, &e))?;
        let row = Row::new(source, &record);
        let line = row.line;
        let a = row.required(columns.a, "model_a")?;
        let b = row.required(columns.b, "model_b")?;
        if a == b {
            return Err(Error::input(
                Location::field(source, line, columns.b + 1, "model_b"),
                format!("a model cannot battle itself: both sides are `{a}`"),
            ));
        }
        let (score, order_flip) = match (columns.score, columns.orders) {
            (Some(i), _) => (Some(row.number(i, "score")?), false),
            (None, Some((ab, ba))) => {
                let s_ab = row.number(ab, "score_ab")?;
                let s_ba = row.number(ba, "score_ba")?;
                (Some(0.5 * (s_ab + s_ba)), s_ab * s_ba < 0.0)
            }
            (None, None) => (None, false),
        };
        let judge = match columns.judge {
            Some(i) if signal == JudgeSignal::Verdict => Some(row.label(i, "judge")?),
            Some(i) => row.optional_label(i, "judge")?,
            None => None,
        };
        let human = match columns.human {
            Some(i) => row.optional_label(i, "human")?,
            None => None,
        };
        let prompt = columns
            .prompt
            .map(|i| row.value(i))
            .filter(|p| !p.is_empty())
            .map(|p| prompts.id(p));
        battles.push(ScoredBattle {
            a: models.id(a),
            b: models.id(b),
            score,
            order_flip,
            judge,
            human,
            prompt,
        });
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(format!(
            "{source}: the file has a header but no battles"
        )));
    }
    Ok(ScoredBattles {
        models: models.names,
        prompts: prompts.names,
        signal,
        battles,
    })
}

impl Row<'_> {
    fn label(&self, i: usize, name: &str) -> Result<f64> {
        let text = self.required(i, name)?;
        Layout::Arena.target(text).ok_or_else(|| {
            self.error(
                i,
                name,
                format!(
                    "expected {}, found `{text}`",
                    Layout::Arena.expected_winners()
                ),
            )
        })
    }

    fn optional_label(&self, i: usize, name: &str) -> Result<Option<f64>> {
        if self.value(i).is_empty() {
            Ok(None)
        } else {
            self.label(i, name).map(Some)
        }
    }
}

/// Human battles joined with a judge's verdicts on the same comparisons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinedVerdicts {
    pub data: ScoredBattles,
    /// Human battles whose key has no judge verdict (left out).
    pub unmatched: usize,
}

/// Joins a judge's verdicts to human labels when they come as two battle files that share a
/// key column (LLMFAO's pair `id`, say): every human battle whose key the judge also judged
/// becomes one scored battle with `judge` = the judge's target on that key, oriented to the
/// human battle's sides, and `human` = the human target. Several human votes on one key share
/// the judge's verdict. Models keep the human file's numbering.
///
/// # Errors
/// [`Error::InvalidParam`] when a key appears twice in the judge file, when the judge compares
/// other models than the human battle with the same key, or when the key lists' lengths differ
/// from their battles; [`Error::Insufficient`] when no key matches.
pub fn join_verdicts(
    judge: &Battles,
    judge_keys: &[String],
    human: &Battles,
    human_keys: &[String],
) -> Result<JoinedVerdicts> {
    if judge_keys.len() != judge.battles.len() || human_keys.len() != human.battles.len() {
        return Err(Error::param(
            "keys",
            "expected one key per battle in both files",
        ));
    }
    let mut verdicts = std::collections::HashMap::new();
    for (key, b) in judge_keys.iter().zip(&judge.battles) {
        let entry = (judge.models[b.a].as_str(), judge.models[b.b].as_str(), b.y);
        if verdicts.insert(key.as_str(), entry).is_some() {
            return Err(Error::param(
                "judge",
                format!("key `{key}` appears more than once in the judge file: expected one verdict per key"),
            ));
        }
    }
    let mut battles = Vec::with_capacity(human.battles.len());
    let mut unmatched = 0;
    for (key, h) in human_keys.iter().zip(&human.battles) {
        let Some(&(ja, jb, jy)) = verdicts.get(key.as_str()) else {
            unmatched += 1;
            continue;
        };
        let (ha, hb) = (human.models[h.a].as_str(), human.models[h.b].as_str());
        let judge_y = if (ja, jb) == (ha, hb) {
            jy
        } else if (ja, jb) == (hb, ha) {
            1.0 - jy
        } else {
            return Err(Error::param(
                "judge",
                format!(
                    "key `{key}`: the judge compares `{ja}` with `{jb}`, the human battle `{ha}` with `{hb}`"
                ),
            ));
        };
        battles.push(ScoredBattle {
            a: h.a,
            b: h.b,
            score: None,
            order_flip: false,
            judge: Some(judge_y),
            human: Some(h.y),
            prompt: None,
        });
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(
            "no human battle shares a key with the judge file".to_owned(),
        ));
    }
    Ok(JoinedVerdicts {
        data: ScoredBattles {
            models: human.models.clone(),
            prompts: Vec::new(),
            signal: JudgeSignal::Verdict,
            battles,
        },
        unmatched,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn join_orients_judge_verdicts_and_counts_unmatched() {
        let judge = Battles::from_named([("A", "B", 1.0), ("C", "A", 0.5)]);
        let judge_keys = ["1".to_owned(), "2".to_owned()];
        let human = Battles::from_named([
            ("A", "B", 0.0),
            ("A", "C", 1.0),
            ("A", "C", 0.5),
            ("B", "C", 1.0),
        ]);
        let human_keys = ["1", "2", "2", "3"].map(str::to_owned);
        let joined = join_verdicts(&judge, &judge_keys, &human, &human_keys).unwrap();
        assert_eq!(joined.unmatched, 1);
        let pairs: Vec<(Option<f64>, Option<f64>)> = joined
            .data
            .battles
            .iter()
            .map(|b| (b.judge, b.human))
            .collect();
        assert_eq!(
            pairs,
            [
                (Some(1.0), Some(0.0)),
                (Some(0.5), Some(1.0)),
                (Some(0.5), Some(0.5))
            ]
        );
        assert_eq!(joined.data.signal, JudgeSignal::Verdict);

        let wrong = Battles::from_named([("A", "D", 1.0)]);
        let err = join_verdicts(&wrong, &judge_keys[..1], &human, &human_keys).unwrap_err();
        assert!(
            err.to_string()
                .contains("key `1`: the judge compares `A` with `D`"),
            "{err}"
        );
        let twice = ["1".to_owned(), "1".to_owned()];
        assert!(join_verdicts(&judge, &twice, &human, &human_keys).is_err());
        let none = ["9".to_owned(), "8".to_owned()];
        assert!(matches!(
            join_verdicts(&judge, &none, &human, &human_keys),
            Err(Error::Insufficient(_))
        ));
    }

    use super::*;

    fn parse(text: &str) -> Result<ScoredBattles> {
        parse_scored_battles("s.csv", text.as_bytes())
    }

    #[test]
    fn both_orders_are_averaged_and_a_sign_flip_is_a_tie() {
        let data = parse(
            "model_a,model_b,score_ab,score_ba,human,prompt\n\
             x,y,2,1,model_a,p1\n\
             x,y,1.5,-0.5,model_b,p2\n\
             y,z,-1,-3,,p1\n\
             z,x,0,2,tie,\n",
        )
        .unwrap();
        assert_eq!(data.signal, JudgeSignal::BothOrders);
        assert_eq!(data.models, ["x", "y", "z"]);
        assert_eq!(data.prompts, ["p1", "p2"]);
        let scores: Vec<Option<f64>> = data.battles.iter().map(|b| b.score).collect();
        assert_eq!(scores, [Some(1.5), Some(0.5), Some(-2.0), Some(1.0)]);
        let flips: Vec<bool> = data.battles.iter().map(|b| b.order_flip).collect();
        assert_eq!(flips, [false, true, false, false]);
        // A positive mean with opposite signs is a tie; a zero in one order is not a flip.
        let hard: Vec<Option<f64>> = data.battles.iter().map(|b| b.hard_target()).collect();
        assert_eq!(hard, [Some(1.0), Some(0.5), Some(0.0), Some(1.0)]);
        let human: Vec<Option<f64>> = data.battles.iter().map(|b| b.human).collect();
        assert_eq!(human, [Some(1.0), Some(0.0), None, Some(0.5)]);
        let prompts: Vec<Option<usize>> = data.battles.iter().map(|b| b.prompt).collect();
        assert_eq!(prompts, [Some(0), Some(1), Some(0), None]);
        let humans = data.human_battles();
        assert_eq!(humans.battles.len(), 3);
        assert_eq!(humans.battles[2], Battle { a: 2, b: 0, y: 0.5 });
    }

    #[test]
    fn single_score_zero_is_a_tie_and_verdicts_only_give_hard_targets() {
        let data = parse("judge,model_b,model_a,score\nmodel_b,y,x,0\nmodel_b,y,x,-2\n").unwrap();
        assert_eq!(data.signal, JudgeSignal::Score);
        // Hard targets follow the score even where the verdict disagrees.
        let hard: Vec<Option<f64>> = data.battles.iter().map(|b| b.hard_target()).collect();
        assert_eq!(hard, [Some(0.5), Some(0.0)]);
        assert_eq!(data.battles[0].judge, Some(0.0));
        let data = parse("model_a,model_b,judge\nx,y,tie (bothbad)\ny,x,model_a\n").unwrap();
        assert_eq!(data.signal, JudgeSignal::Verdict);
        let hard: Vec<Option<f64>> = data.battles.iter().map(|b| b.hard_target()).collect();
        assert_eq!(hard, [Some(0.5), Some(1.0)]);
        assert!(data.battles.iter().all(|b| b.score.is_none()));
        assert_eq!(
            data.with_targets(&[0.25, 0.75]).unwrap().battles[1],
            Battle {
                a: 1,
                b: 0,
                y: 0.75
            }
        );
        assert!(data.with_targets(&[0.5]).is_err());
    }
}
