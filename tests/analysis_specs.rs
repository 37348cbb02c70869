//! Every analysis is a spec: each `tribunal stats` subcommand records the [`Spec`] it ran, and
//! `tribunal stats run` on that spec, with copies of the files under other names, prints the
//! same report (every number equal, not merely close) — from a bare spec, a saved analysis
//! (`{"spec": …}`) or the whole earlier report. A file with other content, a missing or an
//! unknown role, and a spec of another version are refused with a message that says which.
//!
//! [`Spec`]: tribunal::analysis::Spec

use serde_json::Value;
use std::path::{Path, PathBuf};
use tribunal_e2e::{root, run_tribunal, temp_dir};

const CROWD: &str = "tests/data/llmfao/crowd-comparisons.csv";
const GPT4: &str = "tests/data/llmfao/gpt4-crowd-comparisons.csv";
const LLMFAO: [&str; 8] = [
    "--item", "id", "--rater", "worker", "--score", "winner", "--scale", "nominal",
];

/// The output of `args`, which must succeed.
fn succeeded(args: &[&str]) -> std::process::Output {
    let out = run_tribunal(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_of(args: &[&str]) -> Value {
    serde_json::from_slice(&succeeded(args).stdout).expect("JSON on stdout")
}

/// The error of `args`: exit status 1, or 2 for a command line clap refuses.
fn stderr_of(args: &[&str]) -> String {
    let out = run_tribunal(args);
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{args:?} should fail"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// How `stats run` is handed the spec.
#[derive(Clone, Copy)]
enum Form {
    /// The spec document alone.
    Bare,
    /// A saved analysis: `{"id": …, "spec": …}`.
    Saved,
    /// The whole earlier report; the spec is its `record.spec`.
    Report,
}

/// Runs `args`; then `stats run` on the record's spec (handed over as `form`) with each role's
/// file copied into `dir` under another name. The reports without their records are equal, the
/// rerun records the same spec, and its `record.command` is `stats run`. Returns the report.
fn reruns_identically(dir: &Path, form: Form, args: &[&str]) -> Value {
    let out = succeeded(args);
    let mut first: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    warned_on_stderr(args, &first, &String::from_utf8_lossy(&out.stderr));
    let spec = first["record"]["spec"].clone();
    assert_eq!(spec["version"], 1, "{spec}");
    let document = match form {
        Form::Bare => spec.clone(),
        Form::Saved => serde_json::json!({ "id": "a1", "spec": spec }),
        Form::Report => first.clone(),
    };
    let spec_path = dir.join(format!("{}-spec.json", args[1]));
    std::fs::write(&spec_path, document.to_string()).unwrap();
    let mut rerun: Vec<String> = vec!["stats".into(), "run".into(), path(&spec_path)];
    for (role, input) in spec["inputs"].as_object().expect("inputs") {
        let original = root().join(input["name"].as_str().expect("a file name"));
        let copy = dir.join(format!("copy-of-{}-{role}", args[1]));
        std::fs::copy(&original, &copy).expect("copying an input");
        rerun.extend(["--input".into(), format!("{role}={}", path(&copy))]);
    }
    let rerun: Vec<&str> = rerun.iter().map(String::as_str).collect();
    let mut second = json_of(&rerun);
    let (first_record, second_record) = (first["record"].take(), second["record"].take());
    assert_eq!(first, second, "{args:?}: the rerun's report differs");
    assert_eq!(first_record["spec"], second_record["spec"]);
    assert_eq!(second_record["command"], "stats run");
    first["record"] = first_record;
    first
}

/// Every warning anywhere in `report` — each `warnings` array, its parts' included — is on
/// `stderr` (the CLI reads them from the typed report, not from this JSON).
fn warned_on_stderr(args: &[&str], report: &Value, stderr: &str) {
    fn collect<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("record", _) => {}
                        ("warnings", Value::Array(items)) => {
                            into.extend(items.iter().filter_map(Value::as_str));
                        }
                        _ => collect(value, into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, into)),
            _ => {}
        }
    }
    let mut texts = Vec::new();
    collect(report, &mut texts);
    for text in texts {
        assert!(
            stderr.contains(text),
            "{args:?}: the warning `{text}` is not on stderr:\n{stderr}"
        );
    }
}

