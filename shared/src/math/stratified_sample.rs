//! A seeded stratified sample: `n` of `N` units such that each stratum is represented in
//! proportion to its size (implicit stratification with systematic selection, Cochran 1977
//! §8.6).
//!
//! The units are shuffled with a ChaCha8 stream seeded by `seed`, stably sorted by stratum, and
//! every (N / n)-th unit of that list is taken from a random start in [0, N / n). A stratum of
//! size s therefore contributes ⌊s·n/N⌋ or ⌈s·n/N⌉ units, and within a stratum every unit has
//! the same chance n/N of being chosen.
//!
//! Arguments: each unit's stratum (any numbering), the sample size `n` and the seed. Returns:
//! the chosen units' indices in increasing order (all of them when n ≥ N). Errors: none.

use rand::{seq::SliceRandom, Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` units of `strata.len()`, each stratum in proportion to its size; see the module.
pub fn stratified_sample(strata: &[usize], n: usize, seed: u64) -> Vec<usize> {
    let total = strata.len();
    if n >= total {
        return (0..total).collect();
    }
    if n == 0 {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..total).collect();
    order.shuffle(&mut rng);
    order.sort_by_key(|&unit| strata[unit]);
    let step = total as f64 / n as f64;
    let start: f64 = rng.random::<f64>() * step;
    let mut chosen: Vec<usize> = (0..n)
        .map(|k| order[((start + k as f64 * step) as usize).min(total - 1)])
        .collect();
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stratum_gets_its_share_and_the_seed_decides_which_units() {
        // Strata of 50, 30 and 20 units; a sample of 10 takes 5, 3 and 2 (s·n/N is whole).
        let strata: Vec<usize> = (0..100)
            .map(|i| match i {
                0..50 => 7,
                50..80 => 2,
                _ => 9,
            })
            .collect();
        let sample = stratified_sample(&strata, 10, 4);
        assert_eq!(sample.len(), 10);
        let count = |s: usize| sample.iter().filter(|&&u| strata[u] == s).count();
        assert_eq!((count(7), count(2), count(9)), (5, 3, 2));
        assert!(sample.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample, stratified_sample(&strata, 10, 4));
        assert_ne!(sample, stratified_sample(&strata, 10, 5));
        // Shares that are not whole: 7 of 100 gives each stratum ⌊·⌋ or ⌈·⌉ of 3.5, 2.1, 1.4.
        for seed in 0..20 {
            let sample = stratified_sample(&strata, 7, seed);
            let count = |s: usize| sample.iter().filter(|&&u| strata[u] == s).count();
            assert!((3..=4).contains(&count(7)), "{sample:?}");
            assert!((2..=3).contains(&count(2)), "{sample:?}");
            assert!((1..=2).contains(&count(9)), "{sample:?}");
            assert_eq!(count(7) + count(2) + count(9), 7);
        }
        assert_eq!(
            stratified_sample(&strata, 200, 0),
            (0..100).collect::<Vec<_>>()
        );
        assert!(stratified_sample(&strata, 0, 0).is_empty());
    }
}
