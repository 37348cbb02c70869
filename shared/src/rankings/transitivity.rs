//! Transitivity of pairwise verdicts: how often a judge's (or a crowd's) preferences go round
//! in a circle — one of the judge errors seed 002 names beside position bias and
//! self-preference, and one no leaderboard shows (Bradley–Terry fits a line through a cycle).
//!
//! Model: the battles fall into groups (one prompt's battles, or all of them as one group).
//! Within a group each pair of models that met gets its majority verdict: i ≻ j when i took
//! more than half of the target mass against j (its wins and half its ties); a pair split
//! evenly is undecided. A *triad* is three models of a group whose three pairs are all decided;
//! it is *cyclic* when i ≻ j ≻ k ≻ i (Kendall & Babington Smith's circular triad, 1940) and
//! transitive otherwise. The *cyclic share* is cyclic triads / triads, summed over groups.
//! Verdicts drawn from one quality per model make no cycle once each pair has enough battles;
//! coin flips make a quarter of triads cyclic in expectation, whatever the design (each triad's
//! three orientations are then independent and two of their eight are cycles). A cycle among
//! near-equal models can be sampling noise as well as an incoherent judge, so compare raters on
//! the same pairs (a judge against the crowd), and read the bootstrap interval: a cluster
//! bootstrap of groups (prompts). All battles as one tournament get no interval: resampling
//! battles redraws the majorities of pairs with few battles and adds cycles the data do not
//! hold (see [`TransitivityParams::measure`]'s warning).
//!
//! Counting uses bitsets of each model's decided, won and lost pairs: a pair's common decided
//! neighbours are its triads, and an edge i ≻ j closes a cycle with every k that j beat and
//! that beat i, so a group of m models costs O(m³/64), not O(m³).
//!
//! Arguments: [`Battles`] with each battle's group value (or none), and
//! [`TransitivityParams`]. Returns: [`Transitivity`] — the pooled counts and share with its
//! interval, each model's, and the first cycles by name. Errors: [`Error::InvalidParam`] for
//! settings out of range; [`Error::Insufficient`] for no battles. No triad at all is not an
//! error: the share is `None` with a warning saying it is not identified.

use crate::analysis::kind::{register_kind, File, Files, Kind, Roles};
use crate::analysis::warnings::own_warnings;
use crate::io::dataset_kind::DatasetKind;
use crate::io::error::{Error, Result};
use crate::math::resample::{bootstrap, cluster_labels, BootstrapParams, Interval};
use crate::rankings::battles::{parse_battles, parse_battles_with_column, Battle, Battles};
use crate::rankings::pairwise::Pairwise;
use serde::{Deserialize, Serialize};

register_kind! {
    /// How often the majority verdicts of `battles` go round in a circle (cyclic triads),
    /// within each group of a column when given (`tribunal stats transitivity`).
    22 Transitivity = "transitivity": TransitivityKind
}

impl Kind for TransitivityKind {
    type Params = TransitivityParams;
    type Report = Transitivity;

    fn example() -> TransitivityParams {
        TransitivityParams::default()
    }

    fn example_inputs() -> &'static [(&'static str, &'static str)] {
        &[("battles", "tests/data/llmfao/gpt3-crowd-comparisons.csv")]
    }

    fn roles(_: &TransitivityParams) -> Roles {
        Roles::none().required("battles", DatasetKind::Battles)
    }

    fn validate(params: &TransitivityParams) -> Result<()> {
        params.validate()
    }

    fn run(params: &TransitivityParams, files: &Files) -> Result<Transitivity> {
        let File { name, bytes } = files.get("battles")?;
        match &params.group {
            Some(column) => {
                let (battles, groups) = parse_battles_with_column(name, bytes, column)?;
                params.measure(&battles, Some(&groups))
            }
            None => params.measure(&parse_battles(name, bytes)?, None),
        }
    }

    #[cfg(feature = "cli")]
    fn cli() -> Option<crate::analysis::kind::KindCli> {
        use crate::analysis::{kind::KindCli, Analysis};
        Some(KindCli::of(
            "Transitivity: how often the majority verdicts go round in a circle (cyclic triads), \
             within each prompt or over all battles, against the quarter coin flips would give.",
            Analysis::Transitivity,
        ))
    }
}

