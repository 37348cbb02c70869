//! Win rates: the head-to-head table of a battles file — for each pair of models that met, how
//! many battles, who won them and the share one took, with a Wilson score interval; for each
//! model its share of all its battles and its *average win rate*, the mean of its head-to-head
//! shares over the opponents it met (Evalica's `average_win_rate`). LMArena shows the same table
//! beside its leaderboard ("fraction of model A wins", "battle count"): what the ratings are
//! fitted from, pair by pair.
//!
//! Model: model i's share against j is `(wins_i + w·ties) / (wins_i + wins_j + 2w·ties)`, with
//! the tie weight w = ½ (a tie is half a win to each, AlpacaEval's and Evalica's default) or
//! w = 0 (ties left out: LMArena's fraction of the non-tied battles). The interval is Wilson's
//! score interval for a proportion (Wilson 1927) on the battles counted, which stays inside
//! [0, 1] and is not empty when one side won every battle (the Wald interval would be a point).
//! Battles are treated as independent: battles that share a prompt are not, and then the
//! interval is too narrow (a cluster bootstrap is the leaderboard's `--cluster`).
//!
//! The average win rate is descriptive: it weighs every opponent met alike, so a model that met
//! only weak opponents gets a high one. Averages are comparable only between models that met
//! the same opponents; when they did not, the report says so, and the Bradley–Terry leaderboard
//! (which accounts for whom each model met) is the ranking to read.
//!
//! Arguments: [`Battles`] and [`WinRatesParams`]. Returns: [`WinRates`] — every pair that met
//! (in the battles' model order), every model (highest average first). Errors:
//! [`Error::InvalidParam`] for a level outside (0, 1); [`Error::Insufficient`] for no battles.
//! A pair whose battles were all ties, with ties left out, has no share (not identified,
//! warned), nor has a model all of whose battles were.

use crate::analysis::kind::{register_kind, File, Files, Kind, Roles};
use crate::analysis::warnings::own_warnings;
use crate::compare::sample_estimates::wilson;
use crate::io::checks::in_open_unit;
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Result};
use crate::rankings::battles::{parse_battles, Battles};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

register_kind! {
    /// The head-to-head win rates of `battles`: each pair's battles, wins and share with its
    /// Wilson interval, and each model's average win rate over the opponents it met
    /// (`tribunal stats win-rates`).
    23 WinRates = "win_rates": WinRatesKind
}

impl Kind for WinRatesKind {
    type Params = WinRatesParams;
    type Report = WinRates;

    fn example() -> WinRatesParams {
        WinRatesParams::default()
    }

    fn example_inputs() -> &'static [(&'static str, &'static str)] {
        &[("battles", "tests/data/llmfao/gpt4-crowd-comparisons.csv")]
    }

    fn roles(_: &WinRatesParams) -> Roles {
        Roles::none().required("battles", DatasetKind::Battles)
    }

    fn validate(params: &WinRatesParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &WinRatesParams, files: &Files) -> Result<WinRates> {
        let File { name, bytes } = files.get("battles")?;
        params.tabulate(&parse_battles(name, bytes)?)
    }

    #[cfg(feature = "cli")]
    fn cli() -> Option<crate::analysis::kind::KindCli> {
        use crate::analysis::{kind::KindCli, Analysis};
        Some(KindCli::of(
            "Win rates: each pair's battles, wins and share with a Wilson interval, and each \
             model's average win rate over the opponents it met (LMArena's head-to-head table).",
            Analysis::WinRates,
        ))
    }
}

/// How a tie counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Ties {
    /// Half a win to each side (AlpacaEval, Evalica's `tie_weight = 0.5`).
    #[default]
    Half,
    /// Not counted: shares of the non-tied battles (LMArena's win fraction).
    Excluded,
}

impl Ties {
    /// The share of a tie each side gets.
    fn weight(self) -> f64 {
        match self {
            Self::Half => 0.5,
            Self::Excluded => 0.0,
        }
    }
}

