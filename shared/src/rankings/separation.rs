//! Separation in pairwise data: where the Bradley–Terry maximum-likelihood ratings do not exist.
//!
//! Model: the unpenalised Bradley–Terry likelihood (seed 002, Eq. 1) has a finite maximum within
//! a connected part of the comparison graph exactly when the "beat" graph of that part is
//! strongly connected (Zermelo 1929; Ford 1957) — an edge i → j whenever i took some of the
//! target mass against j (a win, a tie, or a soft target in (0, 1) gives an edge; a tie or a soft
//! target gives edges both ways). Otherwise the part splits into strongly connected groups
//! ordered by who beat whom, and the likelihood grows without bound as the gaps between ordered
//! groups grow: the L2 penalty alone then sets those gaps. A rating fitted there is a statement
//! about λ, not about the data, and its standard error and bootstrap interval look far more
//! certain than they are.
//!
//! This module finds the groups (Tarjan's strongly connected components over the beat graph)
//! and reports, per model, whether its rating is identified. Within each connected part the
//! largest group (most models, then most battles, then the first model name) is the
//! reference when it holds at least two models; a model of another group is
//! - [`Side::Above`] when its group beat a path to the reference and was never beaten back
//!   along one (its rating relative to the reference is unbounded above),
//! - [`Side::Below`] when the reference beat a path to it (unbounded below),
//! - [`Side::Unordered`] when neither reaches the other (unbounded both ways).
//!
//! When no two models of a part beat each other around a cycle (one battle; ten wins of one
//! model over another; a chain), no group anchors a scale: every model of the part is
//! [`Side::Unordered`]; so is a model without battles (one that a bootstrap resample left out).
//!
//! Arguments: [`Pairwise`] totals (`n` battles, `wins_i` target mass won by `i`) and the models'
//! names (for ties, so the answer does not depend on how models are numbered). Returns: one
//! `Option<Side>` per model, `None` when the model's rating is identified. Costs O(models +
//! pairs). No errors.

use crate::rankings::pairwise::Pairwise;
use serde::{Deserialize, Serialize};

/// On which side a separated model's rating is unbounded, relative to the largest group of
/// models that all beat each other around a cycle in its part of the comparison graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Never beaten by the reference group (directly or through others): unbounded above.
    Above,
    /// Never beat the reference group: unbounded below.
    Below,
    /// Not ordered against the reference group either way: unbounded both ways.
    Unordered,
}

impl Side {
    /// Whether the rating is unbounded above.
    pub fn open_above(self) -> bool {
        matches!(self, Self::Above | Self::Unordered)
    }

    /// Whether the rating is unbounded below.
    pub fn open_below(self) -> bool {
        matches!(self, Self::Below | Self::Unordered)
    }

    /// "above", "below" or "both ways", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Above => "unbounded above",
            Self::Below => "unbounded below",
            Self::Unordered => "unbounded both ways",
        }
    }
}

