//! Synthetic study of the calibration heads with γ chosen by 5-fold cross-validation, scored on
//! held-out rows with paired bootstrap intervals (`metrics`), plus the mechanics of the
//! cross-validation itself. Data are drawn here from seeded ChaCha8 streams.
//!
//! When the human label depends on the rationale embedding and the base judge is miscalibrated,
//! the head must beat the judge: the interval of (head − base) MSE lies below 0, or that of
//! (head − base) accuracy above 0. When the label depends on the judge alone (the judge is the
//! Bayes predictor), the head must be no worse within its interval: the interval of the
//! difference reaches the "no worse" side. That claim is asymptotic (seed 000 App. C.2): the
//! head pays about σ²(d + 2)/n for estimating its parameters, so those cases train on 1000 rows
//! (d = 12); the others on 200. Every case is scored on 200 held-out rows. Runs natively and in
//! headless Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tribunal::calibration::btl2_head::{Btl2Data, Btl2Params};
use tribunal::calibration::btl_head::{BtlData, BtlParams};
use tribunal::calibration::calibration_data::CalibrationData;
use tribunal::calibration::cross_validation::{
    cross_validate, fit_with_cv, fold_assignment, fold_losses, CrossValidationParams, CvCurve,
    GammaGrid,
};
use tribunal::calibration::head::HeadParams;
use tribunal::calibration::head::Rows;
use tribunal::calibration::ls_head::{LsData, LsParams};
use tribunal::calibration::metrics::{compare_classification, compare_regression, Averaging};
use tribunal::calibration::mn_head::{MnData, MnParams};
use tribunal::calibration::plackett_luce_head::{PlackettLuceData, PlackettLuceParams, RankedList};
use tribunal::calibration::CalibrationParams;
use tribunal::math::resample::BootstrapParams;

const N: usize = 200;
const D: usize = 12;
/// Training rows when the judge is already right: the head's extra risk from estimating d + 2
/// parameters, about σ²(d + 2)/n, must be small next to the test interval.
const N_LARGE: usize = 1000;

struct Draw(ChaCha8Rng);

