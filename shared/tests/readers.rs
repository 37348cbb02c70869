//! Readers of other tools' files, on real files those tools wrote (small excerpts committed
//! under `tests/data/readers/`, each with its licence and `SOURCE.md`): the battles each becomes,
//! tallied by hand from the JSON (`python3 -c 'import json; …'` over the same excerpts), read back
//! by Tribunal's own battles parser; format detection; and located errors for broken files.
//! Runs natively and in headless Chromium.

use tribunal::compare::comparison::CompareParams;
use tribunal::compare::score_table::TableParams;
use tribunal::io::error::Error;
use tribunal::rankings::battles::parse_battles;
use tribunal::rankings::length_battles::parse_length_battles;
use tribunal::rankings::scored_battles::parse_scored_battles;
use tribunal::readers::{convert, detect, scores_of, ConvertParams, Converted, Format, Output};

const WEIGHTED: &[u8] = include_bytes!(
    "../../tests/data/readers/alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json"
);
const AE1: &[u8] = include_bytes!(
    "../../tests/data/readers/alpaca_eval/alpaca-7b.alpaca_eval_gpt4.annotations.json"
);
const AE_FN: &[u8] = include_bytes!(
    "../../tests/data/readers/alpaca_eval/Mistral-7B-ReMax-v0.1.alpaca_eval_gpt4_turbo_fn.annotations.json"
);
const ARENA_HARD: &[u8] = include_bytes!(
    "../../tests/data/readers/arena_hard/krikri-annealing-dpo_max-length-norm-fixes-checkpoint-1560-with-thinking.excerpt.jsonl"
);
const INSPECT: &[u8] =
    include_bytes!("../../tests/data/readers/inspect/2025-05-12T20-28-13-04-00_popularity.json");
const INSPECT_OLD: &[u8] = include_bytes!(
    "../../tests/data/readers/inspect/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json"
);
const PROMPTFOO: &[u8] = include_bytes!("../../tests/data/readers/promptfoo/sample-export.json");
const PROMPTFOO_CLI: &[u8] =
    include_bytes!("../../tests/data/readers/promptfoo/simple-cli.output.json");
const LM_EVAL_160M: &[u8] = include_bytes!(
    "../../tests/data/readers/lm_eval/EleutherAI__pythia-160m/samples_arc_easy_2026-01-16T15-23-47.285735.jsonl"
);
const LM_EVAL_410M: &[u8] = include_bytes!(
    "../../tests/data/readers/lm_eval/EleutherAI__pythia-410m/samples_arc_easy_2026-01-16T16-02-26.648276.jsonl"
);
const LM_EVAL_GSM8K: &[u8] = include_bytes!(
    "../../tests/data/readers/lm_eval/EleutherAI__pythia-410m/samples_gsm8k_2026-01-16T17-35-22.033409.jsonl"
);
const BATTLES: &[u8] =
    include_bytes!("../../tests/data/readers/chatbot_arena/arena_hard_battles.excerpt.jsonl");

fn read(format: Format, bytes: &[u8], baseline: Option<&str>) -> Converted {
    let params = ConvertParams {
        baseline: baseline.map(str::to_owned),
        ..ConvertParams::default()
    };
    convert(format, "sample", bytes, &params).unwrap()
}