fn path(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn leaderboards_and_judge_studies_rerun_from_their_specs() {
    let dir = temp_dir("specs-rankings");
    let board = reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "bt",
            "--input",
            CROWD,
            "--bootstrap",
            "40",
            "--seed",
            "3",
            "--cluster",
            "prompt",
            "--anchor",
            "GPT 4=1200",
        ],
    );
    let spec = &board["record"]["spec"];
    assert_eq!(spec["analysis"], "leaderboard");
    assert_eq!(spec["cluster"], "prompt");
    assert_eq!(spec["anchor"]["model"], "GPT 4");
    assert_eq!(spec["bootstrap"]["rounds"], 40);
    // The report names the file the spec was made on, whatever the copy is called.
    assert_eq!(board["source"], CROWD);

    let study = reruns_identically(
        &dir,
        Form::Saved,
        &[
            "stats", "soft-elo", "--human", CROWD, "--judge", GPT4, "--key", "id", "--splits", "20",
        ],
    );
    assert_eq!(study["record"]["spec"]["analysis"], "judge_study");
    assert_eq!(study["record"]["spec"]["key"], "id");
    let conformal = reruns_identically(
        &dir,
        Form::Report,
        &[
            "stats",
            "conformal",
            "--human",
            CROWD,
            "--judge",
            GPT4,
            "--key",
            "id",
            "--splits",
            "20",
            "--alpha",
            "0.2",
        ],
    );
    assert_eq!(conformal["record"]["spec"]["analysis"], "conformal");
    assert_eq!(conformal["settings"]["conformal"]["alpha"], 0.2);
    // The conformal report is the conformal part of the study of the same settings.
    assert_eq!(conformal["n_judge_verdicts"], study["n_judge_verdicts"]);
}

#[test]
fn reliability_reports_rerun_from_their_specs() {
    let dir = temp_dir("specs-reliability");
    let mut agree = vec![
        "stats",
        "agree",
        "--input",
        CROWD,
        "--judge",
        GPT4,
        "--bootstrap",
        "30",
        "--slice",
        "prompt",
    ];
    agree.extend(LLMFAO);
    let report = reruns_identically(&dir, Form::Bare, &agree);
    // The judge file has no rater column: its rater is named after the file the spec recorded,
    // not after the copy `stats run` read.
    assert_eq!(report["judges"][0]["rater"], "gpt4-crowd-comparisons");
    assert!(report["slices"].is_object(), "{}", report["slices"]);
    assert_eq!(report["record"]["spec"]["judges"], 1);

    let runs = "tests/fixtures/aa-runs.csv";
    reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "aa",
            "--input",
            runs,
            "--scale",
            "nominal",
            "--runs",
            "run1,run2",
            "--gold",
            "gold",
            "--pass",
            "pass",
        ],
    );
    let repeats = write(
        &dir,
        "repeats.csv",
        "item,criterion,variant,score\nq1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,0\n\
         q2,coverage,r1,0\nq2,coverage,r2,1\nq2,coverage,r3,0\n",
    );
    let consistency = reruns_identically(
        &dir,
        Form::Saved,
        &["stats", "consistency", "--input", &path(&repeats)],
    );
    assert_eq!(consistency["record"]["spec"]["analysis"], "consistency");
    let orders = write(
        &dir,
        "orders.csv",
        "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\np3,ab,tie\n\
         p3,ba,right\np4,ab,right\n",
    );
    reruns_identically(
        &dir,
        Form::Report,
        &[
            "stats",
            "position",
            "--input",
            &path(&orders),
            "--bootstrap",
            "50",
        ],
    );
    reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "irt",
            "--input",
            "tests/fixtures/small-irt-judge.csv",
            "--human",
            "tests/fixtures/small-irt-human.csv",
        ],
    );
    let table = reruns_identically(
        &dir,
        Form::Saved,
        &[
            "stats",
            "irt",
            "--each",
            "--input",
            "tests/fixtures/small-irt-judge.csv",
            "--human",
            "tests/fixtures/small-irt-human.csv",
        ],
    );
    assert_eq!(table["record"]["spec"]["analysis"], "irt_table");
    assert_eq!(table["statistic"], "irt_table");
    assert!(!table["cells"].as_array().unwrap().is_empty());
    let power = reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats", "power", "--p1", "0.6", "--p2", "0.5,0.55", "--power", "0.8,0.9",
        ],
    );
    assert_eq!(power["rows"].as_array().map(Vec::len), Some(4));
    assert_eq!(power["record"]["spec"]["inputs"], serde_json::json!({}));
}

