//! System B against system A on the items both have: the paired difference of their item
//! scores d_i = y_{B,i} − y_{A,i}, which cancels what makes an item easy or hard for every
//! system (so it is narrower than comparing two unpaired intervals whenever items correlate).
//!
//! For each pair and criterion: the mean difference with Student's t interval and test (scipy's
//! `ttest_rel`), the cluster-robust interval and test when items are grouped (statsmodels'
//! clustered OLS of d on a constant, `use_t=True`), McNemar's exact test on the discordant items
//! when scores are pass/fail (statsmodels' `mcnemar(exact=True)`), the sign test on the items
//! where the two differ, and the minimum detectable difference at the wanted power,
//!
//! ```text
//! MDE = (z_{1−α/2} + z_{power}) · se(d̄),   items for a target δ = ⌈((z_{1−α/2} + z_{power}) · sd(d) · √deff / δ)²⌉
//! ```
//!
//! (deff = the clustered over the plain variance of d̄, 1 without clusters). Items only one
//! system has are counted (`only_a`, `only_b`), never silently dropped. A pass-rate difference
//! whose items all differ alike (sd(d) = 0: identical systems, or one that passes every item
//! the other fails) gets the interval of the two discordant rates' Wilson intervals instead of
//! a zero-width t interval.
//!
//! Arguments: the grid, the pairs (A, B) and the settings. Returns a [`PairedDifference`] per
//! pair, p-values not yet adjusted (the comparison adjusts them across every pair and
//! criterion).

use super::sample_estimates::{
    cluster_interval, exact_half_test, mean_sd, t_interval, wilson, IntervalMethod, MeanInterval,
};
use super::score_grid::ScoreGrid;
use crate::math::normal::normal_quantile;
use crate::math::resample::Interval;
use crate::ppi::ppi_mean::PpiMean;
use serde::{Deserialize, Serialize};

/// A clustered interval and test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClusteredTest {
    pub clusters: usize,
    pub interval: MeanInterval,
    pub p_value: f64,
}

/// McNemar's exact test: the items only A passes and only B passes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct McNemar {
    pub only_a_passes: u64,
    pub only_b_passes: u64,
    pub p_value: f64,
}

/// The sign test on the items where the two systems differ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SignTest {
    pub b_higher: u64,
    pub a_higher: u64,
    pub ties: u64,
    pub p_value: f64,
}

/// B − A on one criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedDifference {
    pub criterion: String,
    pub a: String,
    pub b: String,
    /// Items both systems have.
    pub n_shared: usize,
    /// Items only A has, and only B: not in the difference.
    pub only_a: usize,
    pub only_b: usize,
    /// Each system's mean on the shared items.
    pub mean_a: f64,
    pub mean_b: f64,
    /// mean_b − mean_a.
    pub difference: f64,
    /// Standard deviation of the item differences.
    pub sd: f64,
    /// Student's t (or, for a pass rate with sd = 0, the discordant rates' Wilson bounds).
    pub interval: MeanInterval,
    /// The paired t-test's two-sided p-value.
    pub p_value: f64,
    pub clustered: Option<ClusteredTest>,
    pub bootstrap: Option<Interval>,
    /// Pass/fail scores only.
    pub mcnemar: Option<McNemar>,
    pub sign_test: SignTest,
    /// The p-value adjusted across pairs: the clustered test's when items are grouped, else the
    /// t-test's.
    pub tested_p_value: f64,
    /// Holm's adjustment of `tested_p_value` across every pair and criterion.
    pub holm: f64,
    /// Benjamini–Hochberg's q-value likewise.
    pub bh: f64,
    /// The smallest difference this many items detect at the wanted power and α.
    pub minimum_detectable: f64,
    /// The items a difference of the target size would need, when a target is set.
    pub items_for_target: Option<u64>,
    /// With human labels on some items: the prediction-powered difference.
    pub judge_corrected: Option<PpiMean>,
}

/// Settings the pairs share.
#[derive(Debug, Clone, Copy)]
pub struct PairSettings<'a> {
    pub alpha: f64,
    pub power: f64,
    pub target: Option<f64>,
    pub cluster_of_item: Option<&'a [u32]>,
}

