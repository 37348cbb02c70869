//! The scored-battles CSV schema: the simulated fixture parses to the counts its generator
//! (`fixtures/make_held_out_reference.py`) recorded, and every malformed case is located.
//! Runs natively and in headless Chromium.

use tribunal::io::error::{Error, Location};
use tribunal::rankings::scored_battles::{parse_scored_battles, JudgeSignal};

fn input_error(text: &[u8]) -> (Location, String) {
    match parse_scored_battles("judged.csv", text) {
        Err(Error::Input { location, message }) => (location, message),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fixture_parses_with_the_generators_counts() {
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/held_out_reference.json")).unwrap();
    let data = parse_scored_battles(
        "scored-arena.csv",
        include_bytes!("fixtures/scored-arena.csv"),
    )
    .unwrap();
    assert_eq!(data.signal, JudgeSignal::BothOrders);
    assert_eq!(data.battles.len() as u64, reference["n_battles"]);
    let labelled = data.battles.iter().filter(|b| b.human.is_some()).count();
    assert_eq!(labelled as u64, reference["n_human_battles"]);
    assert_eq!(data.n_models(), 9);
    assert_eq!(data.prompts.len(), 60);
    assert!(data.battles.iter().all(|b| b.score.is_some()));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn malformed_scores_and_labels_name_line_column_and_field() {
    let cases: [(&[u8], Location, &str); 9] = [
        (
            b"model_a,model_b,score,human\nA,B,1.5,model_a\nA,B,abc,model_a\n",
            Location::field("judged.csv", 3, 3, "score"),
            "expected a number, found `abc`",
        ),
        (
            b"model_a,model_b,score\nA,B,NaN\n",
            Location::field("judged.csv", 2, 3, "score"),
            "expected a finite number, found `NaN`",
        ),
        (
            b"model_a,model_b,score_ab,score_ba\nA,B,1,inf\n",
            Location::field("judged.csv", 2, 4, "score_ba"),
            "expected a finite number, found `inf`",
        ),
        (
            b"model_a,model_b,score_ab,score_ba\nA,B,,2\n",
            Location::field("judged.csv", 2, 3, "score_ab"),
            "expected a value, found an empty field",
        ),
        (
            b"model_a,model_b,score,human\nA,B,1,model_c\n",
            Location::field("judged.csv", 2, 4, "human"),
            "expected `model_a`, `model_b`, `tie` or `tie (bothbad)`, found `model_c`",
        ),
        (
            b"judge,model_a,model_b\nleft,A,B\n",
            Location::field("judged.csv", 2, 1, "judge"),
            "expected `model_a`, `model_b`, `tie` or `tie (bothbad)`, found `left`",
        ),
        (
            b"model_a,model_b,judge\nA,B,\n",
            Location::field("judged.csv", 2, 3, "judge"),
            "expected a value, found an empty field",
        ),
        (
            b"model_a,model_b,score\n,B,1\n",
            Location::field("judged.csv", 2, 1, "model_a"),
            "expected a value, found an empty field",
        ),
        (
            b"model_a,model_b,score\nA,A,1\n",
            Location::field("judged.csv", 2, 2, "model_b"),
            "a model cannot battle itself: both sides are `A`",
        ),
    ];
    for (text, location, message) in cases {
        let (loc, msg) = input_error(text);
        assert_eq!(loc, location, "{msg}");
        assert_eq!(msg, message);
    }
    let err =
        parse_scored_battles("judged.csv", b"model_a,model_b,score\nA,B,1\nA,B,x\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "judged.csv, line 3, column 3 (`score`): expected a number, found `x`"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn malformed_headers_and_rows_are_located() {
    let header_cases: [(&[u8], &str); 6] = [
        (
            b"model_a,score\nA,1\n",
            "header lacks `model_a` or `model_b`: expected `model_a,model_b` and a judge signal: \
             `score`, or `score_ab` and `score_ba`, or `judge`, found `model_a,score`",
        ),
        (
            b"model_a,model_b,human\nA,B,tie\n",
            "header has no judge signal: expected `model_a,model_b` and a judge signal: `score`, \
             or `score_ab` and `score_ba`, or `judge`, found `model_a,model_b,human`",
        ),
        (
            b"model_a,model_b,score_ab\nA,B,1\n",
            "header has only one of `score_ab` and `score_ba`: expected both orders, found \
             `model_a,model_b,score_ab`",
        ),
        (
            b"model_a,model_b,score,score_ab,score_ba\nA,B,1,1,1\n",
            "header has both `score` and `score_ab`/`score_ba`: expected one judge signal, found \
             `model_a,model_b,score,score_ab,score_ba`",
        ),
        (
            b"",
            "the file is empty: expected a header row with `model_a,model_b` and a judge signal: \
             `score`, or `score_ab` and `score_ba`, or `judge`",
        ),
        (
            b"\n",
            "the file is empty: expected a header row with `model_a,model_b` and a judge signal: \
             `score`, or `score_ab` and `score_ba`, or `judge`",
        ),
    ];
    for (text, message) in header_cases {
        let (loc, msg) = input_error(text);
        assert_eq!(loc, Location::line("judged.csv", 1));
        assert_eq!(msg, message);
    }
    let (loc, msg) = input_error(b"model_a,model_b,score\nA,B,1\nA,B\n");
    assert_eq!(loc, Location::line("judged.csv", 3));
    assert_eq!(msg, "expected 3 fields as in the header, found 2");
    let (loc, msg) = input_error(b"model_a,model_b,score\nA,B\xff,1\n");
    assert_eq!((loc.line, loc.column), (2, Some(2)));
    assert_eq!(msg, "expected UTF-8 text, found invalid bytes");
    match parse_scored_battles("judged.csv", b"model_a,model_b,score\n") {
        Err(Error::Insufficient(msg)) => {
            assert_eq!(msg, "judged.csv: the file has a header but no battles")
        }
        other => panic!("expected Insufficient, got {other:?}"),
    }
}