/// An LS calibration file: an embedding of `d` numbers, the judge's score and the human label,
/// from a fixed linear rule with a deterministic wobble.
fn calibration_csv(rows: usize, offset: usize) -> String {
    let mut text = String::from("embedding,score,human\n");
    for i in offset..offset + rows {
        let e: Vec<f64> = (0..4)
            .map(|j| (((i * 7 + j * 13) % 17) as f64 - 8.0) / 8.0)
            .collect();
        let score = 3.0 + e[0] - 0.5 * e[1];
        let human = score + 0.8 * e[2] + 0.1 * ((i % 5) as f64 - 2.0);
        let cells: Vec<String> = e.iter().map(|x| format!("{x:e}")).collect();
        text.push_str(&format!("{},{score},{human}\n", cells.join(" ")));
    }
    text
}

#[test]
fn calibrations_and_programs_rerun_from_their_specs() {
    let dir = temp_dir("specs-calibration");
    let train = path(&write(&dir, "train.csv", &calibration_csv(60, 0)));
    let test = path(&write(&dir, "test.csv", &calibration_csv(30, 60)));
    let model = dir.join("model.json");
    let report = reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "calibrate",
            "--head",
            "ls",
            "--train",
            &train,
            "--test",
            &test,
            "--bootstrap",
            "50",
            "--gammas",
            "5",
            "--folds",
            "3",
            "--ablation",
            "drop:0.25",
            "--train-sizes",
            "20,40",
            "--repeats",
            "2",
            "--model-out",
            &path(&model),
        ],
    );
    let spec = &report["record"]["spec"];
    assert_eq!(spec["analysis"], "calibration");
    assert_eq!(spec["ablation"]["ablation"], "drop_features", "{spec}");
    assert_eq!(spec["ablation"]["fraction"], 0.25);
    assert!(report["training_curve"].is_object());
    // The model file is the report's model.
    let written: Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    assert_eq!(
        written["training_data_hash"],
        report["model"]["training_data_hash"]
    );

    let data = |name: &str| format!("tests/data/llmfao/{name}");
    let votes = dir.join("votes.csv");
    let programs = reruns_identically(
        &dir,
        Form::Report,
        &[
            "stats",
            "programs",
            "--pairs",
            &data("pairs.csv"),
            "--llm",
            &data("gpt4-verdicts.csv"),
            "--probes",
            &data("probes.csv"),
            "--top-k",
            "4",
            "--rounds",
            "50",
            "--seed",
            "7",
            "--budget",
            "0.1",
            "--votes-out",
            &path(&votes),
        ],
    );
    // The escalated pairs travel in the report, as the items CSV a judge run reads.
    let items = programs["escalated_items_csv"].as_str().expect("a CSV");
    let rows = csv::Reader::from_reader(items.as_bytes()).records().count();
    assert_eq!(
        Some(rows as u64),
        programs["escalation"]["escalated"].as_u64()
    );
    assert!(rows > 0);
    // The user's own programs travel as their scores: an oracle that scores the labelled
    // winner 1 and the loser 0 (abstaining on ties) sits beside the built-in library and is
    // right on every validation pair it votes on.
    let mut oracle = String::from("oracle\n");
    let mut reader = csv::Reader::from_path(root().join(data("pairs.csv"))).unwrap();
    let label = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "label")
        .unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        oracle.push_str(match &record[label] {
            "a" => "1\n0\n",
            "b" => "0\n1\n",
            _ => "\"\"\n\"\"\n",
        });
    }
    let user_scores = write(&dir, "user-scores.csv", &oracle);
    let with_user = reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "programs",
            "--pairs",
            &data("pairs.csv"),
            "--rounds",
            "50",
            "--user-scores",
            &path(&user_scores),
        ],
    );
    let row = with_user["programs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "oracle")
        .expect("the user program among the programs");
    assert_eq!(row["accuracy"], 1.0, "{row}");
    assert_eq!(
        with_user["record"]["spec"]["inputs"]["user_scores"]["name"],
        path(&user_scores)
    );

    let v = path(&votes);
    let label_model = reruns_identically(
        &dir,
        Form::Bare,
        &[
            "stats",
            "label-model",
            "--votes",
            &v,
            "--rounds",
            "50",
            "--seed",
            "7",
        ],
    );
    assert_eq!(
        label_model["label_model"],
        programs["committee"]["label_model"]
    );
    reruns_identically(
        &dir,
        Form::Saved,
        &[
            "stats",
            "route",
            "--votes",
            &v,
            "--llm",
            &data("gpt4-verdicts.csv"),
            "--rounds",
            "50",
            "--seed",
            "7",
        ],
    );
}

