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
//! | `key`                | no       | the judged comparison: rows with the same key are human votes on one judgment |
//!
//! Rows that share a `key` are several human votes on one comparison the judge judged once:
//! the first row's judge signal counts for the judge, the later rows are marked
//! [`ScoredBattle::judge_repeat`] (their human labels all count). They must name the same two
//! models (in either order) and carry the same judge signal, oriented to their own sides.
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
//! header (a column it reads named twice, or `score` beside `score_ab`/`score_ba`), a header that
//! looks semicolon- or tab-separated, a quoted field that is never closed (where it begins), a
//! ragged row, invalid UTF-8, an empty or self-battling model, a missing, non-numeric or
//! non-finite score, and an unknown verdict or label; [`Error::Insufficient`] for a header without
//! rows. Lines are those an editor shows, whatever the line endings (`\r\n` included).

use crate::io::csv_row::csv_error;
use crate::io::csv_row::{find_unique, open, with_separator_hint, Row};
use crate::io::error::{Error, Location, Result};
use crate::rankings::battles::{parse_battles_with_column, Battle, Battles, Layout, ModelIndex};
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
    /// The judge signal repeats that of an earlier battle of the same comparison (another
    /// human vote on a pair the judge judged once): the judge's fits count it once.
    #[serde(default)]
    pub judge_repeat: bool,
    /// The battle's line in its file, for messages (`None` when it was built otherwise).
    #[serde(default)]
    pub line: Option<usize>,
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

    /// Battles whose judge signal is not a repeat ([`ScoredBattle::judge_repeat`]): the
    /// judge's own observations, one per judged comparison.
    pub fn n_judge_verdicts(&self) -> usize {
        self.battles.iter().filter(|b| !b.judge_repeat).count()
    }

    /// The judge's battles with targets `y` (one per battle of `self`, in order): every battle
    /// except judge repeats, so a verdict shared by several human votes is one observation.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when `y` does not have one target per battle.
    pub fn judge_battles(&self, y: &[f64]) -> Result<Battles> {
        let all = self.with_targets(y)?;
        Ok(Battles {
            models: all.models,
            battles: all
                .battles
                .into_iter()
                .zip(&self.battles)
                .filter(|(_, b)| !b.judge_repeat)
                .map(|(battle, _)| battle)
                .collect(),
        })
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
    key: Option<usize>,
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
        // A column read twice would be ambiguous: which one holds the value?
        let find = |name: &str| find_unique(source, headers, name);
        let (Some(a), Some(b)) = (find("model_a")?, find("model_b")?) else {
            return Err(header_error(with_separator_hint(
                format!(
                    "header lacks `model_a` or `model_b`: expected {EXPECTED_HEADER}, found \
                     `{found}`"
                ),
                headers,
            )));
        };
        let orders = match (find("score_ab")?, find("score_ba")?) {
            (Some(ab), Some(ba)) => Some((ab, ba)),
            (None, None) => None,
            (Some(_), None) | (None, Some(_)) => {
                return Err(header_error(format!(
                    "header has only one of `score_ab` and `score_ba`: expected both orders, \
                     found `{found}`"
                )))
            }
        };
        let score = find("score")?;
        if score.is_some() && orders.is_some() {
            return Err(header_error(format!(
                "header has both `score` and `score_ab`/`score_ba`: expected one judge signal, \
                 found `{found}`"
            )));
        }
        let judge = find("judge")?;
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
            human: find("human")?,
            prompt: find("prompt")?,
            key: find("key")?,
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
    let (mut reader, headers) = open(source, bytes)?;
    let columns = Columns::from_header(source, &headers)?;
    let signal = columns.signal();

    let mut models = ModelIndex::default();
    let mut prompts = ModelIndex::default();
    let mut battles: Vec<ScoredBattle> = Vec::new();
    // key → the index of the battle that carries its judge signal.
    let mut judged: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
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
        let battle = ScoredBattle {
            a: models.id(a),
            b: models.id(b),
            score,
            order_flip,
            judge,
            human,
            prompt,
            judge_repeat: false,
            line: usize::try_from(line).ok(),
        };
        let judge_repeat = match columns.key.map(|i| (i, row.value(i))) {
            Some((i, key)) if !key.is_empty() => match judged.get(key) {
                Some(&first) => {
                    same_judgment(&battles[first], &battle).map_err(|what| {
                        Error::input(
                            Location::field(source, line, i + 1, "key"),
                            format!(
                                "key `{key}` was judged on line {}; this row {what}: rows with \
                                 one key are votes on one judgment",
                                battles[first].line.unwrap_or_default()
                            ),
                        )
                    })?;
                    true
                }
                None => {
                    judged.insert(key.to_owned(), battles.len());
                    false
                }
            },
            _ => false,
        };
        battles.push(ScoredBattle {
            judge_repeat,
            ..battle
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

/// Whether `later` repeats the judgment of `first` (same two models, the same judge signal
/// seen from its own sides); otherwise what differs.
fn same_judgment(first: &ScoredBattle, later: &ScoredBattle) -> std::result::Result<(), String> {
    let flipped = (first.a, first.b) == (later.b, later.a);
    if !flipped && (first.a, first.b) != (later.a, later.b) {
        return Err("compares other models".to_owned());
    }
    let turn = |v: f64| if flipped { -v } else { v };
    let turn_target = |y: f64| if flipped { 1.0 - y } else { y };
    let same = first.score.map(turn) == later.score
        && first.order_flip == later.order_flip
        && first.judge.map(turn_target) == later.judge;
    if same {
        Ok(())
    } else {
        Err("has another judge signal".to_owned())
    }
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
    /// What matched, what did not, and the warnings that follow.
    pub summary: JoinSummary,
}

/// The counts of a join of human battles with judge verdicts on a key (its warnings follow from
/// them: [`JoinSummary::warnings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinSummary {
    /// Human battles (votes) in the human file.
    pub human_battles: usize,
    /// Human battles whose key has a judge verdict: the human side of the study.
    pub matched_human_battles: usize,
    /// Human battles whose key has no judge verdict (left out).
    pub unmatched_human_battles: usize,
    /// Verdicts (keys) in the judge file.
    pub judge_verdicts: usize,
    /// Verdicts whose key some human battle has: the judge side of the study, one observation
    /// each however many human votes share the key.
    pub matched_judge_verdicts: usize,
    /// Verdicts whose key no human battle has (left out).
    pub unmatched_judge_verdicts: usize,
    /// Models of the human file that no matched battle involves: they get no rating.
    pub unrated_models: Vec<UnratedModel>,
}

/// A model left out of a study, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnratedModel {
    pub model: String,
    pub reason: String,
}

/// Joins a judge's verdicts to human labels when they come as two battle files that share a
/// key column (LLMFAO's pair `id`, say): every human battle whose key the judge also judged
/// becomes one scored battle with `judge` = the judge's target on that key, oriented to the
/// human battle's sides, and `human` = the human target. Several human votes on one key share
/// the judge's verdict: the first carries it, the others are marked
/// [`ScoredBattle::judge_repeat`], so the judge's fits count each verdict once while the human
/// side keeps every vote. Models are those of the matched battles, in the human file's order;
/// the human file's other models are listed in [`JoinSummary::unrated_models`], and every
/// unmatched battle or verdict is counted ([`JoinSummary::warnings`]).
///
/// # Errors
/// [`Error::InvalidParam`] when a key appears twice in the judge file, when the judge compares
/// other models than the human battle with the same key, or when the key lists' lengths differ
/// from their battles; [`Error::Insufficient`] when no key matches (a matched battle always
/// leaves two models to compare).
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
                format!(
                    "key `{key}` appears more than once in the judge file: expected one verdict \
                     per key (a judge run that judged a pair more than once, in both orders say, \
                     leaves one verdict per pair in its `-judge-battles-per-pair.csv`)"
                ),
            ));
        }
    }
    let mut battles = Vec::with_capacity(human.battles.len());
    let mut used = std::collections::HashSet::new();
    let mut unmatched = 0;
    let mut models = ModelIndex::default();
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
            a: models.id(ha),
            b: models.id(hb),
            score: None,
            order_flip: false,
            judge: Some(judge_y),
            human: Some(h.y),
            prompt: None,
            judge_repeat: !used.insert(key.as_str()),
            line: None,
        });
    }
    if battles.is_empty() {
        return Err(Error::Insufficient(format!(
            "no human battle shares a key with the judge file: the {} human battles and {} \
             judge verdicts have no key in common (are both files keyed by the same column?)",
            human.battles.len(),
            judge.battles.len()
        )));
    }
    // Every matched battle pits two different models, so at least two remain.
    let summary = JoinSummary::new(human, judge.battles.len(), &models, used.len(), unmatched);
    Ok(JoinedVerdicts {
        data: ScoredBattles {
            models: models.names,
            prompts: Vec::new(),
            signal: JudgeSignal::Verdict,
            battles,
        },
        summary,
    })
}