/// The share of cyclic triads among coin-flip verdicts.
pub const COIN_FLIP_SHARE: f64 = 0.25;

/// Settings of the transitivity analysis. No bootstrap when `bootstrap.rounds` is 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TransitivityParams {
    /// Column whose value groups the battles (a prompt id): each group's verdicts make their
    /// own tournament, and the bootstrap resamples groups. None: all battles make one, with no
    /// interval.
    #[cfg_attr(feature = "cli", arg(long))]
    pub group: Option<String>,
    /// How many cyclic triads to list by name (the first by group, then model names).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = TransitivityParams::default().list, allow_negative_numbers = true)
    )]
    pub list: usize,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub bootstrap: BootstrapParams,
}

impl Default for TransitivityParams {
    fn default() -> Self {
        Self {
            group: None,
            list: 20,
            bootstrap: BootstrapParams::default(),
        }
    }
}

/// One model's triads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelTriads {
    pub model: String,
    /// Triads the model is in, and the cyclic ones.
    pub triads: usize,
    pub cyclic: usize,
    /// `cyclic / triads`.
    pub cyclic_share: f64,
}

/// A cyclic triad: `models[0]` ≻ `models[1]` ≻ `models[2]` ≻ `models[0]`, starting at the
/// first name in sorted order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cycle {
    /// The group's value; `None` when the battles are not grouped.
    pub group: Option<String>,
    pub models: [String; 3],
}

/// How transitive the verdicts are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transitivity {
    pub battles: usize,
    /// Groups (1 when not grouped), and those with at least one triad.
    pub groups: usize,
    pub groups_with_triads: usize,
    /// Pairs of models that met within a group, and those split evenly (no majority).
    pub pairs: usize,
    pub undecided_pairs: usize,
    /// Triads (three models whose three pairs are decided) and the cyclic ones.
    pub triads: usize,
    pub cyclic: usize,
    /// `cyclic / triads`; `None` when there is no triad (not identified).
    pub cyclic_share: Option<f64>,
    /// The share's bootstrap interval over groups; `None` without a bootstrap, without a
    /// triad, without groups or with one group only (the last three warned).
    pub interval: Option<Interval>,
    /// What coin-flip verdicts would give in expectation: ¼.
    pub coin_flip_share: f64,
    /// Every model in a triad: most cyclic triads first, then highest share, then name.
    pub models: Vec<ModelTriads>,
    /// The first cyclic triads (at most `params.list`), by group then names.
    pub cycles: Vec<Cycle>,
    pub params: TransitivityParams,
    pub warnings: Vec<String>,
}

own_warnings!(Transitivity);

impl Transitivity {
    /// The report in one sentence.
    pub fn reading(&self) -> String {
        let Some(share) = self.cyclic_share else {
            return "No three models have all three of their pairs decided, so transitivity \
                    cannot be measured here."
                .to_owned();
        };
        let within = match &self.params.group {
            Some(column) => format!(" within a {column}"),
            None => String::new(),
        };
        let interval = self.interval.map_or_else(String::new, |i| {
            format!(
                " ({:.0}% interval {:.1}–{:.1}%)",
                100.0 * i.level,
                100.0 * i.lower,
                100.0 * i.upper
            )
        });
        format!(
            "{} of {} triads{within} go round in a circle: {:.1}%{interval}, against {:.0}% for \
             coin flips.",
            self.cyclic,
            self.triads,
            100.0 * share,
            100.0 * COIN_FLIP_SHARE
        )
    }
}

impl TransitivityParams {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for an empty group column or an invalid bootstrap.
    pub fn validate(&self) -> Result<()> {
        if let Some(column) = &self.group {
            if column.trim().is_empty() {
                return Err(Error::param("group", "the column name is empty"));
            }
        }
        if self.bootstrap.rounds > 0 {
            self.bootstrap.validate()?;
        }
        Ok(())
    }