#[test]
fn a_rerun_refuses_other_files_missing_or_unknown_roles_and_other_versions() {
    let dir = temp_dir("specs-refused");
    let report = json_of(&["stats", "bt", "--input", CROWD, "--bootstrap", "0"]);
    let spec_path = dir.join("spec.json");
    std::fs::write(&spec_path, report["record"]["spec"].to_string()).unwrap();
    let spec = path(&spec_path);

    let err = stderr_of(&["stats", "run", &spec, "--input", &format!("battles={GPT4}")]);
    assert!(
        err.contains("role `battles`") && err.contains("not the file the spec was made on"),
        "{err}"
    );
    let err = stderr_of(&["stats", "run", &spec]);
    assert!(
        err.contains("the role `battles`") && err.contains("no file was given"),
        "{err}"
    );
    let battles = format!("battles={CROWD}");
    let judge = format!("judge={GPT4}");
    let err = stderr_of(&[
        "stats", "run", &spec, "--input", &battles, "--input", &judge,
    ]);
    assert!(err.contains("the role `judge`"), "{err}");
    let err = stderr_of(&[
        "stats", "run", &spec, "--input", &battles, "--input", &battles,
    ]);
    assert!(err.contains("given twice"), "{err}");
    let err = stderr_of(&["stats", "run", &spec, "--input", CROWD]);
    assert!(err.contains("expected ROLE=FILE"), "{err}");

    let mut future = report["record"]["spec"].clone();
    future["version"] = 99.into();
    std::fs::write(&spec_path, future.to_string()).unwrap();
    let err = stderr_of(&["stats", "run", &spec, "--input", &battles]);
    assert!(err.contains("version 1, found 99"), "{err}");

    // A spec whose roles are not its analysis's.
    let mut wrong = report["record"]["spec"].clone();
    wrong["inputs"] = serde_json::json!({ "ratings": wrong["inputs"]["battles"].clone() });
    std::fs::write(&spec_path, wrong.to_string()).unwrap();
    let err = stderr_of(&[
        "stats",
        "run",
        &spec,
        "--input",
        &format!("ratings={CROWD}"),
    ]);
    assert!(
        err.contains("no file in the role `battles`; expected the roles battles"),
        "{err}"
    );

    std::fs::write(&spec_path, "{\"analysis\": \"nonsense\"}").unwrap();
    let err = stderr_of(&["stats", "run", &spec]);
    assert!(err.contains("expected an analysis spec"), "{err}");
}

#[test]
fn self_preference_and_length_control_rerun_from_their_specs() {
    let dir = temp_dir("specs-judge-bias");
    let self_preference = |family| {
        [
            "stats",
            "self-preference",
            "--human",
            CROWD,
            "--judge",
            GPT4,
            "--key",
            "id",
            "--family",
            family,
        ]
    };
    let gpt = self_preference("GPT 4,GPT 3.5 Turbo,GPT 3.5 Turbo (16k)");
    let report = reruns_identically(&dir, Form::Saved, &gpt);
    assert_eq!(report["analysis"], "self_preference");
    // LLMFAO's GPT-4 judge gives the GPT family 96 % of its battles against other models,
    // where the crowd's ratings predict 67 %.
    assert!(
        report["bias"]["lower"].as_f64() > Some(0.0),
        "{}",
        report["bias"]
    );
    let lc = [
        "stats",
        "lc",
        "--input",
        "tests/fixtures/lc-alpaca-eval.csv",
    ];
    let report = reruns_identically(&dir, Form::Report, &lc);
    assert_eq!(report["baseline"], "gpt4_1106_preview");
    assert_eq!(report["models"].as_array().map(Vec::len), Some(3));
    // A family name the battles do not have is refused, naming it.
    let err = stderr_of(&self_preference("GPT 5"));
    assert!(err.contains("`GPT 5` is no model of the battles"), "{err}");
}