/// Reads a human battles file and a judge battles file that share the column `key` and joins
/// them ([`join_verdicts`]). Returns the joined battles and their source name for reports,
/// `human ⋈ judge on `key``.
///
/// # Errors
/// The parsers' located errors (a missing `key` column included) and those of
/// [`join_verdicts`].
pub fn join_battle_files(
    (human_name, human_bytes): (&str, &[u8]),
    (judge_name, judge_bytes): (&str, &[u8]),
    key: &str,
) -> Result<(String, JoinedVerdicts)> {
    let (human, human_keys) = parse_battles_with_column(human_name, human_bytes, key)?;
    let (judge, judge_keys) = parse_battles_with_column(judge_name, judge_bytes, key)?;
    let joined = join_verdicts(&judge, &judge_keys, &human, &human_keys)?;
    Ok((format!("{human_name} ⋈ {judge_name} on `{key}`"), joined))
}

impl JoinSummary {
    fn new(
        human: &Battles,
        judge_verdicts: usize,
        matched_models: &ModelIndex,
        matched_judge_verdicts: usize,
        unmatched_human_battles: usize,
    ) -> Self {
        let unrated_models: Vec<UnratedModel> = human
            .models
            .iter()
            .filter(|m| !matched_models.names.contains(m))
            .map(|m| UnratedModel {
                model: m.clone(),
                reason: "none of its human battles has a judge verdict on its key".to_owned(),
            })
            .collect();
        Self {
            human_battles: human.battles.len(),
            matched_human_battles: human.battles.len() - unmatched_human_battles,
            unmatched_human_battles,
            judge_verdicts,
            matched_judge_verdicts,
            unmatched_judge_verdicts: judge_verdicts - matched_judge_verdicts,
            unrated_models,
        }
    }

