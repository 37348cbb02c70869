//! Property tests (proptest) of the statistics' invariants, on generated data: what must hold
//! for every input, not only for the reference cases. Natively only.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tribunal::rankings::battles::Battle;
use tribunal::rankings::bradley_terry::BradleyTerryParams;
use tribunal::rankings::pairwise::Pairwise;
use tribunal::reliability::alpha::{AlphaLevel, AlphaParams};
use tribunal::reliability::kappa::{KappaParams, KappaWeights};

/// Battles among `n` models with hard or soft targets; every battle has two distinct models.
fn battles(n: usize) -> impl Strategy<Value = Vec<Battle>> {
    prop::collection::vec((0..n, 1..n, 0.0f64..=1.0, any::<bool>()), 1..60).prop_map(move |raw| {
        raw.into_iter()
            .map(|(a, shift, y, hard)| Battle {
                a,
                b: (a + shift) % n,
                y: if hard { y.round() } else { y },
            })
            .collect()
    })
}

fn theta(n: usize, battles: &[Battle]) -> Vec<f64> {
    BradleyTerryParams::default()
        .fit(&Pairwise::from_battles(n, battles))
        .expect("a fit")
        .theta
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Relabelling the models relabels θ; turning every battle round (b vs a, target 1 − y)
    /// changes nothing; θ sums to zero; p(i beats j) + p(j beats i) = 1.
    #[test]
    fn bradley_terry_is_equivariant(n in 2usize..7, seed in any::<u64>(), data in battles(7)) {
        let data: Vec<Battle> = data
            .into_iter()
            .map(|b| Battle { a: b.a % n, b: b.b % n, ..b })
            .filter(|b| b.a != b.b)
            .collect();
        prop_assume!(!data.is_empty());
        let base = theta(n, &data);
        // A permutation of 0..n from the seed.
        let mut perm: Vec<usize> = (0..n).collect();
        let mut s = seed | 1;
        for i in (1..n).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            perm.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let relabelled: Vec<Battle> =
            data.iter().map(|b| Battle { a: perm[b.a], b: perm[b.b], y: b.y }).collect();
        let turned: Vec<Battle> =
            data.iter().map(|b| Battle { a: b.b, b: b.a, y: 1.0 - b.y }).collect();
        let (moved, round) = (theta(n, &relabelled), theta(n, &turned));
        for i in 0..n {
            prop_assert!((moved[perm[i]] - base[i]).abs() < 1e-7, "{moved:?} vs {base:?}");
            prop_assert!((round[i] - base[i]).abs() < 1e-7, "{round:?} vs {base:?}");
        }
        prop_assert!(base.iter().sum::<f64>().abs() < 1e-7);
        let fit = BradleyTerryParams::default().fit(&Pairwise::from_battles(n, &data)).unwrap();
        for i in 0..n {
            for j in 0..n {
                let total = fit.win_probability(i, j) + fit.win_probability(j, i);
                prop_assert!((total - 1.0).abs() < 1e-12);
            }
        }
    }

    /// Krippendorff's α does not depend on the order of units or of raters, is at most 1,
    /// and is 1 when every unit's raters agree (and the data vary).
    #[test]
    fn alpha_is_order_free_and_bounded(
        units in prop::collection::vec(prop::collection::vec(prop::option::of(0u8..4), 3), 2..25),
        flip in any::<bool>(),
    ) {
        let units: Vec<Vec<Option<f64>>> =
            units.iter().map(|u| u.iter().map(|v| v.map(f64::from)).collect()).collect();
        for level in [AlphaLevel::Nominal, AlphaLevel::Ordinal, AlphaLevel::Interval] {
            let params = AlphaParams { level };
            let Ok(base) = params.compute(&units) else { continue };
            let mut shuffled: Vec<Vec<Option<f64>>> = units.iter().rev().cloned().collect();
            if flip {
                for u in &mut shuffled {
                    u.rotate_left(1);
                }
            }
            let again = params.compute(&shuffled).expect("the same data in another order");
            prop_assert!((again.alpha - base.alpha).abs() < 1e-9 || (again.alpha.is_nan() && base.alpha.is_nan()));
            prop_assert!(base.alpha.is_nan() || base.alpha <= 1.0 + 1e-12, "{}", base.alpha);
        }
        let agreeing: Vec<Vec<Option<f64>>> =
            (0..units.len()).map(|k| vec![Some((k % 3) as f64); 3]).collect();
        let alpha = AlphaParams { level: AlphaLevel::Nominal }.compute(&agreeing).unwrap().alpha;
        prop_assert!((alpha - 1.0).abs() < 1e-12, "{alpha}");
    }

    /// Cohen's κ is symmetric in its raters, lies in [−1, 1], and is 1 for identical ratings.
    #[test]
    fn kappa_is_symmetric_and_bounded(
        pairs in prop::collection::vec((0u8..4, 0u8..4), 2..80),
        weights in prop::sample::select(vec![KappaWeights::Unweighted, KappaWeights::Linear, KappaWeights::Quadratic]),
    ) {
        let a: Vec<f64> = pairs.iter().map(|p| f64::from(p.0)).collect();
        let b: Vec<f64> = pairs.iter().map(|p| f64::from(p.1)).collect();
        let params = KappaParams { weights, categories: None };
        if let (Ok(ab), Ok(ba)) = (params.compute(&a, &b), params.compute(&b, &a)) {
            prop_assert!((ab.kappa - ba.kappa).abs() < 1e-12 || (ab.kappa.is_nan() && ba.kappa.is_nan()));
            prop_assert!(ab.kappa.is_nan() || (-1.0 - 1e-12..=1.0 + 1e-12).contains(&ab.kappa), "{}", ab.kappa);
        }
        prop_assume!(a.iter().any(|&x| x != a[0]));
        let same = params.compute(&a, &a).unwrap().kappa;
        prop_assert!((same - 1.0).abs() < 1e-12, "{same}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The same battles in another row order (so with the models numbered in another order)
    /// give the same bootstrap intervals with the same seed.
    #[test]
    fn bootstrap_bounds_do_not_depend_on_row_order(
        raw in battles(5),
        seed in any::<u64>(),
        order in any::<u64>(),
    ) {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        use tribunal::rankings::bt_bootstrap::BtBootstrapParams;
        use tribunal::math::resample::BootstrapParams;
        let named = |rows: &[Battle]| {
            let names: Vec<String> = (0..5).map(|m| format!("model {m}")).collect();
            tribunal::rankings::battles::Battles::from_named(
                rows.iter().map(|b| (names[b.a].as_str(), names[b.b].as_str(), b.y)).collect::<Vec<_>>(),
            )
        };
        let mut shuffled = raw.clone();
        shuffled.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(order));
        let params = BtBootstrapParams {
            bootstrap: BootstrapParams { rounds: 40, seed, level: 0.9 },
            ..Default::default()
        };
        let fit = |battles: &tribunal::rankings::battles::Battles| {
            let plan = params.plan(battles, None).unwrap();
            let mut rows = plan.summarise(&plan.rounds(0..40).unwrap()).unwrap().ratings;
            rows.sort_by(|a, b| a.model.cmp(&b.model));
            rows
        };
        let (a, b) = (fit(&named(&raw)), fit(&named(&shuffled)));
        for (x, y) in a.iter().zip(&b) {
            prop_assert_eq!(&x.model, &y.model);
            prop_assert!((x.interval.lower - y.interval.lower).abs() < 1e-6, "{:?} vs {:?}", x, y);
            prop_assert!((x.interval.upper - y.interval.upper).abs() < 1e-6, "{:?} vs {:?}", x, y);
            prop_assert_eq!((x.open_above, x.open_below, x.separated_rounds), (y.open_above, y.open_below, y.separated_rounds));
        }
    }
}