#[test]
fn compare_reruns_from_its_spec_and_locates_bad_scores() {
    let dir = temp_dir("specs-compare");
    let compare = [
        "stats",
        "compare",
        "--input",
        "tests/fixtures/compare-alpaca-eval.csv",
        "--baseline",
        "gpt-3.5-turbo-1106",
        "--cluster-column",
        "dataset",
        "--slice",
        "dataset",
        "--bootstrap-rounds",
        "100",
        "--seed",
        "5",
        "--target-difference",
        "0.05",
    ];
    for form in [Form::Saved, Form::Report] {
        let report = reruns_identically(&dir, form, &compare);
        assert_eq!(report["analysis"], "compare");
        assert_eq!(report["settings"]["seed"], 5);
        // Four systems against the baseline on two criteria.
        assert_eq!(report["differences"].as_array().map(Vec::len), Some(8));
        assert!(report["differences"][0]["bootstrap"]["valid_rounds"] == 100);
        assert!(report["differences"][0]["items_for_target"].as_u64() > Some(0));
        assert!(report["reading"].as_str().is_some_and(|r| !r.is_empty()));
    }
    let bad = write(&dir, "bad.csv", "item,system,score\nq1,A,1\nq1,B,fail\n");
    let err = stderr_of(&["stats", "compare", "--input", &path(&bad)]);
    assert!(err.contains("line 3, column 3 (`score`)"), "{err}");
    let err = stderr_of(&[
        "stats",
        "compare",
        "--input",
        "tests/fixtures/compare-alpaca-eval.csv",
        "--baseline",
        "gpt-5",
    ]);
    assert!(err.contains("`gpt-5` is not a system of the file"), "{err}");
}

#[test]
fn other_tools_files_go_straight_into_compare() {
    // lm-evaluation-harness samples of two models (a folder each): converted and joined.
    let lm = "tests/data/readers/lm_eval/EleutherAI__pythia-";
    let report = json_of(&[
        "stats",
        "compare",
        "--input",
        &format!("{lm}160m/samples_arc_easy_2026-01-16T15-23-47.285735.jsonl"),
        "--input",
        &format!("{lm}410m/samples_arc_easy_2026-01-16T16-02-26.648276.jsonl"),
        "--bootstrap-rounds",
        "0",
    ]);
    assert_eq!(report["analysis"], "compare");
    let systems: Vec<&str> = report["scores"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["criterion"] == "acc")
        .map(|r| r["system"].as_str().unwrap())
        .collect();
    assert_eq!(
        systems,
        ["EleutherAI__pythia-160m", "EleutherAI__pythia-410m"]
    );
    // `tribunal convert --to scores` writes the CSV the spec records, so `stats run` reruns it.
    let dir = temp_dir("convert-scores");
    let out = succeeded(&[
        "convert",
        "--to",
        "scores",
        "tests/data/readers/inspect/2025-05-12T20-28-13-04-00_popularity.json",
    ]);
    let csv = write(&dir, "inspect.csv", &String::from_utf8_lossy(&out.stdout));
    let inspect = json_of(&["stats", "compare", "--input", &path(&csv)]);
    assert_eq!(inspect["scores"][0]["system"], "openai/gpt-4o-mini");
    // AlpacaEval: the baseline's battles cannot be scores of another format; a file of no
    // tool beside a tool's file is named.
    let err = stderr_of(&[
        "stats",
        "compare",
        "--input",
        "tests/data/readers/alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json",
        "--input",
        "tests/fixtures/compare-alpaca-eval.csv",
    ]);
    assert!(
        err.contains("tests/fixtures/compare-alpaca-eval.csv, line 1"),
        "{err}"
    );
    // Gold labels in a file of their own: joined on item and system, counted in the report.
    let scores = write(
        &dir,
        "scores.csv",
        "item,system,score\nq1,A,1\nq1,B,0\nq2,A,1\nq2,B,1\nq3,A,0\nq3,B,1\nq4,A,1\nq4,B,0\n",
    );
    let gold = write(
        &dir,
        "gold.csv",
        "item,system,human\nq1,A,1\nq2,B,1\nq3,A,1\nq9,A,0\n",
    );
    let report = json_of(&[
        "stats",
        "compare",
        "--input",
        &path(&scores),
        "--gold",
        &path(&gold),
        "--bootstrap-rounds",
        "0",
    ]);
    assert_eq!(report["gold"]["labelled"], 3, "{}", report["gold"]);
    assert_eq!(report["gold"]["unmatched"], 1);
    assert_eq!(
        report["record"]["spec"]["inputs"]["gold"]["name"],
        path(&gold)
    );
    let err = stderr_of(&[
        "convert",
        "--to",
        "scores",
        "tests/data/readers/chatbot_arena/arena_hard_battles.excerpt.jsonl",
    ]);
    assert!(err.contains("converts to battles, not scores"), "{err}");
}