    /// The transitivity of `battles`, grouped by `groups` (one value per battle) when given.
    ///
    /// # Errors
    /// See the [module documentation](self); [`Error::InvalidParam`] when `groups` does not
    /// hold one value per battle.
    pub fn measure(&self, battles: &Battles, groups: Option<&[String]>) -> Result<Transitivity> {
        self.validate()?;
        if battles.battles.is_empty() {
            return Err(Error::Insufficient(
                "transitivity needs battles, found none".to_owned(),
            ));
        }
        let (labels, names) = match groups {
            Some(values) if values.len() != battles.battles.len() => {
                return Err(Error::param(
                    "group",
                    format!(
                        "expected one group value per battle ({}), found {}",
                        battles.battles.len(),
                        values.len()
                    ),
                ))
            }
            Some(values) => {
                // Each group's value by its number (numbered in sorted order).
                let labels = cluster_labels(values);
                let mut names: Vec<Option<&str>> =
                    vec![None; labels.iter().max().map_or(0, |&l| l + 1)];
                for (value, &label) in values.iter().zip(&labels) {
                    names[label].get_or_insert(value);
                }
                let names = names
                    .into_iter()
                    .map(|n| n.unwrap_or_default().to_owned())
                    .collect();
                (labels, Some(names))
            }
            None => (vec![0; battles.battles.len()], None),
        };
        let n_groups = names.as_ref().map_or(1, Vec::len);
        let mut members: Vec<Vec<Battle>> = vec![Vec::new(); n_groups];
        for (battle, &label) in battles.battles.iter().zip(&labels) {
            members[label].push(*battle);
        }
        let n_models = battles.n_models();
        let tournaments: Vec<Tournament> = members
            .iter()
            .map(|group| Tournament::of(n_models, group))
            .collect();

        let mut warnings = Vec::new();
        let mut per_model = vec![(0usize, 0usize); n_models];
        let (mut pairs, mut undecided, mut triads, mut cyclic) = (0, 0, 0, 0);
        let mut groups_with_triads = 0;
        let mut cycles = Vec::new();
        for (g, tournament) in tournaments.iter().enumerate() {
            let counts = tournament.counts(Some(&mut per_model));
            pairs += tournament.pairs;
            undecided += tournament.undecided;
            triads += counts.0;
            cyclic += counts.1;
            groups_with_triads += usize::from(counts.0 > 0);
            if cycles.len() < self.list && counts.1 > 0 {
                let group = names.as_ref().map(|n| n[g].clone());
                for [i, j, k] in tournament.cycles(&battles.models, self.list - cycles.len()) {
                    let models = [i, j, k].map(|m| battles.models[m].clone());
                    cycles.push(Cycle {
                        group: group.clone(),
                        models,
                    });
                }
            }
        }
        let cyclic_share = (triads > 0).then(|| cyclic as f64 / triads as f64);
        if triads == 0 {
            warnings.push(format!(
                "no three models{} have all three of their pairs decided ({pairs} pairs met, \
                 {undecided} of them split evenly): the cyclic share is not identified — more \
                 models per {} or more battles per pair would give triads",
                names.as_ref().map_or("", |_| " of one group"),
                self.unit()
            ));
        } else if cyclic as f64 >= COIN_FLIP_SHARE * triads as f64 {
            warnings.push(format!(
                "{cyclic} of {triads} triads are cyclic, at least the quarter that coin-flip \
                 verdicts would give: these verdicts order the models no better than chance"
            ));
        }
        // Without a triad there is no share to resample (said above).
        let interval = match triads {
            0 => None,
            _ => self.interval(&tournaments, &mut warnings)?,
        };
        if let (Some(i), Some(share)) = (interval, cyclic_share) {
            if share < COIN_FLIP_SHARE && i.upper >= COIN_FLIP_SHARE {
                warnings.push(format!(
                    "the share's interval reaches the quarter that coin-flip verdicts would give \
                     ({:.1}–{:.1}%): these verdicts are not shown to order the models better \
                     than chance",
                    100.0 * i.lower,
                    100.0 * i.upper
                ));
            }
        }
        let mut models: Vec<ModelTriads> = per_model
            .iter()
            .enumerate()
            .filter(|(_, &(t, _))| t > 0)
            .map(|(m, &(t, c))| ModelTriads {
                model: battles.models[m].clone(),
                triads: t,
                cyclic: c,
                cyclic_share: c as f64 / t as f64,
            })
            .collect();
        models.sort_by(|a, b| {
            b.cyclic
                .cmp(&a.cyclic)
                .then(b.cyclic_share.total_cmp(&a.cyclic_share))
                .then(a.model.cmp(&b.model))
        });
        Ok(Transitivity {
            battles: battles.battles.len(),
            groups: n_groups,
            groups_with_triads,
            pairs,
            undecided_pairs: undecided,
            triads,
            cyclic,
            cyclic_share,
            interval,
            coin_flip_share: COIN_FLIP_SHARE,
            models,
            cycles,
            params: self.clone(),
            warnings,
        })
    }