/// B − A for system indices `a` and `b` on `grid` (criterion named `criterion`, systems
/// named by `systems`).
pub fn paired_difference(
    grid: &ScoreGrid,
    (a, b): (usize, usize),
    names: (&str, &[String]),
    settings: &PairSettings,
) -> PairedDifference {
    let (criterion, systems) = names;
    let (row_a, row_b) = (grid.row(a), grid.row(b));
    let (mut only_a, mut only_b) = (0, 0);
    let mut shared: Vec<u32> = Vec::new();
    for i in 0..grid.n_items {
        match (row_a[i].is_finite(), row_b[i].is_finite()) {
            (true, true) => shared.push(i as u32),
            (true, false) => only_a += 1,
            (false, true) => only_b += 1,
            (false, false) => {}
        }
    }
    let values_a: Vec<f64> = shared.iter().map(|&i| row_a[i as usize]).collect();
    let values_b: Vec<f64> = shared.iter().map(|&i| row_b[i as usize]).collect();
    let d: Vec<f64> = values_b.iter().zip(&values_a).map(|(b, a)| b - a).collect();
    let n = d.len();
    let (mean_a, mean_b) = (mean_sd(&values_a).0, mean_sd(&values_b).0);
    let (difference, sd) = mean_sd(&d);
    let (mut interval, p_value) = t_interval(&d, settings.alpha);
    let mcnemar = grid.binary.then(|| {
        let only_a_passes = values_a
            .iter()
            .zip(&values_b)
            .filter(|(a, b)| **a == 1.0 && **b == 0.0)
            .count() as u64;
        let only_b_passes = values_a
            .iter()
            .zip(&values_b)
            .filter(|(a, b)| **a == 0.0 && **b == 1.0)
            .count() as u64;
        McNemar {
            only_a_passes,
            only_b_passes,
            p_value: exact_half_test(only_a_passes, only_b_passes),
        }
    });
    if let (Some(m), true) = (&mcnemar, sd == 0.0) {
        let nf = n as f64;
        let b_rate = wilson(m.only_b_passes as f64, nf, settings.alpha);
        let a_rate = wilson(m.only_a_passes as f64, nf, settings.alpha);
        interval = MeanInterval {
            method: IntervalMethod::WilsonDiscordant,
            estimate: difference,
            se: 0.0,
            lower: b_rate.lower - a_rate.upper,
            upper: b_rate.upper - a_rate.lower,
        };
    }
    let b_higher = d.iter().filter(|&&x| x > 0.0).count() as u64;
    let a_higher = d.iter().filter(|&&x| x < 0.0).count() as u64;
    let sign_test = SignTest {
        b_higher,
        a_higher,
        ties: n as u64 - b_higher - a_higher,
        p_value: exact_half_test(b_higher, a_higher),
    };
    let clustered = settings.cluster_of_item.map(|of_item| {
        let labels: Vec<u32> = shared.iter().map(|&i| of_item[i as usize]).collect();
        let (interval, p_value, clusters) = cluster_interval(&d, &labels, settings.alpha);
        ClusteredTest {
            clusters,
            interval,
            p_value,
        }
    });
    let tested_p_value = match &clustered {
        Some(c) => c.p_value,
        None => p_value,
    };
    let z = normal_quantile(1.0 - settings.alpha / 2.0) + normal_quantile(settings.power);
    let se = match &clustered {
        Some(c) => c.interval.se,
        None => interval.se,
    };
    let plain_se = sd / (n as f64).sqrt();
    let design_effect = if plain_se > 0.0 && se.is_finite() {
        (se / plain_se).powi(2)
    } else {
        1.0
    };
    let items_for_target = settings.target.and_then(|target| {
        let needed = (z * sd * design_effect.sqrt() / target).powi(2).ceil();
        (needed.is_finite() && sd > 0.0).then_some(needed.max(2.0) as u64)
    });
    PairedDifference {
        criterion: criterion.to_owned(),
        a: systems[a].clone(),
        b: systems[b].clone(),
        n_shared: n,
        only_a,
        only_b,
        mean_a,
        mean_b,
        difference,
        sd,
        interval,
        p_value,
        clustered,
        bootstrap: None,
        mcnemar,
        sign_test,
        tested_p_value,
        holm: f64::NAN,
        bh: f64::NAN,
        minimum_detectable: z * se,
        items_for_target,
        judge_corrected: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::score_table::TableParams;

    fn grid(text: &str) -> ScoreGrid {
        let table = TableParams::default()
            .parse("s.csv", text.as_bytes())
            .unwrap();
        ScoreGrid::of(&table, 0)
    }

    const SETTINGS: PairSettings = PairSettings {
        alpha: 0.05,
        power: 0.8,
        target: Some(0.1),
        cluster_of_item: None,
    };

    #[test]
    fn items_one_system_lacks_are_counted_not_used() {
        let g = grid("item,system,score\nq1,A,1\nq2,A,2\nq3,A,4\nq1,B,2\nq2,B,4\nq4,B,9\n");
        let systems = ["A".to_owned(), "B".to_owned()];
        let d = paired_difference(&g, (0, 1), ("score", &systems), &SETTINGS);
        assert_eq!((d.n_shared, d.only_a, d.only_b), (2, 1, 1));
        // d = (1, 2): mean 1.5, sd 0.7071, se 0.5, t = 3 on 1 df: p = 0.2048 (scipy
        // ttest_rel([2, 4], [1, 2])).
        assert!((d.difference - 1.5).abs() < 1e-15);
        assert!(
            (d.p_value - 0.20483276469913345).abs() < 1e-12,
            "{}",
            d.p_value
        );
        assert_eq!(d.sign_test.b_higher, 2);
        assert!(d.mcnemar.is_none());
    }

    #[test]
    fn a_pass_rate_that_never_differs_has_a_nonzero_interval() {
        let mut text = "item,system,score\n".to_owned();
        for i in 0..20 {
            text.push_str(&format!("q{i},A,1\nq{i},B,1\n"));
        }
        let systems = ["A".to_owned(), "B".to_owned()];
        let d = paired_difference(&grid(&text), (0, 1), ("score", &systems), &SETTINGS);
        assert_eq!(d.difference, 0.0);
        assert_eq!(d.interval.method, IntervalMethod::WilsonDiscordant);
        assert!(d.interval.lower < 0.0 && d.interval.upper > 0.0);
        assert_eq!(d.mcnemar.unwrap().p_value, 1.0);
        assert_eq!(d.p_value, 1.0);
    }
}