/// Per model, on which side its rating is unbounded (`None`: identified by the data).
/// `names` (one per model) break ties between equally large reference candidates, so the
/// answer does not depend on how the models are numbered.
pub fn separation(data: &Pairwise, names: &[String]) -> Vec<Option<Side>> {
    let m = data.n_models;
    let mut beats: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut games = vec![0.0; m];
    for p in data.pairs.iter().filter(|p| p.n > 0.0) {
        if p.wins_i > 0.0 {
            beats[p.i].push(p.j);
        }
        if p.n - p.wins_i > 0.0 {
            beats[p.j].push(p.i);
        }
        games[p.i] += p.n;
        games[p.j] += p.n;
    }
    let group = strongly_connected(&beats);
    let part = data.components();
    let n_groups = group.iter().max().map_or(0, |g| g + 1);
    let mut size = vec![0usize; n_groups];
    let mut weight = vec![0.0; n_groups];
    for v in 0..m {
        size[group[v]] += 1;
        weight[group[v]] += games[v];
    }
    // Each group's first name, for ties.
    let mut first: Vec<Option<&str>> = vec![None; n_groups];
    for v in 0..m {
        let name = names.get(v).map_or("", String::as_str);
        let slot = &mut first[group[v]];
        if slot.is_none_or(|f| name < f) {
            *slot = Some(name);
        }
    }
    // The reference group of each part: most models, then most battles, then the first name.
    let mut reference: Vec<Option<usize>> = vec![None; m];
    for v in 0..m {
        let g = group[v];
        let better = match reference[part[v]] {
            None => true,
            Some(r) => {
                (size[g], weight[g], std::cmp::Reverse(first[g]))
                    > (size[r], weight[r], std::cmp::Reverse(first[r]))
            }
        };
        if better {
            reference[part[v]] = Some(g);
        }
    }
    let reaches = |from: &dyn Fn(usize) -> bool, edges: &[Vec<usize>]| -> Vec<bool> {
        let mut seen: Vec<bool> = (0..m).map(from).collect();
        let mut stack: Vec<usize> = (0..m).filter(|&v| seen[v]).collect();
        while let Some(v) = stack.pop() {
            for &w in &edges[v] {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
        seen
    };
    let in_reference = |v: usize| reference[part[v]] == Some(group[v]);
    // Below the reference: reachable from it along "beat" edges.
    let below = reaches(&in_reference, &beats);
    // Above the reference: it is reachable from them, i.e. they are reachable from it backwards.
    let mut beaten_by: Vec<Vec<usize>> = vec![Vec::new(); m];
    for (v, out) in beats.iter().enumerate() {
        for &w in out {
            beaten_by[w].push(v);
        }
    }
    let above = reaches(&in_reference, &beaten_by);
    (0..m)
        .map(|v| {
            let r = reference[part[v]].filter(|&r| size[r] >= 2);
            match r {
                Some(r) if r == group[v] => None,
                Some(_) => Some(match (above[v], below[v]) {
                    (true, false) => Side::Above,
                    (false, true) => Side::Below,
                    // Both would put v in the reference group; neither leaves it unordered.
                    _ => Side::Unordered,
                }),
                // No two models of the part beat each other around a cycle: no group anchors a
                // scale and every gap is set by λ, so no rating of the part is bounded either
                // way (who beat whom stays in the wins and losses). A model without battles
                // (one a resample left out) is not measured at all.
                None => Some(Side::Unordered),
            }
        })
        .collect()
}

/// Strongly connected components of a directed graph (Tarjan, iterative): a group number per
/// vertex.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut group = vec![UNSEEN; n];
    let mut next_index = 0;
    let mut next_group = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (vertex, next edge to follow)
        let mut calls = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut edge)) = calls.last_mut() {
            if let Some(&w) = edges[v].get(*edge) {
                *edge += 1;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group[w] = next_group;
                    if w == v {
                        break;
                    }
                }
                next_group += 1;
            }
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rankings::battles::Battle;

    fn sides(m: usize, battles: &[(usize, usize, f64)]) -> Vec<Option<Side>> {
        let b: Vec<Battle> = battles
            .iter()
            .map(|&(a, b, y)| Battle { a, b, y })
            .collect();
        let names: Vec<String> = (0..m).map(|i| format!("m{i}")).collect();
        separation(&Pairwise::from_battles(m, &b), &names)
    }

    #[test]
    fn a_cycle_is_identified() {
        let s = sides(3, &[(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)]);
        assert_eq!(s, [None, None, None]);
    }

    #[test]
    fn a_model_that_never_loses_is_unbounded_above() {
        // x beats y ten times (or once): no cycle anywhere, so neither rating is identified.
        let both = [Some(Side::Unordered); 2];
        assert_eq!(sides(2, &[(0, 1, 1.0); 10]), both);
        assert_eq!(sides(2, &[(1, 0, 0.0)]), both);
        // With a cycle among the others, the undefeated model is above them.
        let s = sides(
            4,
            &[
                (0, 1, 1.0),
                (0, 2, 1.0),
                (1, 2, 1.0),
                (2, 3, 1.0),
                (3, 1, 1.0),
            ],
        );
        assert_eq!(s, [Some(Side::Above), None, None, None]);
    }

    #[test]
    fn a_model_that_never_wins_is_unbounded_below_and_a_tie_joins_groups() {
        let cycle = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)];
        let mut battles = cycle.to_vec();
        battles.push((3, 0, 0.0));
        assert_eq!(sides(4, &battles)[3], Some(Side::Below));
        battles.push((3, 1, 0.5));
        assert_eq!(sides(4, &battles), [None; 4]);
    }

    #[test]
    fn a_chain_orders_every_model_and_unordered_groups_are_open_both_ways() {
        // a > b > c: no cycle, nothing is bounded.
        let s = sides(3, &[(0, 1, 1.0), (1, 2, 1.0)]);
        assert_eq!(s, [Some(Side::Unordered); 3]);
        // a > b, with b and c tied: {b, c} is the reference and a is above it.
        let s = sides(3, &[(0, 1, 1.0), (1, 2, 0.5)]);
        assert_eq!(s, [Some(Side::Above), None, None]);
        // w is beaten by both x and the reference group {0, 1}: below; x beats only w, so x and
        // the reference are unordered.
        let s = sides(4, &[(0, 1, 0.5), (0, 2, 1.0), (3, 2, 1.0)]);
        assert_eq!(s, [None, None, Some(Side::Below), Some(Side::Unordered)]);
    }

    #[test]
    fn disconnected_parts_each_have_their_reference_and_a_model_without_battles_is_not_measured() {
        let s = sides(5, &[(0, 1, 0.5), (2, 3, 1.0)]);
        assert_eq!(
            s,
            [
                None,
                None,
                Some(Side::Unordered),
                Some(Side::Unordered),
                Some(Side::Unordered)
            ]
        );
    }
}