/// Settings of the win-rate table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WinRatesParams {
    /// How a tie counts: `half` a win to each side, or `excluded` from the battles counted.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Ties::Half))]
    pub ties: Ties,
    /// Coverage of each pair's Wilson interval.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = WinRatesParams::default().level, allow_negative_numbers = true)
    )]
    pub level: f64,
}

impl Default for WinRatesParams {
    fn default() -> Self {
        Self {
            ties: Ties::Half,
            level: 0.95,
        }
    }
}

/// One pair that met: `model_a` before `model_b` in the battles' order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairWinRate {
    pub model_a: String,
    pub model_b: String,
    /// Every battle of the pair, and how each ended.
    pub battles: usize,
    pub a_wins: usize,
    pub b_wins: usize,
    pub ties: usize,
    /// Battles counted in the share (`battles`, less the ties when they are excluded).
    pub counted: usize,
    /// `model_a`'s share of the counted battles (`model_b`'s is 1 − it); `None` when none
    /// was counted.
    pub share_a: Option<f64>,
    /// Wilson's score interval of `share_a` at `params.level`.
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

/// One model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelWinRate {
    pub model: String,
    pub battles: usize,
    /// The models it met.
    pub opponents: usize,
    /// Its share of all its counted battles; `None` when none was counted.
    pub share: Option<f64>,
    /// The mean of its head-to-head shares over the opponents it met with a share; `None`
    /// when it has none.
    pub average_win_rate: Option<f64>,
}

/// The win-rate table of a battles file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinRates {
    pub battles: usize,
    pub ties: usize,
    /// Every model, highest average win rate first (then name); those without one last.
    pub models: Vec<ModelWinRate>,
    /// Every pair that met, in the battles' model order.
    pub pairs: Vec<PairWinRate>,
    /// Whether every model met every other (averages then compare like with like).
    pub complete: bool,
    pub params: WinRatesParams,
    pub warnings: Vec<String>,
}

own_warnings!(WinRates);

impl WinRatesParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a level outside (0, 1).
    pub fn validate(&self) -> Result<()> {
        in_open_unit("level", self.level)
    }

    /// The table of `battles` (see the module's doc).
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for invalid settings; [`Error::Insufficient`] for no battles.
    pub fn tabulate(&self, battles: &Battles) -> Result<WinRates> {
        self.validate()?;
        if battles.battles.is_empty() {
            return Err(Error::Insufficient(
                "win rates need at least one battle".into(),
            ));
        }
        let mut tallies: BTreeMap<(usize, usize), Tally> = BTreeMap::new();
        for battle in &battles.battles {
            let (key, a_won) = match battle.a < battle.b {
                true => ((battle.a, battle.b), battle.y),
                false => ((battle.b, battle.a), 1.0 - battle.y),
            };
            tallies.entry(key).or_default().add(a_won);
        }
        let weight = self.ties.weight();
        let alpha = 1.0 - self.level;
        let pairs: Vec<PairWinRate> = tallies
            .iter()
            .map(|(&(a, b), tally)| {
                tally.pair(&battles.models[a], &battles.models[b], weight, alpha)
            })
            .collect();
        let models = self.models(battles, &tallies);
        let complete = models.iter().all(|m| m.opponents + 1 == battles.n_models());
        let mut warnings = Vec::new();
        if !complete {
            let fewer = models
                .iter()
                .filter(|m| m.opponents + 1 < battles.n_models())
                .count();
            warnings.push(format!(
                "{fewer} of {} models met fewer than all the others: an average win rate weighs \
                 the opponents a model met, so averages of models that met different opponents \
                 do not compare (the Bradley–Terry leaderboard accounts for whom each met)",
                models.len()
            ));
        }
        let unshared = pairs.iter().filter(|p| p.share_a.is_none()).count();
        if unshared > 0 {
            warnings.push(format!(
                "{unshared} pair(s) met only in ties, which are excluded: their share is not \
                 identified"
            ));
        }
        Ok(WinRates {
            battles: battles.battles.len(),
            ties: pairs.iter().map(|p| p.ties).sum(),
            models,
            pairs,
            complete,
            params: self.clone(),
            warnings,
        })
    }

    /// Every model's row, highest average first.
    fn models(
        &self,
        battles: &Battles,
        tallies: &BTreeMap<(usize, usize), Tally>,
    ) -> Vec<ModelWinRate> {
        let weight = self.ties.weight();
        let n = battles.n_models();
        let mut battles_of = vec![0_usize; n];
        let mut opponents = vec![0_usize; n];
        let mut mass = vec![0.0_f64; n];
        let mut counted = vec![0.0_f64; n];
        let mut shares: Vec<Vec<f64>> = vec![Vec::new(); n];
        for (&(a, b), tally) in tallies {
            let (a_mass, b_mass, total) = tally.masses(weight);
            for (model, own) in [(a, a_mass), (b, b_mass)] {
                battles_of[model] += tally.battles();
                opponents[model] += 1;
                mass[model] += own;
                counted[model] += total;
                if total > 0.0 {
                    shares[model].push(own / total);
                }
            }
        }
        let mut rows: Vec<ModelWinRate> = (0..n)
            .map(|i| ModelWinRate {
                model: battles.models[i].clone(),
                battles: battles_of[i],
                opponents: opponents[i],
                share: (counted[i] > 0.0).then(|| mass[i] / counted[i]),
                average_win_rate: (!shares[i].is_empty())
                    .then(|| shares[i].iter().sum::<f64>() / shares[i].len() as f64),
            })
            .collect();
        rows.sort_by(|x, y| {
            let key = |r: &ModelWinRate| r.average_win_rate.unwrap_or(f64::NEG_INFINITY);
            key(y)
                .total_cmp(&key(x))
                .then_with(|| x.model.cmp(&y.model))
        });
        rows
    }
}

