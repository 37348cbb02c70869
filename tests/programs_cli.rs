//! `tribunal stats programs|label-model|route` on LLMFAO (`tests/data/llmfao/pairs.csv`,
//! `gpt4-verdicts.csv`, `probes.csv`, made by `tests/fixtures/make_llmfao_*.py`): the printed
//! accuracies equal counts made here from the written vote file and the verdict files, the
//! routing curves run from the committee alone to GPT-4 alone with the oracle on top, the
//! three commands agree, a seed reproduces the report, and bad files fail with located errors.

use std::collections::HashMap;
use std::path::Path;
use tribunal_e2e::{root, run_tribunal, stdout_json, temp_dir};

fn data(name: &str) -> String {
    root()
        .join("tests/data/llmfao")
        .join(name)
        .display()
        .to_string()
}

fn json(args: &[&str]) -> serde_json::Value {
    stdout_json(&run_tribunal(args))
}

fn fails(args: &[&str]) -> String {
    let out = run_tribunal(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Rows of a CSV file as maps from header to field.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// 1 right, ½ no verdict, 0 wrong.
fn credit(verdict: i32, truth: i32) -> f64 {
    match verdict {
        0 => 0.5,
        v if v == truth => 1.0,
        _ => 0.0,
    }
}

fn side(label: &str) -> i32 {
    match label {
        "a" => 1,
        "b" => -1,
        _ => 0,
    }
}

fn estimate(v: &serde_json::Value) -> f64 {
    v["accuracy"]["estimate"].as_f64().unwrap()
}

#[test]
fn llmfao_programs_report_equals_counts_from_its_vote_file() {
    let dir = temp_dir("programs-llmfao");
    let votes = dir.join("votes.csv");
    let (pairs, gpt4, probes) = (
        data("pairs.csv"),
        data("gpt4-verdicts.csv"),
        data("probes.csv"),
    );
    let args = [
        "stats",
        "programs",
        "--pairs",
        &pairs,
        "--llm",
        &gpt4,
        "--probes",
        &probes,
        "--top-k",
        "4",
        "--rounds",
        "200",
        "--seed",
        "7",
        "--votes-out",
        votes.to_str().unwrap(),
    ];
    let report = json(&args);
    assert_eq!(report["pairs"], 2139);
    // 2139 labelled pairs (crowd plurality a/b/tie); ⌊0.3·2139 + ½⌋ = 642 for validation.
    assert_eq!(report["validation_pairs"], 642);
    assert_eq!(report["test_pairs"], 2139 - 642);
    let committee = &report["committee"];
    let members: Vec<&str> = committee["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(members.len(), 4);

    let gpt4_rows = rows(Path::new(&gpt4));
    let gpt4_verdict: HashMap<&str, i32> = gpt4_rows
        .iter()
        .map(|r| (r["id"].as_str(), side(&r["label"])))
        .collect();
    let vote_rows = rows(&votes);
    assert_eq!(vote_rows.len(), 2139);
    let (mut n, mut lm, mut mv, mut llm) = (0usize, 0.0, 0.0, 0.0);
    let mut member_counts = vec![(0usize, 0usize); members.len()];
    for r in &vote_rows {
        let truth = side(&r["label"]);
        if r["split"] != "test" || truth == 0 {
            continue;
        }
        n += 1;
        let q: f64 = r["posterior"].parse().unwrap();
        lm += credit(
            if q > 0.5 {
                1
            } else if q < 0.5 {
                -1
            } else {
                0
            },
            truth,
        );
        let sum: i32 = members.iter().map(|m| r[*m].parse::<i32>().unwrap()).sum();
        mv += credit(sum.signum(), truth);
        llm += credit(gpt4_verdict[r["id"].as_str()], truth);
        for (j, m) in members.iter().enumerate() {
            let v: i32 = r[*m].parse().unwrap();
            if v != 0 {
                member_counts[j].0 += 1;
                member_counts[j].1 += usize::from(v == truth);
            }
        }
    }
    assert_eq!(committee["test_labelled"], n);
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    close(estimate(&committee["label_model"]), lm / n as f64);
    close(estimate(&committee["majority_vote"]), mv / n as f64);
    close(estimate(&committee["llm"]), llm / n as f64);
    for (j, m) in committee["members"].as_array().unwrap().iter().enumerate() {
        let (covered, correct) = member_counts[j];
        close(
            m["test_accuracy"].as_f64().unwrap(),
            correct as f64 / covered as f64,
        );
    }

    // Routing: budget 0 is the committee, budget 1 is GPT-4, the oracle bounds every signal.
    let routing = &committee["routing"];
    let curves = routing["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 6);
    let oracle = curves.iter().find(|c| c["signal"] == "oracle").unwrap();
    for curve in curves {
        let points = curve["points"].as_array().unwrap();
        assert_eq!(points.len(), 21);
        close(points[0]["accuracy"].as_f64().unwrap(), lm / n as f64);
        close(points[20]["accuracy"].as_f64().unwrap(), llm / n as f64);
        for (p, o) in points.iter().zip(oracle["points"].as_array().unwrap()) {
            assert!(p["accuracy"].as_f64().unwrap() <= o["accuracy"].as_f64().unwrap() + 1e-12);
        }
    }

    // Bias: position over every pair, then the four probe biases with 60 probes each.
    let bias: Vec<(&str, u64)> = report["bias"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["bias"].as_str().unwrap(), b["probes"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        bias,
        [
            ("position", 2139),
            ("rich_content", 60),
            ("reference", 60),
            ("gender", 60),
            ("verbosity", 60)
        ]
    );
    assert!(report["bias"][0]["bias_win_rate"].is_null());

    // label-model and route on the vote file give the committee's numbers.
    let v = votes.to_str().unwrap();
    let settings = ["--rounds", "200", "--seed", "7"];
    let mut lm_args = vec!["stats", "label-model", "--votes", v];
    lm_args.extend(settings);
    let from_votes = json(&lm_args);
    assert_eq!(from_votes["label_model"], committee["label_model"]);
    assert_eq!(from_votes["majority_vote"], committee["majority_vote"]);
    assert!(from_votes["routing"].is_null());
    let mut route_args = vec!["stats", "route", "--votes", v, "--llm", &gpt4];
    route_args.extend(settings);
    assert_eq!(json(&route_args)["routing"], committee["routing"]);

    // The seed reproduces the report; another seed draws another split.
    assert_eq!(json(&args), report);
    let mut other = args.to_vec();
    other[13] = "8";
    assert_ne!(json(&other)["programs"], report["programs"]);
}

/// The staged policy through files: `--budget --escalate-out` writes the most uncertain pairs
/// as judge items; a judge run's JSON lines on them (here GPT-4's verdicts written as
/// `tribunal judge` writes winners, in both orders) come back with `--llm` and replace the
/// committee's verdict on exactly those pairs.
#[test]
fn escalated_pairs_go_out_as_judge_items_and_their_verdicts_merge_back() {
    let dir = temp_dir("programs-escalation");
    let (pairs, gpt4) = (data("pairs.csv"), data("gpt4-verdicts.csv"));
    let (items, votes, judged) = (
        dir.join("escalated.csv"),
        dir.join("votes.csv"),
        dir.join("judged.jsonl"),
    );
    let base = [
        "stats", "programs", "--pairs", &pairs, "--top-k", "4", "--seed", "7", "--rounds", "100",
        "--budget", "0.2",
    ];
    let mut first = base.to_vec();
    first.extend(["--escalate-out", items.to_str().unwrap()]);
    let report = json(&first);
    // ⌊0.2·2139 + ½⌋ = 428 pairs, none answered yet.
    assert_eq!(report["escalation"]["escalated"], 428);
    assert_eq!(report["escalation"]["answered"], 0);
    let escalated = rows(&items);
    assert_eq!(escalated.len(), 428);
    let mut keys: Vec<&str> = escalated[0].keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["id", "instruction", "response", "response_b"]);

    let gpt4_rows = rows(Path::new(&gpt4));
    let gpt4_label: HashMap<&str, &str> = gpt4_rows
        .iter()
        .map(|r| (r["id"].as_str(), r["label"].as_str()))
        .collect();
    let mut lines = String::new();
    for r in &escalated {
        let winner = match gpt4_label[r["id"].as_str()] {
            "a" => "\"A\"",
            "b" => "\"B\"",
            _ => "null",
        };
        for order in ["ab", "ba"] {
            lines.push_str(&format!(
                "{{\"id\":\"{}\",\"order\":\"{order}\",\"winner\":{winner}}}\n",
                r["id"]
            ));
        }
    }
    std::fs::write(&judged, lines).unwrap();
    let mut second = base.to_vec();
    second.extend([
        "--llm",
        judged.to_str().unwrap(),
        "--votes-out",
        votes.to_str().unwrap(),
    ]);
    let merged = json(&second);
    assert_eq!(merged["escalation"]["answered"], 428);
    let escalated_ids: std::collections::HashSet<&str> =
        escalated.iter().map(|r| r["id"].as_str()).collect();
    let (mut n, mut credit_sum) = (0usize, 0.0);
    for r in rows(&votes) {
        let q: f64 = r["posterior"].parse().unwrap();
        let committee = if q > 0.5 {
            1
        } else if q < 0.5 {
            -1
        } else {
            0
        };
        let want = if escalated_ids.contains(r["id"].as_str()) {
            assert_eq!(r["escalated"], "1");
            side(gpt4_label[r["id"].as_str()])
        } else {
            assert_eq!(r["escalated"], "0");
            committee
        };
        let verdict: i32 = r["verdict"].parse().unwrap();
        assert_eq!(verdict, want, "pair {}", r["id"]);
        let truth = side(&r["label"]);
        if r["split"] == "test" && truth != 0 {
            n += 1;
            credit_sum += credit(verdict, truth);
        }
    }
    let got = estimate(&merged["escalation"]["merged"]);
    assert!((got - credit_sum / n as f64).abs() < 1e-12, "{got}");
    // Escalating the uncertain fifth to GPT-4 beats the committee alone.
    assert!(got > estimate(&merged["committee"]["label_model"]));
}

#[test]
fn bad_pairs_verdicts_and_votes_fail_with_located_errors() {
    let dir = temp_dir("programs-bad");
    let pairs = dir.join("pairs.csv");
    std::fs::write(
        &pairs,
        "id,instruction,response,response_b,label\np1,Q,A,B,a\np2,Q,A,B,left\n",
    )
    .unwrap();
    let p = pairs.to_str().unwrap();
    let err = fails(&["stats", "programs", "--pairs", p]);
    assert!(
        err.contains(
            "line 3, column 5 (`label`): expected `a`, `b`, `tie` or an empty field, found `left`"
        ),
        "{err}"
    );
    std::fs::write(
        &pairs,
        "id,instruction,response,response_b,label\np1,Q,A,B,a\n",
    )
    .unwrap();
    let verdicts = dir.join("verdicts.csv");
    std::fs::write(&verdicts, "id,label\np9,a\n").unwrap();
    let err = fails(&[
        "stats",
        "programs",
        "--pairs",
        p,
        "--llm",
        verdicts.to_str().unwrap(),
    ]);
    assert!(
        err.contains("line 2, column 1 (`id`): expected the id of one of the pairs, found `p9`"),
        "{err}"
    );
    let votes = dir.join("votes.csv");
    std::fs::write(&votes, "id,label,relevance\np1,a,1\np2,b,yes\n").unwrap();
    let err = fails(&["stats", "label-model", "--votes", votes.to_str().unwrap()]);
    assert!(
        err.contains("line 3, column 3 (`relevance`): expected a vote -1, 0 or 1, found `yes`"),
        "{err}"
    );
}