/// (a wins, b wins, ties) of the converted CSV, read back by the battles parser.
fn tally(converted: &Converted) -> (usize, usize, usize) {
    let battles = parse_battles("converted.csv", converted.csv.as_bytes()).unwrap();
    let count = |y: f64| battles.battles.iter().filter(|b| b.y == y).count();
    (count(1.0), count(0.0), count(0.5))
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn alpaca_eval_annotations_become_battles_against_the_baseline() {
    // AlpacaEval 2 (weighted GPT-4 Turbo): preferences 1.0000001827 … 1.9958012051; 4 below 1.5,
    // 2 exactly 1.5 (identical outputs), 5 above.
    let weighted = read(Format::AlpacaEval, WEIGHTED, None);
    assert_eq!((weighted.records, weighted.rows), (11, 11));
    assert_eq!(tally(&weighted), (4, 5, 2));
    let battles = parse_battles("w.csv", weighted.csv.as_bytes()).unwrap();
    assert_eq!(battles.models, ["gpt4_1106_preview", "alpaca-7b"]);
    // The judge's signal: score = 3 − 2·preference, positive for the baseline.
    let scored = parse_scored_battles("w.csv", weighted.csv.as_bytes()).unwrap();
    let first = scored.battles[0].score.unwrap();
    assert!(
        (first - (3.0 - 2.0 * 1.0000001827)).abs() < 1e-12,
        "{first}"
    );
    // Length control reads the same file: P(baseline wins) = 2 − preference, and the lengths.
    let lengths = parse_length_battles("w.csv", weighted.csv.as_bytes()).unwrap();
    assert!((lengths.battles[0].p_a - (2.0 - 1.0000001827)).abs() < 1e-12);
    assert!(lengths
        .battles
        .iter()
        .all(|b| b.length_a > 0.0 && b.length_b > 0.0));
    // AlpacaEval 1: integer preferences, eight 1s, one 2, two 0s (draws).
    assert_eq!(tally(&read(Format::AlpacaEval, AE1, None)), (8, 1, 2));
    // The `_fn` annotator: three 2.0, one null (left out, said), two 1.0; its `id` is the prompt.
    let fn_file = read(Format::AlpacaEval, AE_FN, None);
    assert_eq!((fn_file.records, fn_file.rows), (6, 5));
    assert_eq!(tally(&fn_file), (2, 3, 0));
    assert!(fn_file.warnings[0].starts_with("1 record(s) have no preference"));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn arena_hard_judgments_become_two_games_per_question() {
    // v0.1 records do not name their baseline.
    let err = convert(
        Format::ArenaHard,
        "j.jsonl",
        ARENA_HARD,
        &ConvertParams::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("j.jsonl, line 1, column 1 (`baseline`)"),
        "{err}"
    );
    let judged = read(Format::ArenaHard, ARENA_HARD, Some("gpt-4-0314"));
    assert_eq!((judged.records, judged.rows), (10, 20));
    // Game 1 has the baseline as A: 7 baseline wins (A>B, one A>>B), 2 model wins (B>A); game
    // 2 swaps: 3 model wins (A>B), 6 baseline wins (B>A, one B>>A); the last question is A=B twice.
    let battles = parse_battles("j.csv", judged.csv.as_bytes()).unwrap();
    let model = battles
        .models
        .iter()
        .position(|m| m.starts_with("krikri"))
        .unwrap();
    let model_wins: usize = battles
        .battles
        .iter()
        .filter(|b| (b.a == model && b.y == 1.0) || (b.b == model && b.y == 0.0))
        .count();
    let ties = battles.battles.iter().filter(|b| b.y == 0.5).count();
    assert_eq!((model_wins, ties), (5, 2));
    let strong = judged.csv.lines().filter(|l| l.contains(",true,")).count();
    assert_eq!(strong, 2);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn arena_battle_records_keep_their_votes_and_style_counts() {
    // Twelve battles of claude-3-haiku (a) against claude-3.5-sonnet (b): ten b wins, two ties.
    let battles = read(Format::ChatbotArena, BATTLES, None);
    assert_eq!(tally(&battles), (0, 10, 2));
    assert!(battles
        .csv
        .starts_with("model_a,model_b,winner,prompt,judge,language,turn\n"));
    // FastChat's conv_metadata gives the four style features: (a − b)/(a + b) of tokens,
    // headers (h1…h6 summed), list items and bold spans; `both_bad` is a bothbad tie.
    let record = br#"[{"model_a":"x","model_b":"y","winner":"both_bad","question_id":"q1","judge":"arena_user_1","language":"English","turn":1,
      "conv_metadata":{"sum_assistant_a_tokens":300,"sum_assistant_b_tokens":100,
        "header_count_a":{"h1":1,"h2":2},"header_count_b":{"h1":0,"h2":0},
        "list_count_a":{"ordered":1,"unordered":0},"list_count_b":{"ordered":0,"unordered":3},
        "bold_count_a":{"**":2,"__":0},"bold_count_b":{"**":2,"__":0}}}]"#;
    let styled = read(Format::ChatbotArena, record, None);
    let row = styled.csv.lines().nth(1).unwrap();
    assert_eq!(
        row,
        "x,y,tie (bothbad),q1,arena_user_1,English,1,0.5,1,-0.5,0"
    );
}

/// Each rating of a converted ratings CSV: (item, rater, score).
fn ratings(converted: &Converted) -> Vec<(String, String, f64)> {
    let mut reader = csv::Reader::from_reader(converted.csv.as_bytes());
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r[1].to_owned(), r[2].parse().unwrap())
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn inspect_logs_become_ratings_by_each_scorer() {
    // Three samples scored by `match`: C, C, I.
    let log = read(Format::Inspect, INSPECT, None);
    assert_eq!((log.records, log.rows), (3, 3));
    assert!(
        log.csv.starts_with("item,rater,score,model,task\n"),
        "{}",
        log.csv
    );
    let found = ratings(&log);
    let scores: Vec<f64> = found.iter().map(|r| r.2).collect();
    assert_eq!(scores, [1.0, 1.0, 0.0]);
    assert!(found.iter().all(|r| r.1 == "match"));
    assert!(log.csv.contains(",openai/gpt-4o-mini,popularity\n"));
    // The 2024 layout: one sample, `model_graded_fact` says C.
    let old = read(Format::Inspect, INSPECT_OLD, None);
    assert_eq!(
        ratings(&old),
        [("1".to_owned(), "model_graded_fact".to_owned(), 1.0)]
    );
    // The ratings parser reads what the reader wrote.
    let parsed = tribunal::reliability::ratings::RatingsParams::default()
        .parse("inspect.csv", log.csv.as_bytes())
        .unwrap();
    assert_eq!(
        (parsed.items.len(), parsed.raters.as_slice()),
        (3, ["match".to_owned()].as_slice())
    );
    // Dict-valued scores become one criterion per key; epochs become variants; letters map as
    // Inspect's value_to_float does (P ½, N 0); a null value is left out and said.
    let log = br#"{"version":2,"eval":{"task":"t","model":"m"},"samples":[
      {"id":"a","epoch":1,"scores":{"rubric":{"value":{"accuracy":"P","style":4}}}},
      {"id":"a","epoch":2,"scores":{"rubric":{"value":{"accuracy":"N","style":null}}}}]}"#;
    let found = read(Format::Inspect, log, None);
    assert!(found
        .csv
        .starts_with("item,rater,score,criterion,variant,model,task\n"));
    assert_eq!(
        found.csv.lines().nth(1),
        Some("a,rubric,0.5,accuracy,epoch 1,m,t")
    );
    assert_eq!(found.rows, 3);
    assert_eq!(
        found.warnings,
        ["1 score(s) have no value and are left out"]
    );
    // A value Inspect would not read as a number, at its sample's line.
    let bad = br#"{"version":2,"eval":{"task":"t","model":"m"},"samples":[
      {"id":"a","epoch":1,"scores":{"match":{"value":"maybe"}}}]}"#;
    let err = convert(Format::Inspect, "log.json", bad, &ConvertParams::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("log.json, line 2, column 7 (`scores.match.value`)"),
        "{err}"
    );
    // A log written without its samples.
    let bare = br#"{"version":2,"eval":{"task":"t","model":"m"}}"#;
    let err = convert(Format::Inspect, "log.json", bare, &ConvertParams::default()).unwrap_err();
    assert!(matches!(err, Error::Insufficient(_)), "{err}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn promptfoo_results_become_ratings_by_each_assertion() {
    // Four results (two providers × two tests); overall scores 0.75, 0.5, ⅔, ⅔ and assertions
    // cost, latency, contains, llm-rubric (the second test has no `contains`): 4 + 14 ratings.
    let export = read(Format::Promptfoo, PROMPTFOO, None);
    assert_eq!((export.records, export.rows), (4, 18));
    let found = ratings(&export);
    assert_eq!(
        found[0],
        (
            "openai:gpt-5-mini | test 0 | prompt 1".to_owned(),
            "overall".to_owned(),
            0.75
        )
    );
    let rubric: Vec<f64> = found
        .iter()
        .filter(|r| r.1 == "llm-rubric")
        .map(|r| r.2)
        .collect();
    assert_eq!(rubric, [1.0, 1.0, 1.0, 1.0]);
    let latency: Vec<f64> = found
        .iter()
        .filter(|r| r.1 == "latency")
        .map(|r| r.2)
        .collect();
    assert_eq!(latency, [0.0; 4]);
    // `promptfoo eval -o`: eight passing results without assertions.
    let cli = read(Format::Promptfoo, PROMPTFOO_CLI, None);
    assert_eq!((cli.records, cli.rows), (8, 8));
    assert!(ratings(&cli).iter().all(|r| r.1 == "overall" && r.2 == 1.0));
    // A result without a provider, at its line.
    let bad = b"{\"results\":{\"version\":3,\"results\":[\n  {\"score\":1}]}}";
    let err = convert(Format::Promptfoo, "r.json", bad, &ConvertParams::default()).unwrap_err();
    assert!(
        err.to_string().starts_with("r.json, line 2, column"),
        "{err}"
    );
    assert!(
        err.to_string().contains("missing field `provider`"),
        "{err}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn each_file_is_recognised_by_its_first_record() {
    assert_eq!(detect(WEIGHTED), Some(Format::AlpacaEval));
    assert_eq!(detect(AE_FN), Some(Format::AlpacaEval));
    assert_eq!(detect(ARENA_HARD), Some(Format::ArenaHard));
    assert_eq!(detect(BATTLES), Some(Format::ChatbotArena));
    assert_eq!(detect(INSPECT), Some(Format::Inspect));
    assert_eq!(detect(INSPECT_OLD), Some(Format::Inspect));
    assert_eq!(detect(PROMPTFOO), Some(Format::Promptfoo));
    assert_eq!(detect(PROMPTFOO_CLI), Some(Format::Promptfoo));
    assert_eq!(detect(b"model_a,model_b,winner\nx,y,tie\n"), None);
    assert_eq!(detect(b"\xff\xfe"), None);
    assert_eq!(Format::parse("alpaca-eval").unwrap(), Format::AlpacaEval);
    assert!(Format::parse("helm").is_err());
}

fn error_of(format: Format, bytes: &[u8]) -> String {
    let params = ConvertParams {
        baseline: Some("base".to_owned()),
        ..ConvertParams::default()
    };
    match convert(format, "f.json", bytes, &params) {
        Err(e @ Error::Input { .. }) => e.to_string(),
        other => panic!("expected a located error, found {other:?}"),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn broken_files_are_refused_at_their_line_column_and_field() {
    // A file cut short: JSON's own error, where the text ends.
    let cut = &WEIGHTED[..WEIGHTED.len() / 2];
    let lines = cut.iter().filter(|&&b| b == b'\n').count() + 1;
    let err = error_of(Format::AlpacaEval, cut);
    assert!(
        err.starts_with(&format!("f.json, line {lines}, column")),
        "{err}"
    );
    // A preference outside AlpacaEval's scale, in the second record (line 3 of the array).
    let bad = br#"[
 {"instruction":"i","output_1":"a","generator_1":"g1","output_2":"b","generator_2":"g2","preference":1.2},
 {"instruction":"i","output_1":"a","generator_1":"g1","output_2":"b","generator_2":"g2","preference":7}
]"#;
    let err = error_of(Format::AlpacaEval, bad);
    assert!(
        err.starts_with("f.json, line 3, column 2 (`preference`): expected 1"),
        "{err}"
    );
    // A record without a field: serde's message, at the record's own line.
    let missing =
        b"{\"model_a\":\"x\",\"winner\":\"tie\"}\n{\"model_a\":\"x\",\"model_b\":\"y\"}\n";
    let err = error_of(Format::ChatbotArena, missing);
    assert!(err.starts_with("f.json, line 1, column"), "{err}");
    assert!(err.contains("missing field `model_b`"), "{err}");
    // An unknown winner and an unknown verdict label, on the third line.
    let winner = b"{\"model_a\":\"x\",\"model_b\":\"y\",\"winner\":\"tie\"}\n\n{\"model_a\":\"x\",\"model_b\":\"y\",\"winner\":\"model_c\"}\n";
    let err = error_of(Format::ChatbotArena, winner);
    assert!(
        err.starts_with("f.json, line 3, column 1 (`winner`)"),
        "{err}"
    );
    let label = b"{\"question_id\":\"q\",\"model\":\"m\",\"games\":[{\"score\":\"A>B\"},{\"score\":\"A>>>B\"}]}\n";
    let err = error_of(Format::ArenaHard, label);
    assert!(err.contains("(`score`): game 2: expected A>>B"), "{err}");
    // Invalid UTF-8 on line 2, column 4.
    let err = error_of(Format::ChatbotArena, b"[\n {\"\xff\"}]");
    assert!(err.starts_with("f.json, line 2, column 4"), "{err}");
    // A JSON-lines syntax error names its line.
    let err = error_of(
        Format::ChatbotArena,
        b"{\"model_a\":\"x\",\"model_b\":\"y\",\"winner\":\"tie\"}\n{oops}\n",
    );
    assert!(err.starts_with("f.json, line 2, column 2"), "{err}");
    // No records at all.
    let params = ConvertParams::default();
    assert!(matches!(
        convert(Format::ChatbotArena, "f.json", b"[]", &params),
        Err(Error::Insufficient(_))
    ));
}

// ——— As scores: each tool's per-answer scores straight into `compare` ———

/// Converts to scores, then reads the CSV back as compare does.
fn as_scores(format: Format, name: &str, bytes: &[u8]) -> (Converted, Vec<Vec<String>>) {
    let params = ConvertParams {
        to: Some(Output::Scores),
        ..ConvertParams::default()
    };
    let converted = convert(format, name, bytes, &params).unwrap();
    assert_eq!(converted.output, Output::Scores);
    TableParams::default()
        .parse("scores.csv", converted.csv.as_bytes())
        .unwrap();
    let rows = converted
        .csv
        .lines()
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    (converted, rows)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn inspect_and_promptfoo_results_become_scores_per_system() {
    // Inspect: three samples of gpt-4o-mini scored by `match` (C, C, I), the samples' scalar
    // metadata (`label_confidence`; the nested `{"foo": "bar"}` is not a slice) as a column.
    let (inspect, rows) = as_scores(Format::Inspect, "log.json", INSPECT);
    assert_eq!(
        rows[0],
        [
            "item",
            "system",
            "criterion",
            "score",
            "epoch",
            "task",
            "label_confidence"
        ]
    );
    assert_eq!(inspect.rows, 3);
    assert_eq!(
        rows[1][..6],
        ["1", "openai/gpt-4o-mini", "match", "1", "1", "popularity"]
    );
    assert_eq!(rows[3][3], "0");
    assert_eq!(rows[1][6], "0.8860552919198255");
    // promptfoo: two providers, each under its own prompt — the provider is the system; the
    // test's vars are columns.
    let (_, rows) = as_scores(Format::Promptfoo, "r.json", PROMPTFOO);
    assert_eq!(
        rows[0][..6],
        ["item", "system", "criterion", "score", "provider", "prompt"]
    );
    assert!(rows[0].contains(&"riddle".to_owned()));
    let systems: std::collections::BTreeSet<&str> =
        rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(
        systems.into_iter().collect::<Vec<_>>(),
        ["openai:gpt-5", "openai:gpt-5-mini"]
    );
    // One provider under two prompts: provider × prompt are the systems.
    let (_, rows) = as_scores(Format::Promptfoo, "r.json", PROMPTFOO_CLI);
    let systems: std::collections::BTreeSet<&str> =
        rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(systems.len(), 2, "{systems:?}");
    assert!(systems
        .iter()
        .all(|s| s.starts_with("openai:gpt-4.1-mini × ")));
    // Battles-only formats cannot write scores.
    let params = ConvertParams {
        to: Some(Output::Scores),
        ..ConvertParams::default()
    };
    assert!(convert(Format::ChatbotArena, "b.json", BATTLES, &params).is_err());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn alpaca_eval_files_of_two_models_join_on_the_instruction() {
    let files = vec![
        ("alpaca-7b.json".to_owned(), WEIGHTED.to_vec()),
        ("mistral.json".to_owned(), AE_FN.to_vec()),
    ];
    let (name, csv, warnings) = scores_of(files, None, &ConvertParams::default()).unwrap();
    assert_eq!(name, "scores from alpaca-7b.json + mistral.json.csv");
    assert_eq!(
        warnings,
        ["mistral.json: 1 record(s) have no preference (the annotator failed) and are left out"]
    );
    let found = CompareParams {
        bootstrap_rounds: 0,
        ..CompareParams::default()
    }
    .fit("scores.csv", &csv)
    .unwrap();
    assert_eq!(found.criteria, ["win"]);
    // alpaca-7b: the mean of preference − 1 over its 11 records (python3 over the same file:
    // 0.4439897244090909); Mistral: 2, 2, 2, 1, 1 → 1, 1, 1, 0, 0.
    let mean = |system: &str| {
        let row = found.scores.iter().find(|r| r.system == system).unwrap();
        (row.mean, row.n_items)
    };
    let (alpaca, n) = mean("alpaca-7b");
    assert!((alpaca - 0.4439897244090909).abs() < 1e-12, "{alpaca}");
    assert_eq!(n, 11);
    assert_eq!(mean("Mistral-7B-ReMax-v0.1"), (0.6, 5));
    // Three instructions are in both files: the pair is compared on those, the rest counted.
    let d = &found.differences[0];
    assert_eq!((d.n_shared, d.only_a + d.only_b), (3, 8 + 2), "{d:?}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn lm_eval_samples_of_two_models_are_compared_per_metric() {
    let root = "runs/EleutherAI__pythia-";
    let files = vec![
        (
            format!("{root}160m/samples_arc_easy_2026-01-16T15-23-47.285735.jsonl"),
            LM_EVAL_160M.to_vec(),
        ),
        (
            format!("{root}410m/samples_arc_easy_2026-01-16T16-02-26.648276.jsonl"),
            LM_EVAL_410M.to_vec(),
        ),
    ];
    assert_eq!(detect(LM_EVAL_160M), Some(Format::LmEval));
    let (_, csv, warnings) = scores_of(files, None, &ConvertParams::default()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let text = String::from_utf8(csv.clone()).unwrap();
    assert!(
        text.starts_with(
            "item,system,criterion,score,task\narc_easy/0,EleutherAI__pythia-160m,acc,1,arc_easy\n"
        ),
        "{text}"
    );
    let found = CompareParams {
        bootstrap_rounds: 0,
        ..CompareParams::default()
    }
    .fit("scores.csv", &csv)
    .unwrap();
    assert_eq!(found.criteria, ["acc", "acc_norm"]);
    // acc: 2 of 5 against 4 of 5 on the same five documents; the two discordant documents both
    // favour the 410m, so McNemar's exact p = 2 · 0.5² = 0.5 (hand-computed).
    let d = found
        .differences
        .iter()
        .find(|d| d.criterion == "acc")
        .unwrap();
    assert_eq!(d.n_shared, 5);
    assert!((d.difference.abs() - 0.4).abs() < 1e-12, "{d:?}");
    assert!((d.mcnemar.unwrap().p_value - 0.5).abs() < 1e-12, "{d:?}");
    // gsm8k under two filters: `metric,filter` as the harness names them; the pair-valued
    // `bleu` is left out and said; `--system` names a file's model.
    let params = ConvertParams {
        system: Some("pythia-410m".to_owned()),
        ..ConvertParams::default()
    };
    let gsm = convert(
        Format::LmEval,
        "samples_gsm8k_2026-01-16T17-35-22.033409.jsonl",
        LM_EVAL_GSM8K,
        &params,
    )
    .unwrap();
    assert_eq!(gsm.rows, 6);
    assert!(
        gsm.csv
            .contains("gsm8k/1,pythia-410m,\"exact_match,strict-match\",1,gsm8k"),
        "{}",
        gsm.csv
    );
    assert_eq!(gsm.warnings.len(), 1, "{:?}", gsm.warnings);
    // A file whose every metric is corpus-level has no per-sample score: said, not a blank CSV.
    let bleu_only = br#"{"doc_id": 0, "filter": "none", "metrics": ["bleu"], "bleu": ["a", "b"]}"#;
    let err = convert(Format::LmEval, "s.jsonl", bleu_only, &params).unwrap_err();
    assert!(err.to_string().contains("no per-sample score"), "{err}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_scores_csv_passes_through_and_a_stranger_is_named() {
    let csv = b"item,system,score\n1,a,1\n".to_vec();
    let (name, bytes, _) = scores_of(
        vec![("s.csv".to_owned(), csv.clone())],
        None,
        &ConvertParams::default(),
    )
    .unwrap();
    assert_eq!((name.as_str(), bytes), ("s.csv", csv.clone()));
    // Beside a tool's file, a CSV is not recognised: named, not guessed.
    let err = scores_of(
        vec![
            ("log.json".to_owned(), INSPECT.to_vec()),
            ("s.csv".to_owned(), csv),
        ],
        None,
        &ConvertParams::default(),
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("s.csv, line 1"), "{err}");
    assert!(scores_of(Vec::new(), None, &ConvertParams::default()).is_err());
}
