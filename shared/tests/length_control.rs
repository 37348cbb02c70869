//! Length-controlled win rates against the `alpaca-eval` package (committed fixture,
//! `fixtures/make_length_control_reference.py`: its `get_length_controlled_winrate` with the
//! minimal GLM, fitted without a penalty, on AlpacaEval's own annotations of three models), a
//! planted length preference removed within the interval, and the edges. Runs natively and in
//! headless Chromium.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use std::collections::BTreeMap;
use tribunal::io::error::Error;
use tribunal::math::logistic::sigmoid;
use tribunal::rankings::length_battles::parse_length_battles;
use tribunal::rankings::length_control::{LengthBattle, LengthBattles, LengthControlParams};

#[derive(Deserialize)]
struct Fixture {
    models: BTreeMap<String, Reference>,
}

#[derive(Deserialize)]
struct Reference {
    win_rate: f64,
    standard_error: f64,
    n_wins: usize,
    n_wins_base: usize,
    n_draws: usize,
    length_controlled_winrate: f64,
    length_coefficient: f64,
    model_coefficient: f64,
    delta_length_sd: f64,
    published_v1_length_controlled_winrate: f64,
}

const FIXTURE: &str = include_str!("fixtures/length_control_reference.json");
const BATTLES: &[u8] = include_bytes!("../../tests/fixtures/lc-alpaca-eval.csv");

fn close(found: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (found - expected).abs() <= tol * expected.abs().max(1.0),
        "{what}: found {found}, expected {expected}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn equals_alpaca_eval_on_its_own_annotations() {
    let fixture: Fixture = serde_json::from_str(FIXTURE).unwrap();
    let data = parse_length_battles("lc-alpaca-eval.csv", BATTLES).unwrap();
    let found = LengthControlParams::default().fit(&data).unwrap();
    assert_eq!(found.baseline, "gpt4_1106_preview");
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    assert_eq!(found.models.len(), 3);
    for row in &found.models {
        let reference = &fixture.models[&row.model];
        let m = &row.model;
        assert_eq!(row.battles, 805);
        assert_eq!(
            (row.n_wins, row.n_wins_base, row.n_draws),
            (reference.n_wins, reference.n_wins_base, reference.n_draws),
            "{m}"
        );
        close(row.win_rate, reference.win_rate, 1e-12, m);
        close(row.win_rate_se, reference.standard_error, 1e-9, m);
        close(row.delta_length_sd, reference.delta_length_sd, 1e-12, m);
        let lc = row.lc_win_rate.unwrap();
        close(lc, reference.length_controlled_winrate, 1e-7, m);
        close(
            row.length_coefficient.unwrap().estimate,
            reference.length_coefficient,
            1e-6,
            m,
        );
        close(
            row.model_coefficient.unwrap().estimate,
            reference.model_coefficient,
            1e-6,
            m,
        );
        // Upstream's leaderboard adds instruction difficulty and regularisation (v1): the
        // minimal GLM stays within 0.7 points of it on these models.
        assert!(
            (lc - reference.published_v1_length_controlled_winrate).abs() < 0.7,
            "{m}: {lc}"
        );
        let (lower, upper) = (row.lc_lower.unwrap(), row.lc_upper.unwrap());
        assert!(
            lower < lc && lc < upper && upper - lower < 10.0,
            "{m}: [{lower}, {upper}]"
        );
    }
    // Highest length-controlled win rate first.
    let order: Vec<&str> = found.models.iter().map(|r| r.model.as_str()).collect();
    assert_eq!(
        order,
        [
            "FuseChat-Gemma-2-9B-Instruct",
            "FuseChat-Qwen-2.5-7B-Instruct",
            "FuseChat-Llama-3.2-1B-Instruct"
        ]
    );
    // The reading names the reference's highest length-controlled rate and the model whose
    // rate length control moves most, with alpaca-eval's numbers to the printed digit.
    let refs = &fixture.models;
    let best = &refs["FuseChat-Gemma-2-9B-Instruct"];
    let moved = refs
        .iter()
        .max_by(|a, b| {
            let change = |r: &Reference| (r.length_controlled_winrate - r.win_rate).abs();
            change(a.1).total_cmp(&change(b.1))
        })
        .unwrap();
    let reading = found.reading();
    for part in [
        format!(
            "At equal answer length, FuseChat-Gemma-2-9B-Instruct wins {:.1}% [",
            best.length_controlled_winrate
        ),
        format!(
            "against gpt4_1106_preview (as judged: {:.1}%)",
            best.win_rate
        ),
        format!(
            "length control changes {}'s rate most: {:.1}% → {:.1}%.",
            moved.0, moved.1.win_rate, moved.1.length_controlled_winrate
        ),
    ] {
        assert!(reading.contains(&part), "{reading}\n lacks {part}");
    }
}