#[test]
fn other_tools_files_convert_to_battles_that_every_analysis_reads() {
    let dir = temp_dir("convert");
    let sample =
        "tests/data/readers/alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json";
    // The format is recognised without --from; the CSV goes to stdout, the summary to stderr.
    let out = succeeded(&["convert", sample]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("AlpacaEval annotations") && stderr.contains("11 battles"),
        "{stderr}"
    );
    let csv = write(&dir, "alpaca.csv", &String::from_utf8_lossy(&out.stdout));
    let lc = json_of(&["stats", "lc", "--input", &path(&csv)]);
    assert_eq!(lc["models"][0]["model"], "alpaca-7b");
    assert_eq!(lc["models"][0]["battles"], 11);
    // Arena-Hard v0.1 needs its baseline named; --out writes the file.
    let judged = "tests/data/readers/arena_hard/krikri-annealing-dpo_max-length-norm-fixes-checkpoint-1560-with-thinking.excerpt.jsonl";
    let err = stderr_of(&["convert", "--from", "arena-hard", judged]);
    assert!(err.contains("line 1, column 1 (`baseline`)"), "{err}");
    let battles = dir.join("arena-hard.csv");
    succeeded(&[
        "convert",
        "--from",
        "arena-hard",
        "--baseline",
        "gpt-4-0314",
        judged,
        "--out",
        &path(&battles),
    ]);
    let board = json_of(&[
        "stats",
        "bt",
        "--input",
        &path(&battles),
        "--bootstrap",
        "0",
    ]);
    assert_eq!(
        board["ratings"].as_array().map(Vec::len),
        Some(2),
        "{board}"
    );
    // An Inspect log becomes ratings, its scorer the rater.
    let log = "tests/data/readers/inspect/2025-05-12T20-28-13-04-00_popularity.json";
    let ratings = dir.join("inspect.csv");
    let out = succeeded(&["convert", log, "--out", &path(&ratings)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3 records, 3 ratings"), "{stderr}");
    let text = std::fs::read_to_string(&ratings).unwrap();
    assert_eq!(text.lines().next(), Some("item,rater,score,model,task"));
    // A file of no known tool, and an unknown format name.
    let err = stderr_of(&["convert", CROWD]);
    assert!(
        err.contains("not a file of a known tool; give --from"),
        "{err}"
    );
    let err = stderr_of(&["convert", "--from", "helm", sample]);
    assert!(
        err.contains("expected one of alpaca_eval, arena_hard, chatbot_arena"),
        "{err}"
    );
}

#[test]
fn a_part_s_warning_reaches_stderr_with_its_place() {
    let dir = temp_dir("specs-warnings");
    // `E` never loses in the human labels, so the study's human leaderboard (a part of its
    // report) warns that `E` is separated; the judge gives some of E's battles away.
    const MODELS: [&str; 5] = ["A", "B", "C", "D", "E"];
    let (mut human, mut judge) = (String::new(), String::new());
    for i in 0..120 {
        let (a, b) = (MODELS[i % 5], MODELS[(i + 1 + i / 5 % 4) % 5]);
        let truth = match (a, b, i % 3) {
            ("E", _, _) => "model_a",
            (_, "E", _) => "model_b",
            (_, _, 0) => "model_a",
            (_, _, 1) => "model_b",
            _ => "tie",
        };
        let verdict = match (a, b) {
            ("E", _) if i % 4 == 0 => "model_b",
            (_, "E") if i % 4 == 0 => "model_a",
            _ => truth,
        };
        human.push_str(&format!("{i},{a},{b},{truth}\n"));
        judge.push_str(&format!("{i},{a},{b},{verdict}\n"));
    }
    let header = "id,model_a,model_b,winner\n";
    let human = write(&dir, "human.csv", &format!("{header}{human}"));
    let judge = write(&dir, "judge.csv", &format!("{header}{judge}"));
    let (human, judge) = (path(&human), path(&judge));
    let args = [
        "stats", "soft-elo", "--human", &human, "--judge", &judge, "--key", "id", "--splits", "5",
    ];
    let out = succeeded(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: human: `E` is separated"),
        "{stderr}"
    );
    assert!(!stderr.contains("warning: judge: `E`"), "{stderr}");
    let study: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    warned_on_stderr(&args, &study, &stderr);
}