    /// What a group is, in a warning.
    fn unit(&self) -> &str {
        self.group.as_deref().unwrap_or("file")
    }

    /// The bootstrap interval of the cyclic share, for verdicts with at least one triad: groups
    /// resampled with their counts. Ungrouped battles get none: a battle bootstrap would redraw
    /// the majorities of pairs with few battles (a pair left out, a 2–1 split drawn 1–2) and so
    /// add cycles the data do not hold — on GPT-3.5's pooled LLMFAO verdicts (14.5 % cyclic) its
    /// percentile interval was 15.6–19.3 %, above the share. Battles are no unit to resample
    /// here; prompts are.
    fn interval(
        &self,
        tournaments: &[Tournament],
        warnings: &mut Vec<String>,
    ) -> Result<Option<Interval>> {
        if self.bootstrap.rounds == 0 {
            return Ok(None);
        }
        if self.group.is_none() {
            warnings.push(
                "all battles as one tournament: no interval, as resampling battles would redraw \
                 the majorities of pairs with few battles and add cycles the data do not hold; \
                 group the battles by a column (a prompt) for a bootstrap of groups"
                    .to_owned(),
            );
            return Ok(None);
        }
        if tournaments.len() < 2 {
            warnings.push(format!(
                "one {} only: a bootstrap over groups needs at least 2, so the share has no \
                 interval",
                self.unit()
            ));
            return Ok(None);
        }
        let counts: Vec<(usize, usize)> = tournaments.iter().map(|t| t.counts(None)).collect();
        let interval = bootstrap(counts.len(), &self.bootstrap, |drawn| {
            let (t, c) = drawn
                .iter()
                .fold((0, 0), |(t, c), &g| (t + counts[g].0, c + counts[g].1));
            if t > 0 {
                c as f64 / t as f64
            } else {
                f64::NAN
            }
        })?;
        if interval.valid_rounds < self.bootstrap.rounds {
            warnings.push(format!(
                "{} of {} bootstrap rounds drew no triad; the interval rests on the other {}",
                self.bootstrap.rounds - interval.valid_rounds,
                self.bootstrap.rounds,
                interval.valid_rounds
            ));
        }
        Ok(Some(interval))
    }
}

/// One group's majority verdicts as bitsets over the models that met in it.
struct Tournament {
    /// The global model number of each local one, in ascending order.
    models: Vec<usize>,
    /// Per local model: the models it beat, the models that beat it, and both.
    beat: Vec<Vec<u64>>,
    beaten_by: Vec<Vec<u64>>,
    decided: Vec<Vec<u64>>,
    pairs: usize,
    undecided: usize,
}

impl Tournament {
    /// The majority verdict of each pair of `battles` (models numbered up to `n_models`), from
    /// their [`Pairwise`] totals: the pair's low model won it when it took more than half of the
    /// battles' target (exact: targets are 0, ½ or 1).
    fn of(n_models: usize, battles: &[Battle]) -> Self {
        let totals = Pairwise::from_battles(n_models, battles);
        let mut models: Vec<usize> = totals.pairs.iter().flat_map(|p| [p.i, p.j]).collect();
        models.sort_unstable();
        models.dedup();
        let mut local = vec![usize::MAX; n_models];
        for (l, &m) in models.iter().enumerate() {
            local[m] = l;
        }
        let m = models.len();
        let words = m.div_ceil(64);
        let (mut beat, mut beaten_by, mut decided) = (
            vec![vec![0u64; words]; m],
            vec![vec![0u64; words]; m],
            vec![vec![0u64; words]; m],
        );
        let set = |sets: &mut Vec<Vec<u64>>, i: usize, j: usize| sets[i][j / 64] |= 1 << (j % 64);
        let mut undecided = 0;
        for pair in &totals.pairs {
            let (i, j) = (local[pair.i], local[pair.j]);
            let (winner, loser) = match (2.0 * pair.wins_i).total_cmp(&pair.n) {
                std::cmp::Ordering::Greater => (i, j),
                std::cmp::Ordering::Less => (j, i),
                std::cmp::Ordering::Equal => {
                    undecided += 1;
                    continue;
                }
            };
            set(&mut beat, winner, loser);
            set(&mut beaten_by, loser, winner);
            set(&mut decided, i, j);
            set(&mut decided, j, i);
        }
        Self {
            models,
            beat,
            beaten_by,
            decided,
            pairs: totals.pairs.len(),
            undecided,
        }
    }

