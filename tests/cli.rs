//! `tribunal stats` as a user runs it (the leaderboard, the judge study, the cascade, the kinds
//! whose subcommand the registry gives): JSON out, located errors and exit status 1 on bad input.

use tribunal_e2e::{judge_args, run_tribunal, stdout_json, temp_dir};

const CROWD: &str = "tests/data/llmfao/crowd-comparisons.csv";

/// choix's leaderboard of the LLMFAO crowd file (shared/tests/fixtures/bt_reference.json):
/// model names and Elo ratings.
fn choix_crowd() -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../shared/tests/fixtures/bt_reference.json")).unwrap();
    let case = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "llmfao-crowd")
        .unwrap();
    (
        case["models"].as_array().unwrap().clone(),
        case["elo"].as_array().unwrap().clone(),
    )
}

#[test]
fn bt_on_llmfao_crowd_prints_the_leaderboard_as_json() {
    let json = stdout_json(&run_tribunal(&["stats", "bt", "--input", CROWD]));
    assert_eq!(json["statistic"], "bradley_terry");
    assert_eq!(json["n_battles"], 8931);
    assert_eq!(json["n_models"], 59);
    assert_eq!(json["converged"], true);
    assert_eq!(json["settings"]["lambda"], 0.01);
    let ratings = json["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 59);
    let elo: Vec<f64> = ratings.iter().map(|r| r["elo"].as_f64().unwrap()).collect();
    assert!(elo.windows(2).all(|w| w[0] >= w[1]), "sorted by Elo");
    // Mean θ is 0 at the L2-penalised optimum, so mean Elo is 1500.
    let mean = elo.iter().sum::<f64>() / elo.len() as f64;
    assert!((mean - 1500.0).abs() < 1e-9, "{mean}");
    // Against choix (shared/tests/fixtures/bt_reference.json), top model and its rating.
    let (models, ref_elo) = choix_crowd();
    for r in ratings {
        let i = models.iter().position(|m| m == &r["model"]).unwrap();
        let diff = (r["elo"].as_f64().unwrap() - ref_elo[i].as_f64().unwrap()).abs();
        assert!(
            diff < 1e-4,
            "{}: differs from choix by {diff} Elo",
            r["model"]
        );
    }
}

#[test]
fn settings_change_the_fit_and_are_echoed() {
    let json = stdout_json(&run_tribunal(&[
        "stats", "bt", "--input", CROWD, "--lambda", "1",
    ]));
    assert_eq!(json["settings"]["lambda"], 1.0);
    let top = json["ratings"][0]["elo"].as_f64().unwrap();
    let default = stdout_json(&run_tribunal(&["stats", "bt", "--input", CROWD]));
    assert!(
        top < default["ratings"][0]["elo"].as_f64().unwrap(),
        "more shrinkage"
    );
}

#[test]
fn anchoring_fixes_one_model_and_keeps_the_differences() {
    // Anchor the choix reference's first model at 1000: every Elo is 1000 + its choix difference
    // to that model, and the anchor's own bootstrap interval collapses to the point.
    let (models, ref_elo) = choix_crowd();
    let anchor = models[0].as_str().unwrap();
    let json = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        CROWD,
        "--bootstrap",
        "50",
        "--anchor",
        &format!("{anchor}=1000"),
    ]));
    assert_eq!(json["anchor"]["model"], anchor);
    assert_eq!(json["anchor"]["elo"], 1000.0);
    for r in json["ratings"].as_array().unwrap() {
        let i = models.iter().position(|m| m == &r["model"]).unwrap();
        let expected = 1000.0 + ref_elo[i].as_f64().unwrap() - ref_elo[0].as_f64().unwrap();
        let diff = (r["elo"].as_f64().unwrap() - expected).abs();
        assert!(diff < 1e-4, "{}: off by {diff} Elo", r["model"]);
        let b = &r["bootstrap"];
        if i == 0 {
            assert_eq!(
                (b["lower"].as_f64(), b["upper"].as_f64()),
                (Some(1000.0), Some(1000.0))
            );
            assert_eq!(r["se"], 0.0);
        } else {
            assert!(b["lower"].as_f64().unwrap() < b["upper"].as_f64().unwrap());
        }
    }

    let out = run_tribunal(&["stats", "bt", "--input", CROWD, "--anchor", "nobody=1000"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no model `nobody` to anchor"));
    let out = run_tribunal(&["stats", "bt", "--input", CROWD, "--anchor", "1000"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected MODEL=ELO, found `1000`"));
}

#[test]
fn malformed_input_is_located_and_fails() {
    let dir = temp_dir("cli-bad");
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "left,right,winner\nA,B,left\nA,B,maybe\n").unwrap();
    let out = run_tribunal(&["stats", "bt", "--input", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv, line 3, column 3 (`winner`): expected `left`, `right` or `tie`, found `maybe`"),
        "{err}"
    );

    let out = run_tribunal(&["stats", "bt", "--input", "no/such/file.csv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reading no/such/file.csv"));

    let out = run_tribunal(&["stats", "bt", "--input", CROWD, "--lambda", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid setting `lambda`"));
}

const GPT4: &str = "tests/data/llmfao/gpt4-crowd-comparisons.csv";

#[test]
fn soft_elo_on_llmfao_compares_gpt4_with_the_crowd() {
    let json = stdout_json(&run_tribunal(&[
        "stats", "soft-elo", "--human", CROWD, "--judge", GPT4, "--key", "id",
    ]));
    // Every crowd vote's pair has a GPT-4 verdict.
    assert_eq!(json["n_battles"], 8931);
    assert_eq!(json["join"]["unmatched_human_battles"], 0);
    // The agreement line is computed from the two printed leaderboards.
    let elo = |board: &serde_json::Value| -> std::collections::HashMap<String, f64> {
        board["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["model"].as_str().unwrap().to_owned(),
                    r["elo"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let (human, judge) = (elo(&json["human"]), elo(&json["judge"]));
    let mae = human.iter().map(|(m, h)| (judge[m] - h).abs()).sum::<f64>() / human.len() as f64;
    assert!((json["agreement"]["mae"].as_f64().unwrap() - mae).abs() < 1e-9);
    // The human leaderboard is `stats bt` on the crowd file.
    let bt = stdout_json(&run_tribunal(&[
        "stats",
        "bt",
        "--input",
        CROWD,
        "--bootstrap",
        "0",
    ]));
    for r in bt["ratings"].as_array().unwrap() {
        let model = r["model"].as_str().unwrap();
        assert!(
            (human[model] - r["elo"].as_f64().unwrap()).abs() < 1e-9,
            "{model}"
        );
    }
    // Verdicts only: hard and label smoothing are held out, soft is explained away.
    let runs = json["held_out"]["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["hard", "label_smoothing(c=0.75)"]);
    assert!(json["notes"][0].as_str().unwrap().contains("verdicts only"));
    assert!(json["beta"].is_null());
    // Seed 002's finding on this data too: smoothing shrinks the judge's stretched ruler.
    assert!(runs[1]["mae"].as_f64().unwrap() < runs[0]["mae"].as_f64().unwrap());
}

#[test]
fn conformal_intervals_echo_settings_and_refuse_small_pools() {
    let json = stdout_json(&run_tribunal(&[
        "stats",
        "conformal",
        "--human",
        CROWD,
        "--judge",
        GPT4,
        "--key",
        "id",
        "--alpha",
        "0.2",
        "--splits",
        "50",
        "--seed",
        "3",
    ]));
    assert_eq!(json["settings"]["conformal"]["alpha"], 0.2);
    assert_eq!(json["settings"]["seed"], 3);
    assert_eq!(json["n_models"], 59);
    for run in json["runs"].as_array().unwrap() {
        let c = &run["conformal"];
        assert_eq!(c["evaluation"]["per_split"].as_array().unwrap().len(), 50);
        for i in c["intervals"].as_array().unwrap() {
            let (lo, hi, h) = (
                i["interval"]["lower"].as_f64().unwrap(),
                i["interval"]["upper"].as_f64().unwrap(),
                i["human_elo"].as_f64().unwrap(),
            );
            assert_eq!(i["covered"], lo <= h && h <= hi);
        }
    }
    // The same seed gives the same splits.
    let again = stdout_json(&run_tribunal(&[
        "stats",
        "conformal",
        "--human",
        CROWD,
        "--judge",
        GPT4,
        "--key",
        "id",
        "--alpha",
        "0.2",
        "--splits",
        "50",
        "--seed",
        "3",
    ]));
    assert_eq!(json, again);
    // 9 models cannot calibrate α = 0.05 (that needs 19): no intervals, and a note says why.
    let small = stdout_json(&run_tribunal(&[
        "stats",
        "conformal",
        "--input",
        "shared/tests/fixtures/scored-arena.csv",
        "--alpha",
        "0.05",
    ]));
    assert!(small["runs"][0]["conformal"].is_null());
    assert!(small["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .contains("at least 19 calibration models")));
}

#[test]
fn study_input_errors_are_located() {
    let dir = temp_dir("cli-study-bad");
    let bad = dir.join("scored.csv");
    std::fs::write(
        &bad,
        "model_a,model_b,score,human\nA,B,0.5,model_a\nA,C,NaN,model_b\n",
    )
    .unwrap();
    let out = run_tribunal(&["stats", "soft-elo", "--input", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("scored.csv, line 3, column 3 (`score`)"),
        "{err}"
    );
    let out = run_tribunal(&[
        "stats", "soft-elo", "--human", CROWD, "--judge", GPT4, "--key", "nope",
    ]);
    assert_eq!(out.status.code(), Some(1));
    // A wrong key column names the columns the file has.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "header has no `nope` column: the file's columns are \
             `id,prompt,model_x,model_y,worker,winner,left,right`"
        ),
        "{err}"
    );
}

#[test]
fn negative_numbers_are_read_as_values_and_checked_as_settings() {
    // `--lambda -1` as users type it reaches the settings check (exit 1), not clap's
    // "unexpected argument" (exit 2).
    let scored = "shared/tests/fixtures/scored-arena.csv";
    for args in [
        ["stats", "bt", "--input", CROWD, "--lambda", "-1"],
        ["stats", "soft-elo", "--input", scored, "--lambda", "-1"],
    ] {
        let out = run_tribunal(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("invalid setting `lambda`"), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

/// `tribunal stats cascade` as a user runs it: the flags come from the settings struct (the
/// spec records the same values), the items left to humans are written where asked and equal
/// the report's list, every warning is on stderr too, `stats run` on the recorded spec prints
/// the same report, and a malformed row is located.
#[test]
fn cascade_writes_the_items_left_to_humans_and_reruns_from_its_spec() {
    let dir = temp_dir("cli-cascade");
    let to_humans = dir.join("to-humans.csv");
    let input = "tests/fixtures/cascade-sim.csv";
    let out = run_tribunal(&[
        "stats",
        "cascade",
        "--input",
        input,
        "--tier",
        "small",
        "--tier",
        "medium",
        "--tier",
        "large",
        "--alpha",
        "0.15",
        "--to-humans-out",
        to_humans.to_str().unwrap(),
    ]);
    let mut report = stdout_json(&out);
    assert_eq!(report["analysis"], "cascade");
    assert_eq!(
        report["settings"]["tiers"],
        serde_json::json!(["small", "medium", "large"])
    );
    let written = std::fs::read_to_string(&to_humans).unwrap();
    let listed: Vec<&str> = report["unlabelled"]["to_humans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(written, format!("item\n{}\n", listed.join("\n")));
    assert_eq!(listed.len(), 52);
    // The `large` tier keeps nothing here: said on stderr as in the report.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("tier `large` keeps no item"), "{stderr}");

    let record = report.as_object_mut().unwrap().remove("record").unwrap();
    // The record's settings are the flags as typed with their values (given or default),
    // derived from the settings struct; not clap's argument groups (named after the structs).
    let settings = record["settings"].as_object().unwrap();
    assert_eq!(settings["alpha"], "0.15");
    assert_eq!(settings["item_column"], "item");
    assert!(
        settings
            .keys()
            .all(|k| k.chars().all(|c| !c.is_uppercase())),
        "{settings:?}"
    );
    let spec = dir.join("spec.json");
    std::fs::write(&spec, record["spec"].to_string()).unwrap();
    let rerun = run_tribunal(&[
        "stats",
        "run",
        spec.to_str().unwrap(),
        "--input",
        &format!("judgments={input}"),
    ]);
    let mut again = stdout_json(&rerun);
    again.as_object_mut().unwrap().remove("record");
    assert_eq!(again, report);

    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "item,judge,verdict,confidence,human\n1,a,A,0.9,A\n1,a,B,0.5,A\n",
    )
    .unwrap();
    let out = run_tribunal(&["stats", "cascade", "--input", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv, line 3, column 2 (`judge`)") && err.contains("on line 2 already"),
        "{err}"
    );
}

/// A cascade's settings are checked before any judge is asked: a threshold outside [0, 1], and
/// two judges with one model name (the cascade's file names each judge by it).
#[test]
fn a_judge_cascade_with_bad_settings_is_refused_before_judging() {
    let dir = temp_dir("cli-escalate");
    let items = dir.join("items.csv");
    std::fs::write(&items, "id,instruction,response\n1,Say hi,hi\n").unwrap();
    let run = |escalate: &str| {
        let config = dir.join("judge.toml");
        std::fs::write(
            &config,
            format!(
                "[prompt]\nkind = \"absolute\"\nmin_score = 1\nmax_score = 5\nrubric = \"Helpful?\"\n\
                 [backend]\nkind = \"openai\"\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n\
                 {escalate}"
            ),
        )
        .unwrap();
        let out = dir.join("out.jsonl");
        let data = dir.join("data");
        let output = run_tribunal(&judge_args(&config, &items, &out, &data));
        assert!(!output.status.success());
        assert!(!out.exists());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let same = run("[escalate]\nthreshold = 0.8\n[[escalate.tiers]]\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nthreshold = 0.7\n");
    assert!(
        same.contains("judge.toml") && same.contains("tier 2") && same.contains("`m`"),
        "{same}"
    );
    let out_of_range = run("[escalate]\nthreshold = 1.5\n[[escalate.tiers]]\nurl = \"http://127.0.0.1:9/v1\"\nmodel = \"n\"\nthreshold = 0.7\n");
    assert!(
        out_of_range.contains("tier 1") && out_of_range.contains("[0, 1]"),
        "{out_of_range}"
    );
}

#[test]
fn transitivity_reads_within_prompts_says_what_it_cannot_measure_and_locates_bad_input() {
    // GPT-3.5's verdicts within LLMFAO's prompts: 80 of 418 triads cyclic (networkx's census,
    // shared/tests/fixtures/transitivity_reference.json), read in one sentence.
    let gpt3 = "tests/data/llmfao/gpt3-crowd-comparisons.csv";
    let out = run_tribunal(&[
        "stats",
        "transitivity",
        "--input",
        gpt3,
        "--group",
        "prompt",
        "--bootstrap",
        "50",
        "--seed",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = stdout_json(&out);
    assert_eq!(report["analysis"], "transitivity");
    assert_eq!(
        (report["triads"].as_u64(), report["cyclic"].as_u64()),
        (Some(418), Some(80))
    );
    assert_eq!(report["groups"], 13);
    assert_eq!(report["interval"]["valid_rounds"], 50);
    assert_eq!(report["record"]["settings"]["group"], "prompt");
    assert_eq!(report["record"]["spec"]["bootstrap"]["seed"], 4);

    // Two models only: no triad, so no share — said in the JSON and on stderr, exit 0.
    let dir = temp_dir("cli-transitivity");
    let two = dir.join("two.csv");
    std::fs::write(
        &two,
        "model_a,model_b,winner,prompt\nA,B,model_a,1\nB,A,model_a,2\n",
    )
    .unwrap();
    let out = run_tribunal(&["stats", "transitivity", "--input", two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let report = stdout_json(&out);
    assert!(report["cyclic_share"].is_null() && report["interval"].is_null());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the cyclic share is not identified"),
        "{stderr}"
    );

    // A grouping column the file lacks, and an empty group value: located.
    let failed = |group: &str| {
        let args = [
            "stats",
            "transitivity",
            "--input",
            two.to_str().unwrap(),
            "--group",
            group,
        ];
        let out = run_tribunal(&args);
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = failed("topic");
    assert!(
        stderr.contains("two.csv, line 1") && stderr.contains("no `topic` column"),
        "{stderr}"
    );
    let empty = "model_a,model_b,winner,prompt\nA,B,model_a,1\nB,A,model_a,\n";
    std::fs::write(&two, empty).unwrap();
    let stderr = failed("prompt");
    assert!(
        stderr.contains("two.csv, line 3, column 4 (`prompt`)"),
        "{stderr}"
    );
}

/// A kind the registry gives its own subcommand (`Kind::cli`; no module in
/// `worker/src/stats/`, as `transitivity`): `tribunal stats --help` lists it, it runs its
/// example settings on its example inputs (`--input FILE` naming the one role of a kind of one
/// file, `--input ROLE=FILE` otherwise), records its spec and settings, prints what `tribunal
/// stats run` prints on that spec, and refuses a role it does not read (exit 1, naming it) and an
/// option it does not have (clap's usage error, exit 2).
#[test]
fn a_kind_the_registry_gives_a_subcommand_runs_as_the_spec_runs() {
    use tribunal::analysis::Analysis;
    let help = String::from_utf8(run_tribunal(&["stats", "--help"]).stdout).unwrap();
    let given: Vec<Analysis> = Analysis::each_kind()
        .into_iter()
        .filter(|a| Analysis::cli_of(a.name()).is_some())
        .collect();
    assert!(
        given.iter().any(|a| a.name() == "transitivity"),
        "transitivity gives its options"
    );
    let dir = temp_dir("cli-kind-commands");
    for analysis in given {
        let name = analysis.name().replace('_', "-");
        // Listed with the kind's own line, not its params' doc.
        let about = Analysis::cli_of(analysis.name()).unwrap().about;
        let listed = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")));
        assert!(
            listed.is_some_and(|l| l.contains(&about[..30])),
            "{name} not in\n{help}"
        );
        let inputs: Vec<String> = analysis
            .example_inputs()
            .iter()
            .map(|(role, path)| format!("{role}={path}"))
            .collect();
        assert!(!inputs.is_empty(), "{name}: no example inputs");
        let mut args = vec!["stats".to_owned(), name.clone()];
        for ((_, path), input) in analysis.example_inputs().iter().zip(&inputs) {
            args.push("--input".to_owned());
            args.push(match analysis.roles().iter().count() {
                1 => (*path).to_owned(),
                _ => input.clone(),
            });
        }
        let line: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut printed = stdout_json(&run_tribunal(&line));
        let record = printed.as_object_mut().unwrap().remove("record").unwrap();
        assert_eq!(record["command"], format!("stats {name}"));
        let mut spec = record["spec"].clone();
        spec.as_object_mut().unwrap().remove("inputs");
        spec.as_object_mut().unwrap().remove("version");
        assert_eq!(spec, serde_json::to_value(&analysis).unwrap(), "{name}");
        let saved = dir.join(format!("{name}.json"));
        std::fs::write(&saved, record.to_string()).unwrap();
        let mut rerun_args = vec!["stats", "run", saved.to_str().unwrap()];
        for input in &inputs {
            rerun_args.extend(["--input", input]);
        }
        let mut rerun = stdout_json(&run_tribunal(&rerun_args));
        rerun.as_object_mut().unwrap().remove("record");
        assert_eq!(rerun, printed, "{name}");

        let unknown = format!("no_such_role={}", analysis.example_inputs()[0].1);
        let mut with_unknown = line.clone();
        with_unknown.extend(["--input", &unknown]);
        let out = run_tribunal(&with_unknown);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("unknown role `no_such_role`"), "{stderr}");
        let mut with_option = line.clone();
        with_option.push("--no-such-option");
        let out = run_tribunal(&with_option);
        assert_eq!(out.status.code(), Some(2), "{name}: clap's usage error");
    }
}