/// One pair's battles, from the first model's side.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    a_wins: usize,
    b_wins: usize,
    ties: usize,
    /// The first model's target mass of battles that are not wins, losses or ties (soft
    /// targets), and their number.
    soft_mass: f64,
    soft: usize,
}

impl Tally {
    fn add(&mut self, a_won: f64) {
        if a_won == 1.0 {
            self.a_wins += 1;
        } else if a_won == 0.0 {
            self.b_wins += 1;
        } else if a_won == 0.5 {
            self.ties += 1;
        } else {
            self.soft_mass += a_won;
            self.soft += 1;
        }
    }

    fn battles(&self) -> usize {
        self.a_wins + self.b_wins + self.ties + self.soft
    }

    /// Each side's counted mass and the battles counted, ties weighing `weight` to each side.
    fn masses(&self, weight: f64) -> (f64, f64, f64) {
        let ties = weight * self.ties as f64;
        let a = self.a_wins as f64 + ties + self.soft_mass;
        let b = self.b_wins as f64 + ties + (self.soft as f64 - self.soft_mass);
        (a, b, a + b)
    }

    /// The pair's row, with Wilson's interval at error level `alpha`.
    fn pair(&self, a: &str, b: &str, weight: f64, alpha: f64) -> PairWinRate {
        let (a_mass, _, total) = self.masses(weight);
        let interval = (total > 0.0).then(|| wilson(a_mass, total, alpha));
        PairWinRate {
            model_a: a.to_owned(),
            model_b: b.to_owned(),
            battles: self.battles(),
            a_wins: self.a_wins,
            b_wins: self.b_wins,
            ties: self.ties,
            counted: total.round() as usize,
            share_a: interval.as_ref().map(|i| i.estimate),
            lower: interval.as_ref().map(|i| i.lower),
            upper: interval.as_ref().map(|i| i.upper),
        }
    }
}

impl WinRates {
    /// The report in one sentence.
    pub fn reading(&self) -> String {
        let Some(top) = self.models.first() else {
            return String::new();
        };
        let ties = match self.params.ties {
            Ties::Half => "ties as half a win",
            Ties::Excluded => "ties left out",
        };
        let average = top
            .average_win_rate
            .map_or_else(|| "no share".to_owned(), |a| format!("{:.1}%", 100.0 * a));
        format!(
            "{} battles between {} models in {} pairs ({ties}): {} has the highest average win \
             rate, {average}.",
            self.battles,
            self.models.len(),
            self.pairs.len(),
            top.model
        )
    }
}