    /// Triads and cyclic triads; with `per_model`, each model's added to it (global numbers).
    fn counts(&self, mut per_model: Option<&mut Vec<(usize, usize)>>) -> (usize, usize) {
        let common = |x: &[u64], y: &[u64]| -> usize {
            x.iter()
                .zip(y)
                .map(|(a, b)| (a & b).count_ones() as usize)
                .sum()
        };
        let (mut triads, mut cyclic) = (0, 0);
        for i in 0..self.models.len() {
            let (mut own_triads, mut own_cyclic) = (0, 0);
            for j in ones(&self.decided[i]) {
                own_triads += common(&self.decided[i], &self.decided[j]);
            }
            for j in ones(&self.beat[i]) {
                own_cyclic += common(&self.beat[j], &self.beaten_by[i]);
            }
            // Each triad of i is seen from both of its other members; each cycle through i
            // once, from the model i beat in it.
            own_triads /= 2;
            triads += own_triads;
            cyclic += own_cyclic;
            if let Some(per_model) = per_model.as_deref_mut() {
                let entry = &mut per_model[self.models[i]];
                entry.0 += own_triads;
                entry.1 += own_cyclic;
            }
        }
        // Summed over models, each triad and each cycle is counted by its three members.
        (triads / 3, cyclic / 3)
    }

    /// Up to `limit` cyclic triads, each from its first model by name, in order of names. The
    /// cycles are gathered by their first model, in name order, and the gathering stops once
    /// `limit` are found: a tournament with millions of cycles lists its first without
    /// enumerating the rest.
    fn cycles(&self, names: &[String], limit: usize) -> Vec<[usize; 3]> {
        let name = |l: usize| names[self.models[l]].as_str();
        let mut order: Vec<usize> = (0..self.models.len()).collect();
        order.sort_by(|&x, &y| name(x).cmp(name(y)));
        let mut rank = vec![0; order.len()];
        for (r, &l) in order.iter().enumerate() {
            rank[l] = r;
        }
        let mut found = Vec::new();
        for &i in &order {
            if found.len() >= limit {
                break;
            }
            // i beat j, j beat k, k beat i, with i the first of the three by name.
            let mut from_i: Vec<[usize; 3]> = Vec::new();
            for j in ones(&self.beat[i]).filter(|&j| rank[j] > rank[i]) {
                for k in ones(&self.beat[j]).filter(|&k| rank[k] > rank[i]) {
                    if self.beat[k][i / 64] & (1 << (i % 64)) != 0 {
                        from_i.push([i, j, k]);
                    }
                }
            }
            from_i.sort_by(|x, y| (name(x[1]), name(x[2])).cmp(&(name(y[1]), name(y[2]))));
            found.extend(from_i.into_iter().map(|c| c.map(|l| self.models[l])));
        }
        found.truncate(limit);
        found
    }
}