    /// What the join left out, said with the counts: battles or verdicts without a partner
    /// (loudly when most human battles found none), models that got no rating.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.unmatched_human_battles > 0 || self.unmatched_judge_verdicts > 0 {
            let mostly = if 2 * self.matched_human_battles < self.human_battles {
                "most of the join failed: "
            } else {
                ""
            };
            warnings.push(format!(
                "{mostly}{}; unmatched battles and verdicts are left out",
                self.counts()
            ));
        }
        if !self.unrated_models.is_empty() {
            let names: Vec<&str> = self
                .unrated_models
                .iter()
                .map(|m| m.model.as_str())
                .collect();
            warnings.push(format!(
                "{} model(s) of the human file have no battle with a judge verdict and get no \
                 rating on either leaderboard: {}",
                names.len(),
                names.join(", ")
            ));
        }
        warnings
    }

    /// "matched M of N human battles and V of W judge verdicts".
    fn counts(&self) -> String {
        format!(
            "matched {} of {} human battles and {} of {} judge verdicts",
            self.matched_human_battles,
            self.human_battles,
            self.matched_judge_verdicts,
            self.judge_verdicts
        )
    }
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
        let s = &joined.summary;
        assert_eq!(
            (
                s.human_battles,
                s.matched_human_battles,
                s.unmatched_human_battles
            ),
            (4, 3, 1)
        );
        assert_eq!(
            (
                s.judge_verdicts,
                s.matched_judge_verdicts,
                s.unmatched_judge_verdicts
            ),
            (2, 2, 0)
        );
        assert!(s.unrated_models.is_empty());
        let warnings = s.warnings();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("matched 3 of 4 human battles and 2 of 2 judge verdicts"));
        // Two human votes on key 2 share one verdict: the judge counts it once.
        let repeats: Vec<bool> = joined.data.battles.iter().map(|b| b.judge_repeat).collect();
        assert_eq!(repeats, [false, false, true]);
        assert_eq!(joined.data.n_judge_verdicts(), 2);
        let y = [1.0, 0.5, 0.5];
        assert_eq!(joined.data.judge_battles(&y).unwrap().battles.len(), 2);
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

    #[test]
    fn a_join_that_mostly_fails_leaves_the_unseen_models_unrated_and_says_so() {
        // The judge covers one key of five: only A and B remain; C and D get no rating.
        let judge = Battles::from_named([("A", "B", 1.0)]);
        let human = Battles::from_named([
            ("A", "B", 1.0),
            ("A", "C", 1.0),
            ("C", "D", 0.0),
            ("B", "D", 0.5),
            ("B", "C", 1.0),
        ]);
        let keys = ["1", "2", "3", "4", "5"].map(str::to_owned);
        let joined = join_verdicts(&judge, &keys[..1], &human, &keys).unwrap();
        assert_eq!(joined.data.models, ["A", "B"]);
        let unrated: Vec<&str> = joined
            .summary
            .unrated_models
            .iter()
            .map(|m| m.model.as_str())
            .collect();
        assert_eq!(unrated, ["C", "D"]);
        let warnings = joined.summary.warnings();
        assert!(warnings[0].starts_with("most of the join failed: matched 1 of 5"));
        assert!(warnings[1].contains("C, D"));
    }

    use super::*;

    fn parse(text: &str) -> Result<ScoredBattles> {
        parse_scored_battles("s.csv", text.as_bytes())
    }

    #[test]
    fn rows_with_one_key_are_votes_on_one_judgment() {
        // Key 1 judged once and voted on three times (once from the other side); key 2 once.
        let data = parse(
            "key,model_a,model_b,score,human\n\
             1,x,y,2,model_a\n\
             1,x,y,2,model_b\n\
             1,y,x,-2,model_a\n\
             2,y,z,-1,tie\n\
             ,x,z,1,model_a\n",
        )
        .unwrap();
        let repeats: Vec<bool> = data.battles.iter().map(|b| b.judge_repeat).collect();
        assert_eq!(repeats, [false, true, true, false, false]);
        assert_eq!(data.n_judge_verdicts(), 3);
        assert_eq!(data.human_battles().battles.len(), 5);
        let y: Vec<f64> = data
            .battles
            .iter()
            .map(|b| b.hard_target().unwrap())
            .collect();
        assert_eq!(data.judge_battles(&y).unwrap().battles.len(), 3);
        // Another signal, or other models, under one key is an error on that row.
        let err = parse("key,model_a,model_b,score\n1,x,y,2\n1,x,y,3\n").unwrap_err();
        assert!(
            err.to_string().contains("line 3")
                && err.to_string().contains("key `1` was judged on line 2")
                && err.to_string().contains("another judge signal"),
            "{err}"
        );
        let err = parse("key,model_a,model_b,score\n1,x,y,2\n1,x,z,2\n").unwrap_err();
        assert!(err.to_string().contains("compares other models"), "{err}");
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
