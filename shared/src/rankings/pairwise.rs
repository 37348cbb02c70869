//! Sufficient statistics of pairwise data: per unordered pair of models, the total weight of
//! battles and the total target mass won by the lower-numbered model.
//!
//! The Bradley–Terry log-likelihood depends on battles only through these totals, so every fit
//! costs O(pairs) per iteration instead of O(battles).

use crate::rankings::battles::Battle;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Totals for one unordered pair `i < j`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairTotal {
    pub i: usize,
    pub j: usize,
    /// Total weight of battles between `i` and `j` (the battle count when unweighted).
    pub n: f64,
    /// Total target won by `i`: Σ y over battles oriented as `i` against `j`.
    pub wins_i: f64,
}

/// Pair totals over `n_models` models, sorted by `(i, j)` so sums run in a fixed order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairwise {
    pub n_models: usize,
    pub pairs: Vec<PairTotal>,
}

impl Pairwise {
    /// Totals of unweighted battles.
    pub fn from_battles(n_models: usize, battles: &[Battle]) -> Self {
        Self::from_weighted(n_models, battles.iter().map(|b| (b, 1.0)))
    }

    /// Totals of battles with weights (bootstrap multiplicities, sample weights).
    /// Battles with zero weight still create their pair, with zero totals.
    pub fn from_weighted<'a>(
        n_models: usize,
        battles: impl IntoIterator<Item = (&'a Battle, f64)>,
    ) -> Self {
        let mut totals: BTreeMap<(usize, usize), (f64, f64)> = BTreeMap::new();
        for (battle, weight) in battles {
            let (key, won) = if battle.a < battle.b {
                ((battle.a, battle.b), battle.y)
            } else {
                ((battle.b, battle.a), 1.0 - battle.y)
            };
            let entry = totals.entry(key).or_insert((0.0, 0.0));
            entry.0 += weight;
            entry.1 += weight * won;
        }
        let pairs = totals
            .into_iter()
            .map(|((i, j), (n, wins_i))| PairTotal { i, j, n, wins_i })
            .collect();
        Self { n_models, pairs }
    }

    /// Battle weight per model (how much each model played).
    pub fn games_per_model(&self) -> Vec<f64> {
        let mut games = vec![0.0; self.n_models];
        for p in &self.pairs {
            games[p.i] += p.n;
            games[p.j] += p.n;
        }
        games
    }

    /// Connected components of the comparison graph (pairs with positive weight), as a
    /// component label per model; labels are numbered from 0 in order of first model.
    pub fn components(&self) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..self.n_models).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for p in self.pairs.iter().filter(|p| p.n > 0.0) {
            let (ri, rj) = (root(&mut parent, p.i), root(&mut parent, p.j));
            if ri != rj {
                parent[ri.max(rj)] = ri.min(rj);
            }
        }
        let mut label = vec![usize::MAX; self.n_models];
        let mut next = 0;
        (0..self.n_models)
            .map(|m| {
                let r = root(&mut parent, m);
                if label[r] == usize::MAX {
                    label[r] = next;
                    next += 1;
                }
                label[r]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_orient_to_lower_index() {
        let battles = [
            Battle { a: 1, b: 0, y: 1.0 },
            Battle { a: 0, b: 1, y: 0.5 },
            Battle { a: 2, b: 1, y: 0.0 },
        ];
        let p = Pairwise::from_battles(3, &battles);
        assert_eq!(
            p.pairs,
            [
                PairTotal {
                    i: 0,
                    j: 1,
                    n: 2.0,
                    wins_i: 0.5
                },
                PairTotal {
                    i: 1,
                    j: 2,
                    n: 1.0,
                    wins_i: 1.0
                },
            ]
        );
        assert_eq!(p.games_per_model(), [2.0, 3.0, 1.0]);
    }

    #[test]
    fn components_of_a_split_graph() {
        let battles = [Battle { a: 0, b: 2, y: 1.0 }, Battle { a: 3, b: 1, y: 0.0 }];
        let p = Pairwise::from_battles(5, &battles);
        assert_eq!(p.components(), [0, 1, 0, 1, 2]);
    }
}