/// The positions of the set bits of a bitset, ascending.
fn ones(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        (0..64)
            .filter(move |b| word & (1 << b) != 0)
            .map(move |b| w * 64 + b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battles;

    fn battles(rows: &[(&str, &str, f64)]) -> Battles {
        Battles::from_named(rows.iter().copied())
    }

    fn no_bootstrap() -> TransitivityParams {
        TransitivityParams {
            bootstrap: BootstrapParams {
                rounds: 0,
                ..BootstrapParams::default()
            },
            ..TransitivityParams::default()
        }
    }

    #[test]
    fn rock_paper_scissors_is_one_cyclic_triad_listed_from_its_first_name() {
        let b = battles(&[
            ("scissors", "paper", 1.0),
            ("paper", "rock", 1.0),
            ("rock", "scissors", 1.0),
        ]);
        let report = no_bootstrap().measure(&b, None).unwrap();
        assert_eq!((report.triads, report.cyclic), (1, 1));
        assert_eq!(report.cyclic_share, Some(1.0));
        assert_eq!(report.cycles.len(), 1);
        assert_eq!(report.cycles[0].models, ["paper", "rock", "scissors"]);
        assert!(report.models.iter().all(|m| (m.triads, m.cyclic) == (1, 1)));
        assert!(report.warnings[0].contains("no better than chance"));
    }

    #[test]
    fn a_total_order_has_no_cycle_and_the_model_that_never_loses_is_in_none() {
        // a ≻ b ≻ c ≻ d, every pair met: C(4,3) = 4 triads, each transitive.
        let names = ["a", "b", "c", "d"];
        let mut rows = Vec::new();
        for i in 0..4 {
            for j in i + 1..4 {
                rows.push((names[i], names[j], 1.0));
            }
        }
        let report = no_bootstrap().measure(&battles(&rows), None).unwrap();
        assert_eq!((report.triads, report.cyclic), (4, 0));
        assert_eq!(report.cyclic_share, Some(0.0));
        assert!(report.cycles.is_empty() && report.warnings.is_empty());
        let a = report.models.iter().find(|m| m.model == "a").unwrap();
        assert_eq!((a.triads, a.cyclic), (3, 0));
    }

    #[test]
    fn majorities_decide_pairs_and_an_even_split_or_a_tie_decides_none() {
        // x beat y 2–1 (decided), y–z one tie (undecided), x–z 1–1 (undecided): no triad.
        let b = battles(&[
            ("x", "y", 1.0),
            ("x", "y", 1.0),
            ("y", "x", 1.0),
            ("y", "z", 0.5),
            ("x", "z", 1.0),
            ("z", "x", 1.0),
        ]);
        // With the default bootstrap: nothing to resample, no interval.
        let report = TransitivityParams::default().measure(&b, None).unwrap();
        assert_eq!((report.pairs, report.undecided_pairs), (3, 2));
        assert_eq!(report.triads, 0);
        assert_eq!((report.cyclic_share, report.interval), (None, None));
        assert!(report.warnings[0].contains("not identified"));
        assert!(report.reading().contains("cannot be measured"));
    }

    #[test]
    fn groups_keep_their_own_verdicts_and_a_cycle_needs_one_group() {
        // Across the two prompts the pooled majorities form a cycle; within each prompt only
        // two pairs met, so no triad.
        let b = battles(&[("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)]);
        let groups = ["p1", "p1", "p2"].map(str::to_owned);
        let grouped = TransitivityParams {
            group: Some("prompt".to_owned()),
            ..no_bootstrap()
        };
        let report = grouped.measure(&b, Some(&groups)).unwrap();
        assert_eq!((report.groups, report.triads), (2, 0));
        let pooled = no_bootstrap().measure(&b, None).unwrap();
        assert_eq!((pooled.groups, pooled.triads, pooled.cyclic), (1, 1, 1));
    }

    /// Kendall's count for a complete tournament: cyclic = C(m,3) − Σ C(s_i, 2), s_i the wins.
    #[test]
    fn complete_tournaments_match_kendalls_formula_beyond_one_word_of_bits() {
        use rand::{Rng, SeedableRng};
        for (m, seed) in [(5usize, 1u64), (12, 2), (70, 3), (130, 4)] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            // Named against their numbering, so that listing by name is not listing by number.
            let names: Vec<String> = (0..m).map(|i| format!("m{:03}", m - 1 - i)).collect();
            let mut rows = Vec::new();
            let mut wins = vec![0usize; m];
            let mut beat = std::collections::HashSet::new();
            for i in 0..m {
                for j in i + 1..m {
                    let i_wins = rng.random_bool(0.5);
                    wins[if i_wins { i } else { j }] += 1;
                    beat.insert(if i_wins { (i, j) } else { (j, i) });
                    rows.push((
                        names[i].as_str(),
                        names[j].as_str(),
                        f64::from(u8::from(i_wins)),
                    ));
                }
            }
            let report = no_bootstrap().measure(&battles(&rows), None).unwrap();
            let choose =
                |n: usize, k: usize| -> usize { (0..k).fold(1, |acc, t| acc * (n - t) / (t + 1)) };
            let expected = choose(m, 3) - wins.iter().map(|&s| choose(s, 2)).sum::<usize>();
            assert_eq!(report.triads, choose(m, 3), "m = {m}");
            assert_eq!(report.cyclic, expected, "m = {m}");
            let per_model: usize = report.models.iter().map(|x| x.cyclic).sum();
            assert_eq!(per_model, 3 * expected);
            // The cycles listed are the first by name of all of them, found by brute force.
            let mut all = Vec::new();
            for i in 0..m {
                for j in 0..m {
                    for k in 0..m {
                        let first = names[i] < names[j] && names[i] < names[k];
                        if first
                            && beat.contains(&(i, j))
                            && beat.contains(&(j, k))
                            && beat.contains(&(k, i))
                        {
                            all.push([i, j, k].map(|x| names[x].clone()));
                        }
                    }
                }
            }
            all.sort();
            all.truncate(report.params.list);
            let listed: Vec<[String; 3]> = report.cycles.iter().map(|c| c.models.clone()).collect();
            assert_eq!(listed, all, "m = {m}");
        }
    }

    #[test]
    fn the_bootstrap_of_groups_is_seeded_and_brackets_the_share_and_pooled_battles_get_none() {
        let mut rows = Vec::new();
        let mut groups = Vec::new();
        let names = ["a", "b", "c", "d", "e"];
        for round in 0..12 {
            for i in 0..5 {
                for j in i + 1..5 {
                    let y = if (i + j + round) % 4 == 0 { 0.0 } else { 1.0 };
                    rows.push((names[i], names[j], y));
                    groups.push(format!("p{round}"));
                }
            }
        }
        let b = battles(&rows);
        let params = TransitivityParams {
            group: Some("prompt".to_owned()),
            bootstrap: BootstrapParams {
                rounds: 200,
                seed: 11,
                level: 0.9,
            },
            ..TransitivityParams::default()
        };
        let first = params.measure(&b, Some(&groups)).unwrap();
        assert_eq!(first, params.measure(&b, Some(&groups)).unwrap());
        let interval = first.interval.unwrap();
        let share = first.cyclic_share.unwrap();
        assert!(0.0 < share && share < 1.0);
        assert!(
            interval.lower <= share && share <= interval.upper && interval.lower < interval.upper
        );
        let other = TransitivityParams {
            bootstrap: BootstrapParams {
                seed: 12,
                ..params.bootstrap
            },
            ..params.clone()
        };
        assert_ne!(
            other.measure(&b, Some(&groups)).unwrap().interval,
            first.interval
        );

        let pooled = TransitivityParams {
            group: None,
            ..params
        };
        let report = pooled.measure(&b, None).unwrap();
        assert!(report.cyclic_share.is_some() && report.interval.is_none());
        assert!(report.warnings.iter().any(|w| w.contains("no interval")));
    }

    #[test]
    fn one_group_has_no_interval_and_says_why() {
        let b = battles(&[("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)]);
        let groups = ["p", "p", "p"].map(str::to_owned);
        let params = TransitivityParams {
            group: Some("prompt".to_owned()),
            ..TransitivityParams::default()
        };
        let report = params.measure(&b, Some(&groups)).unwrap();
        assert_eq!(report.interval, None);
        assert!(report
            .warnings
            .iter()
            .any(|w| w.contains("one prompt only")));
    }

    #[test]
    fn bad_settings_and_no_battles_are_errors() {
        let empty = TransitivityParams {
            group: Some(" ".to_owned()),
            ..TransitivityParams::default()
        };
        assert!(matches!(
            empty.validate(),
            Err(Error::InvalidParam { name: "group", .. })
        ));
        let one_round = TransitivityParams {
            bootstrap: BootstrapParams {
                rounds: 1,
                ..BootstrapParams::default()
            },
            ..TransitivityParams::default()
        };
        assert!(one_round.validate().is_err());
        let none = Battles::from_named(std::iter::empty());
        assert!(matches!(
            no_bootstrap().measure(&none, None),
            Err(Error::Insufficient(_))
        ));
    }
}