impl Draw {
    fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Box–Muller.
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
    }

    fn vector(&mut self, d: usize, scale: f64) -> Vec<f64> {
        (0..d).map(|_| scale * self.normal()).collect()
    }

    fn bernoulli(&mut self, p: f64) -> f64 {
        if self.uniform() < p {
            1.0
        } else {
            0.0
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// 5 folds over a 6-point grid (kept small so the study also runs quickly in the browser).
fn cv() -> CrossValidationParams {
    CrossValidationParams {
        folds: 5,
        seed: 11,
        grid: GammaGrid {
            min: 1e-2,
            max: 1e3,
            points: 6,
        },
    }
}

fn boot() -> BootstrapParams {
    BootstrapParams {
        rounds: 100,
        seed: 5,
        level: 0.95,
    }
}

/// The first `n` rows for training, the rest for testing.
fn split<T: Clone>(v: &[T], n: usize) -> (Vec<T>, Vec<T>) {
    (v[..n].to_vec(), v[n..].to_vec())
}

/// Training rows of a study: N with signal, N_LARGE without; N test rows either way.
fn train_rows(signal: bool) -> usize {
    if signal {
        N
    } else {
        N_LARGE
    }
}

fn ls_rows(draw: &mut Draw, signal: bool) -> (LsData, LsData) {
    let w = draw.vector(D, 1.5 / (D as f64).sqrt());
    let (mut e, mut b, mut s) = (vec![], vec![], vec![]);
    let n = train_rows(signal);
    for _ in 0..n + N {
        let x = draw.vector(D, 1.0);
        let (judge, human) = if signal {
            // Humans follow the rationale; the judge is compressed, shifted and noisy.
            let human = 3.0 + dot(&x, &w) + 0.5 * draw.normal();
            (3.5 + 0.3 * (human - 3.0) + draw.normal(), human)
        } else {
            // Humans agree with the judge up to noise the rationale does not explain.
            let judge = 3.0 + draw.normal();
            (judge, judge + 0.7 * draw.normal())
        };
        e.push(x);
        b.push(judge);
        s.push(human);
    }
    let ((e1, e2), (b1, b2), (s1, s2)) = (split(&e, n), split(&b, n), split(&s, n));
    (
        LsData {
            embeddings: e1,
            scores: b1,
            labels: s1,
        },
        LsData {
            embeddings: e2,
            scores: b2,
            labels: s2,
        },
    )
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ls_head_beats_a_miscalibrated_judge_and_is_no_worse_than_a_right_one() {
    let mut draw = Draw::new(1);
    for signal in [true, false] {
        let (train, test) = ls_rows(&mut draw, signal);
        let (head, curve) = fit_with_cv(&LsParams::default(), &train, &cv()).unwrap();
        assert_eq!(head.gamma, curve.chosen_gamma);
        let predicted = head.predict(&test.embeddings, &test.scores).unwrap();
        let m = compare_regression(&test.labels, &predicted, &test.scores, &boot()).unwrap();
        let mse = m.mse;
        if signal {
            assert!(mse.difference.upper < 0.0, "{mse:?}");
            assert!(m.pearson.difference.lower > 0.0, "{:?}", m.pearson);
        } else {
            assert!(mse.difference.lower <= 0.0, "{mse:?}");
            assert!(
                mse.head.estimate < 1.05 * mse.base.estimate,
                "{mse:?} γ {}",
                head.gamma
            );
        }
        assert!((mse.difference.estimate - (mse.head.estimate - mse.base.estimate)).abs() < 1e-12);
    }
}

fn btl_rows(draw: &mut Draw, signal: bool) -> (BtlData, BtlData) {
    let w = draw.vector(D, 2.0 / (D as f64).sqrt());
    let (mut e, mut p, mut y) = (vec![], vec![], vec![]);
    let n = train_rows(signal);
    for _ in 0..n + N {
        let x = draw.vector(D, 1.0);
        let (judge, human) = if signal {
            // The judge sees a noisy, overconfident version of what humans weigh.
            let g = dot(&x, &w);
            (sigmoid(2.0 * (0.5 * g + draw.normal())), sigmoid(2.0 * g))
        } else {
            let judge = 0.05 + 0.9 * draw.uniform();
            (judge, judge)
        };
        e.push(x);
        p.push(judge);
        y.push(draw.bernoulli(human));
    }
    let ((e1, e2), (p1, p2), (y1, y2)) = (split(&e, n), split(&p, n), split(&y, n));
    (
        BtlData {
            embeddings: e1,
            probabilities: p1,
            labels: y1,
        },
        BtlData {
            embeddings: e2,
            probabilities: p2,
            labels: y2,
        },
    )
}

fn class(p: f64) -> i64 {
    i64::from(p > 0.5)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn btl_head_beats_a_noisy_judge_and_is_no_worse_than_a_calibrated_one() {
    let mut draw = Draw::new(2);
    for signal in [true, false] {
        let (train, test) = btl_rows(&mut draw, signal);
        let (head, _) = fit_with_cv(&BtlParams::default(), &train, &cv()).unwrap();
        let pi = head.predict(&test.embeddings, &test.probabilities).unwrap();
        let truth: Vec<i64> = test.labels.iter().map(|&y| class(y)).collect();
        let ours: Vec<i64> = pi.iter().map(|&p| class(p)).collect();
        let base: Vec<i64> = test.probabilities.iter().map(|&p| class(p)).collect();
        let m = compare_classification(
            &truth,
            &ours,
            &base,
            &[0, 1],
            Averaging::Binary { positive: 1 },
            &boot(),
        )
        .unwrap();
        let acc = m.accuracy;
        if signal {
            assert!(acc.difference.lower > 0.0, "{acc:?}");
        } else {
            assert!(acc.difference.upper >= 0.0, "{acc:?}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn mn_head_beats_a_miscalibrated_judge_on_held_out_accuracy() {
    let mut draw = Draw::new(3);
    let classes = vec![1, 2, 3, 4];
    let w: Vec<Vec<f64>> = (0..4)
        .map(|_| draw.vector(D, 2.0 / (D as f64).sqrt()))
        .collect();
    let (mut e, mut p, mut y) = (vec![], vec![], vec![]);
    for _ in 0..2 * N {
        let x = draw.vector(D, 1.0);
        let u: Vec<f64> = w.iter().map(|ws| dot(&x, ws)).collect();
        // Humans: softmax(2u). Judge: a noisy view of u, pulled towards class 4.
        let human = softmax(&u.iter().map(|v| 2.0 * v).collect::<Vec<_>>());
        let noisy: Vec<f64> = u
            .iter()
            .enumerate()
            .map(|(s, v)| 0.5 * v + draw.normal() + if s == 3 { 1.0 } else { 0.0 })
            .collect();
        let r = draw.uniform();
        let mut acc = 0.0;
        let label = (0..4)
            .find(|&s| {
                acc += human[s];
                r < acc
            })
            .unwrap_or(3);
        e.push(x);
        p.push(softmax(&noisy));
        y.push(classes[label]);
    }
    let train = MnData {
        classes: classes.clone(),
        embeddings: e[..N].to_vec(),
        probabilities: p[..N].to_vec(),
        labels: y[..N].to_vec(),
    };
    let (head, _) = fit_with_cv(&MnParams::default(), &train, &cv()).unwrap();
    let predicted = head.predict(&e[N..], &p[N..]).unwrap();
    let base: Vec<i64> = p[N..]
        .iter()
        .map(|row| classes[(0..4).fold(0, |b, s| if row[s] > row[b] { s } else { b })])
        .collect();
    let m = compare_classification(
        &y[N..],
        &predicted.labels,
        &base,
        &classes,
        Averaging::Macro,
        &boot(),
    )
    .unwrap();
    assert!(m.accuracy.difference.lower > 0.0, "{:?}", m.accuracy);
    assert!(m.f1.difference.lower > 0.0, "{:?}", m.f1);
    let total: u64 = m.head_confusion.iter().flatten().sum();
    assert_eq!(total, N as u64);
}

fn softmax(u: &[f64]) -> Vec<f64> {
    let m = u.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = u.iter().map(|v| (v - m).exp()).collect();
    let total: f64 = e.iter().sum();
    e.iter().map(|v| v / total).collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn cross_validation_curve_is_the_mean_of_independent_fold_fits() {
    let mut draw = Draw::new(4);
    let (train, _) = ls_rows(&mut draw, true);
    let data = train.select(&(0..120).collect::<Vec<_>>());
    let params = CrossValidationParams {
        folds: 4,
        seed: 9,
        grid: GammaGrid {
            min: 0.1,
            max: 100.0,
            points: 4,
        },
    };
    let curve = cross_validate(&LsParams::default(), &data, &params).unwrap();
    assert_eq!((curve.folds, curve.seed, curve.units), (4, 9, 120));
    assert_eq!(curve.gammas.len(), 4);
    let assignment = fold_assignment(120, 4, 9);
    for f in 0..4 {
        let train: Vec<usize> = (0..120).filter(|&i| assignment[i] != f).collect();
        let test: Vec<usize> = (0..120).filter(|&i| assignment[i] == f).collect();
        for (i, &gamma) in curve.gammas.iter().enumerate() {
            let head = LsParams {
                gamma,
                ..Default::default()
            }
            .fit(&data.select(&train))
            .unwrap();
            let loss = head.mean_squared_error(&data.select(&test)).unwrap();
            assert!(
                (loss - curve.fold_loss[f][i]).abs() < 1e-12 * loss,
                "fold {f} γ {gamma}"
            );
        }
    }
    for i in 0..4 {
        let losses: Vec<f64> = curve.fold_loss.iter().map(|l| l[i]).collect();
        let mean = losses.iter().sum::<f64>() / 4.0;
        let sd = (losses.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        assert!((curve.mean_loss[i] - mean).abs() < 1e-12 * mean);
        assert!((curve.sd_loss[i] - sd).abs() < 1e-9 * sd);
        assert!(curve.mean_loss[curve.chosen_index] <= curve.mean_loss[i]);
    }
    assert_eq!(curve.chosen_gamma, curve.gammas[curve.chosen_index]);
    assert_eq!(
        curve,
        cross_validate(&LsParams::default(), &data, &params).unwrap()
    );
    let reseeded = CrossValidationParams { seed: 10, ..params };
    assert_ne!(
        curve.fold_loss,
        cross_validate(&LsParams::default(), &data, &reseeded)
            .unwrap()
            .fold_loss
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn cross_validation_is_generic_over_the_pairwise_and_k_way_heads() {
    let mut draw = Draw::new(5);
    let w = draw.vector(4, 1.0);
    let mut pairs = Btl2Data {
        first_embeddings: vec![],
        second_embeddings: vec![],
        first_scores: vec![],
        second_scores: vec![],
        labels: vec![],
    };
    let mut lists = vec![];
    for _ in 0..60 {
        let items: Vec<(Vec<f64>, f64)> = (0..3)
            .map(|_| (draw.vector(4, 1.0), 1.0 + (5.0 * draw.uniform()).floor()))
            .collect();
        let mut order: Vec<(f64, usize)> = items
            .iter()
            .enumerate()
            .map(|(k, (x, b))| (dot(x, &w) + 0.3 * b.ln() + draw.normal(), k))
            .collect();
        order.sort_by(|a, b| b.0.total_cmp(&a.0));
        lists.push(RankedList {
            embeddings: order.iter().map(|&(_, k)| items[k].0.clone()).collect(),
            scores: order.iter().map(|&(_, k)| items[k].1).collect(),
        });
        let position = |k: usize| order.iter().position(|&(_, j)| j == k);
        let first_wins = position(0) < position(1);
        pairs.first_embeddings.push(items[0].0.clone());
        pairs.second_embeddings.push(items[1].0.clone());
        pairs.first_scores.push(items[0].1);
        pairs.second_scores.push(items[1].1);
        pairs.labels.push(if first_wins { 1.0 } else { 0.0 });
    }
    let params = CrossValidationParams::default();
    let btl2 = cross_validate(&Btl2Params::default(), &pairs, &params).unwrap();
    let pl = cross_validate(
        &PlackettLuceParams::default(),
        &PlackettLuceData { lists },
        &params,
    )
    .unwrap();
    // Heavy regularisation drives θ to 0: about the loss of a coin (BTL2, log 2; its free
    // intercept can only lower it) or of a uniform order of three (log 3! = log 6) per unit.
    for (curve, uniform) in [(&btl2, 2f64.ln()), (&pl, 6f64.ln())] {
        assert_eq!(curve.gammas.len(), 10);
        assert!(curve.mean_loss.iter().all(|l| l.is_finite() && *l > 0.0));
        assert!(curve.sd_loss.iter().all(|s| s.is_finite() && *s >= 0.0));
        let last = curve.mean_loss[9];
        assert!(
            (last - uniform).abs() < 0.05 * uniform,
            "{last} vs {uniform}"
        );
        assert!(curve.mean_loss[curve.chosen_index] < last);
    }
}

/// Folds computed apart (as the app's two web workers do: folds 0, 2, 4 and 1, 3) join into
/// exactly the curve of one cross-validation, and a calibration given that curve is exactly the
/// calibration that cross-validates itself; a curve of other settings is refused.
#[test]
fn folds_computed_apart_join_into_the_same_curve_and_calibration() {
    let mut draw = Draw::new(41);
    let (ls_train, ls_test) = ls_rows(&mut draw, true);
    let (btl_train, _) = btl_rows(&mut draw, true);
    let params = cv();
    let join = |losses: [Vec<Vec<f64>>; 2], units: usize| {
        let [mut even, mut odd] = losses.map(|l| l.into_iter());
        let all: Vec<Vec<f64>> = (0..params.folds)
            .filter_map(|f| if f % 2 == 0 { even.next() } else { odd.next() })
            .collect();
        CvCurve::from_fold_losses(&params, units, all).unwrap()
    };
    let ls = LsParams::default();
    let split = [
        fold_losses(&ls, &ls_train, &params, &[0, 2, 4]).unwrap(),
        fold_losses(&ls, &ls_train, &params, &[1, 3]).unwrap(),
    ];
    let joined = join(split, ls_train.len());
    assert_eq!(joined, cross_validate(&ls, &ls_train, &params).unwrap());
    let beyond = fold_losses(&ls, &ls_train, &params, &[5]).unwrap_err();
    assert!(
        beyond.to_string().contains("fold 5 does not exist"),
        "{beyond}"
    );
    let btl = BtlParams::default();
    let split = [
        fold_losses(&btl, &btl_train, &params, &[0, 2, 4]).unwrap(),
        fold_losses(&btl, &btl_train, &params, &[1, 3]).unwrap(),
    ];
    assert_eq!(
        join(split, btl_train.len()),
        cross_validate(&btl, &btl_train, &params).unwrap()
    );

    let calibration = CalibrationParams {
        cv: params,
        bootstrap: boot(),
        ..CalibrationParams::default()
    };
    let (train, test) = (CalibrationData::Ls(ls_train), CalibrationData::Ls(ls_test));
    let whole = calibration.fit(&train, &test).unwrap();
    let given = calibration
        .fit_with_curve(&train, &test, Some(joined.clone()))
        .unwrap();
    assert_eq!(given, whole);
    let other = CvCurve {
        seed: params.seed + 1,
        ..joined
    };
    let error = calibration
        .fit_with_curve(&train, &test, Some(other))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("seed 12") && error.contains("seed 11"),
        "{error}"
    );
}
