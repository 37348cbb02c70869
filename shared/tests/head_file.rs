//! The head model file: every kind of head survives a JSON round trip with identical
//! predictions, unknown or missing versions and malformed documents are refused with located
//! messages, and the training-data hash equals an independent Python implementation of the
//! documented encoding (`fixtures/make_heads_reference.py`). Runs natively and in headless
//! Chromium.

use serde::Deserialize;
use tribunal::calibration::btl2_head::{Btl2Data, Btl2Params};
use tribunal::calibration::btl_head::{BtlData, BtlParams};
use tribunal::calibration::head::HeadParams;
use tribunal::calibration::head_file::{training_data_hash, Head, HeadFile, HEAD_FILE_VERSION};
use tribunal::calibration::ls_head::{LsData, LsParams};
use tribunal::calibration::mn_head::{MnData, MnParams};
use tribunal::calibration::plackett_luce_head::{PlackettLuceData, PlackettLuceParams, RankedList};
use tribunal::io::error::Error;

#[derive(Deserialize)]
struct Fixture {
    ls: Vec<LsCase>,
}

#[derive(Deserialize)]
struct LsCase {
    training_data_hash: String,
    embeddings: Vec<Vec<f64>>,
    scores: Vec<f64>,
    labels: Vec<f64>,
}

fn embeddings(n: usize, shift: f64) -> Vec<Vec<f64>> {
    (0..n)
        .map(|i| {
            let t = i as f64 + shift;
            vec![(0.7 * t).sin(), (1.3 * t).cos(), 0.1 * t]
        })
        .collect()
}

fn round_trip(head: Head, data: &impl tribunal::calibration::head::Rows) -> HeadFile {
    let file = HeadFile::new(head, Some(42), data);
    let json = file.to_json().unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["format_version"], HEAD_FILE_VERSION);
    assert_eq!(value["seed"], 42);
    let back = HeadFile::from_json("model.json", &json).unwrap();
    assert_eq!(back, file);
    back
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_head_round_trips_with_identical_predictions() {
    let e = embeddings(12, 0.0);
    let scores: Vec<f64> = (0..12).map(|i| 1.0 + (i % 5) as f64).collect();
    let labels: Vec<f64> = (0..12).map(|i| (i % 2) as f64).collect();

    let ls = LsData {
        embeddings: e.clone(),
        scores: scores.clone(),
        labels: scores.iter().map(|s| 0.5 * s + 1.0).collect(),
    };
    let head = LsParams::default().fit(&ls).unwrap();
    let want = head.predict(&e, &scores).unwrap();
    let Head::Ls(back) = round_trip(Head::Ls(head), &ls).head else {
        panic!("not an LS head")
    };
    assert_eq!(back.predict(&e, &scores).unwrap(), want);

    let p: Vec<f64> = scores.iter().map(|s| s / 6.0).collect();
    let btl = BtlData {
        embeddings: e.clone(),
        probabilities: p.clone(),
        labels: labels.clone(),
    };
    let head = BtlParams::default().fit(&btl).unwrap();
    let want = head.predict(&e, &p).unwrap();
    let Head::Btl(back) = round_trip(Head::Btl(head), &btl).head else {
        panic!("not a BTL head")
    };
    assert_eq!(back.predict(&e, &p).unwrap(), want);

    let second = embeddings(12, 0.5);
    let btl2 = Btl2Data {
        first_embeddings: e.clone(),
        second_embeddings: second.clone(),
        first_scores: scores.clone(),
        second_scores: scores.iter().rev().copied().collect(),
        labels: labels.clone(),
    };
    let head = Btl2Params::default().fit(&btl2).unwrap();
    let want = head
        .predict(&e, &second, &btl2.first_scores, &btl2.second_scores)
        .unwrap();
    let Head::Btl2(back) = round_trip(Head::Btl2(head), &btl2).head else {
        panic!("not a BTL2 head")
    };
    let got = back
        .predict(&e, &second, &btl2.first_scores, &btl2.second_scores)
        .unwrap();
    assert_eq!(got, want);

    let probabilities: Vec<Vec<f64>> = (0..12)
        .map(|i| {
            let a = 0.2 + 0.05 * (i % 4) as f64;
            vec![a, 0.3, 0.7 - a]
        })
        .collect();
    let mn = MnData {
        classes: vec![1, 2, 3],
        embeddings: e.clone(),
        probabilities: probabilities.clone(),
        labels: (0..12).map(|i| 1 + (i % 3) as i64).collect(),
    };
    let head = MnParams::default().fit(&mn).unwrap();
    let want = head.predict(&e, &probabilities).unwrap();
    let Head::Mn(back) = round_trip(Head::Mn(head), &mn).head else {
        panic!("not an MN head")
    };
    assert_eq!(back.predict(&e, &probabilities).unwrap(), want);

    let lists: Vec<RankedList> = (0..4)
        .map(|l| RankedList {
            embeddings: e[3 * l..3 * l + 3].to_vec(),
            scores: scores[3 * l..3 * l + 3].to_vec(),
        })
        .collect();
    let pl = PlackettLuceData {
        lists: lists.clone(),
    };
    let head = PlackettLuceParams::default().fit(&pl).unwrap();
    let want = head.predict(&lists).unwrap();
    let Head::PlackettLuce(back) = round_trip(Head::PlackettLuce(head), &pl).head else {
        panic!("not a Plackett–Luce head")
    };
    assert_eq!(back.predict(&lists).unwrap(), want);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn unknown_versions_and_malformed_files_are_refused() {
    let data = LsData {
        embeddings: embeddings(6, 0.0),
        scores: vec![1.0, 2.0, 3.0, 4.0, 5.0, 1.0],
        labels: vec![1.5, 2.0, 3.5, 4.0, 4.5, 1.0],
    };
    let head = LsParams::default().fit(&data).unwrap();
    let json = HeadFile::new(Head::Ls(head), None, &data)
        .to_json()
        .unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["head"]["kind"], "ls");

    value["format_version"] = 2.into();
    let err = HeadFile::from_json("model.json", &value.to_string()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model.json, line 1: unsupported head-file format version 2; this build reads version 1"
    );

    value.as_object_mut().unwrap().remove("format_version");
    let err = HeadFile::from_json("model.json", &value.to_string()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model.json, line 1: expected a head file with a numeric `format_version`, found none"
    );

    let err =
        HeadFile::from_json("model.json", "{\n  \"format_version\": 1,\n  oops\n}").unwrap_err();
    assert_eq!(
        err.location().map(|l| (l.line, l.column)),
        Some((3, Some(3)))
    );
    assert_eq!(
        err.to_string(),
        "model.json, line 3, column 3: key must be a string"
    );

    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["head"]["kind"] = "svm".into();
    let err = HeadFile::from_json("model.json", &value.to_string()).unwrap_err();
    assert!(err.to_string().contains("unknown variant `svm`"), "{err}");

    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value["head"]["weights"].as_array_mut().unwrap().pop();
    let err = HeadFile::from_json("model.json", &value.to_string()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidParam {
                name: "weights",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "invalid setting `weights`: expected 3 weights like the embedding dimension, found 2"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn training_data_hash_equals_the_python_reference() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/heads_reference.json")).unwrap();
    assert_eq!(fixture.ls.len(), 2);
    for c in fixture.ls {
        let data = LsData {
            embeddings: c.embeddings,
            scores: c.scores,
            labels: c.labels,
        };
        assert_eq!(training_data_hash(&data), c.training_data_hash);
    }
}