/// A model whose true win probability at equal length is σ(0.2) = 55 %, judged by a judge that
/// adds 1.2 log-odds to the longer side (tanh-scaled): the raw win rate of its longer answers is
/// inflated, the length-controlled one is not.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_planted_length_preference_is_removed_within_the_interval() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut battles = Vec::new();
    let sd = 400.0;
    for _ in 0..3000 {
        let base = 1500.0;
        let own = base + 300.0 + rng.random_range(-600.0..600.0);
        let delta: f64 = base - own;
        let p = sigmoid(0.2 - 1.2 * (delta / sd).tanh());
        let won = rng.random::<f64>() < p;
        battles.push(LengthBattle {
            a: 0,
            b: 1,
            p_a: if won { 0.0 } else { 1.0 },
            length_a: base,
            length_b: own,
        });
    }
    let data = LengthBattles {
        models: vec!["base".to_owned(), "verbose".to_owned()],
        battles,
    };
    // Two models, both in every battle: the baseline is the one always on side a, as in
    // AlpacaEval's annotations; with the sides mixed it must be named.
    let found = LengthControlParams::default().fit(&data).unwrap();
    assert_eq!(found.baseline, "base");
    let mut mixed = data.clone();
    let first = mixed.battles[0];
    mixed.battles[0] = LengthBattle {
        a: 1,
        b: 0,
        p_a: 1.0 - first.p_a,
        length_a: first.length_b,
        length_b: first.length_a,
    };
    let err = LengthControlParams::default().fit(&mixed).unwrap_err();
    assert!(err.to_string().contains("name the baseline"), "{err}");
    let params = LengthControlParams {
        baseline: Some("base".to_owned()),
        ..Default::default()
    };
    assert_eq!(params.fit(&mixed).unwrap().models[0].battles, 3000);
    let row = &found.models[0];
    let truth = 100.0 * sigmoid(0.2);
    assert!(row.win_rate > truth + 10.0, "raw {}", row.win_rate);
    let (lower, upper) = (row.lc_lower.unwrap(), row.lc_upper.unwrap());
    // The planted scale is δ/400, the fitted one δ/sd(δ) ≈ δ/346: close, not equal, so the
    // recovered rate is near σ(0.2) — within its interval.
    assert!(
        lower < truth && truth < upper,
        "[{lower}, {upper}] ∌ {truth}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_edges_are_named() {
    let battle = |a, b, p_a, length_b| LengthBattle {
        a,
        b,
        p_a,
        length_a: 100.0,
        length_b,
    };
    // A model that never loses keeps its raw win rate and gets no LC win rate, said why; one
    // whose lengths never vary gets none either.
    let data = LengthBattles {
        models: vec![
            "base".into(),
            "unbeaten".into(),
            "same".into(),
            "fine".into(),
        ],
        battles: vec![
            battle(0, 1, 0.0, 120.0),
            battle(0, 1, 0.0, 90.0),
            battle(0, 1, 0.0, 300.0),
            battle(0, 2, 1.0, 100.0),
            battle(0, 2, 0.0, 100.0),
            battle(0, 3, 1.0, 150.0),
            battle(0, 3, 0.0, 80.0),
            battle(0, 3, 0.5, 120.0),
            battle(0, 3, 1.0, 60.0),
        ],
    };
    let found = LengthControlParams::default().fit(&data).unwrap();
    let row = |m: &str| found.models.iter().find(|r| r.model == m).unwrap();
    assert_eq!(row("unbeaten").win_rate, 100.0);
    assert!(row("unbeaten").lc_win_rate.is_none());
    assert!(row("unbeaten")
        .note
        .as_ref()
        .unwrap()
        .contains("not identified"));
    assert!(row("same").lc_win_rate.is_none());
    assert!(row("same").note.as_ref().unwrap().contains("never differ"));
    assert!(row("fine").lc_win_rate.is_some());
    assert_eq!(found.warnings.len(), 2);
    assert_eq!(found.models[0].model, "fine");
    // No single model in every battle, a baseline that is no model, a bad level.
    let mut apart = data.clone();
    apart.battles.push(battle(1, 2, 0.5, 100.0));
    assert!(matches!(
        LengthControlParams::default().fit(&apart),
        Err(Error::Insufficient(_))
    ));
    let named = LengthControlParams {
        baseline: Some("base".into()),
        ..Default::default()
    };
    let err = named.fit(&apart).unwrap_err();
    assert!(
        err.to_string()
            .contains("does not involve the baseline `base`"),
        "{err}"
    );
    let unknown = LengthControlParams {
        baseline: Some("gpt".into()),
        ..Default::default()
    };
    assert!(matches!(
        unknown.fit(&data),
        Err(Error::InvalidParam { .. })
    ));
    // Located errors in the file.
    let bad = b"model_a,model_b,winner,length_a,length_b\nx,y,model_a,10,-3\n";
    let err = parse_length_battles("f.csv", bad).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("f.csv, line 2, column 5 (`length_b`)"),
        "{err}"
    );
    let bad = b"model_a,model_b,winner,score,length_a,length_b\nx,y,model_a,1.5,10,3\n";
    let err = parse_length_battles("f.csv", bad).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("f.csv, line 2, column 4 (`score`)"),
        "{err}"
    );
}
