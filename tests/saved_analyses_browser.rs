//! Analyses of several kinds saved from their pages and opened by link (driver:
//! `tests/browser/saved_analyses.mjs`): a judge study (LLMFAO crowd vs GPT-4), an agreement
//! report, an IRT table (a judge under prompt variants, with human ratings), a
//! self-consistency check, an LS calibration whose embeddings come in `.npy` files (binary
//! datasets of the session) and a programs report with a JavaScript program of the user's own
//! (its sandbox scores saved as a dataset), each saved to a session from its page's "Save to
//! session" button, then opened by the analysis URL in a second browser context without the
//! owner token. The report the visitor's browser recomputes equals `tribunal stats run` on the
//! spec and the datasets downloaded from the session (every number to 1e-9 — the IRT fit's
//! parameters to 1e-8, see below — every other value exactly), and the visitor cannot write to
//! the session.
//!
//! The analyses that have no page of their own (an A/A test, a position-bias check, a single
//! IRT report, the conformal part of a judge study, a power table, a label model, routing,
//! prediction-powered win rates and leaderboard) are
//! made by the CLI; their files are uploaded as datasets of the session, and the owner saves
//! each from the session page's "New analysis" form — the kind, the CLI spec's settings as
//! text, a dataset per role — before a visitor opens them the same way (driver:
//! `tests/browser/open_analyses.mjs`); axe-core audits each of these views at 1200 and 390 px
//! (no violation, chart text ≥ 11 px on the phone). Between them the two tests save and reopen
//! every kind of the registry (`Analysis::NAMES`): a kind neither runs fails the second by name.

use serde_json::Value;
use std::collections::BTreeSet;
use tribunal::analysis::{Analysis, Inputs, Spec};
use tribunal_e2e::{
    api_worker, app_worker, assert_same, create_session, exported_and_imported, http,
    ls_files_with_npy, miscalibrated_ls_files, root, run_browser_driver, run_tribunal, stdout_json,
    temp_dir, without_names,
};

/// The kinds the first test saves from their pages; the second saves every other from the
/// session page's form, and checks that the two cover every kind of the registry.
const SAVED_FROM_PAGES: [&str; 6] = [
    "judge_study",
    "agreement",
    "irt_table",
    "consistency",
    "calibration",
    "programs",
];

#[test]
fn saved_analyses_of_every_page_reopen_with_the_clis_numbers() {
    let worker = app_worker("saved-analyses-browser");
    let dir = temp_dir("saved-analyses-browser");
    let repeats = dir.join("repeats.csv");
    std::fs::write(
        &repeats,
        "item,criterion,variant,score\nq1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,0\n\
         q2,coverage,r1,0\nq2,coverage,r2,1\nq2,coverage,r3,0\nq3,coverage,r1,1\n\
         q3,coverage,r2,1\nq3,coverage,r3,1\n",
    )
    .unwrap();
    let (train, test) = miscalibrated_ls_files(&dir);
    let [train_scores, test_scores, train_npy, test_npy] = ls_files_with_npy(&dir, &train, &test);
    let data = |name: &str| root().join(name);
    let page = run_browser_driver(
        "saved_analyses.mjs",
        [
            worker.url.as_str().as_ref(),
            data("tests/data/llmfao/crowd-comparisons.csv").as_os_str(),
            data("tests/data/llmfao/gpt4-crowd-comparisons.csv").as_os_str(),
            data("tests/fixtures/small-ratings.csv").as_os_str(),
            repeats.as_os_str(),
            train_scores.as_os_str(),
            test_scores.as_os_str(),
            train_npy.as_os_str(),
            test_npy.as_os_str(),
            data("tests/fixtures/small-irt-judge.csv").as_os_str(),
            data("tests/fixtures/small-irt-human.csv").as_os_str(),
            data("tests/data/llmfao/pairs.csv").as_os_str(),
        ],
    );
    assert_eq!(page["kinds"], serde_json::json!(SAVED_FROM_PAGES));
    assert_eq!(page["visitorWrite"], 403);

    let session_url = page["sessionUrl"].as_str().unwrap();
    let id = session_url.rsplit('/').next().unwrap();
    let session = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &[],
        b"",
    )
    .json();
    for (name, url_key) in [
        ("study", "studyUrl"),
        ("agreement", "agreementUrl"),
        ("irt", "irtUrl"),
        ("consistency", "consistencyUrl"),
        ("calibration", "calibrationUrl"),
        ("programs", "programsUrl"),
    ] {
        let analysis_id = page[url_key].as_str().unwrap().rsplit('/').next().unwrap();
        let saved = session["analyses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == analysis_id)
            .unwrap_or_else(|| panic!("{name}: not in the session"));
        let cli = rerun_with_the_cli(&worker, id, saved, &dir, name);
        let visitor = &page["reports"][name];
        assert!(visitor["error"].is_null(), "{name}: {}", visitor["error"]);
        // The GRM's EM stops at its tolerance after many rounds of exp and ln, whose last bits
        // differ between the browser's math library and the system's: its fitted parameters
        // agree to 1e-8 (its reported C_V, ρ, θ_ratio and D_W to 1e-9, reliability_browser.rs);
        // every other analysis to 1e-9.
        let tol = if name == "irt" { 1e-8 } else { 1e-9 };
        assert_same(visitor, &cli, tol, name);
    }
    // The user's program sits among the programs.
    assert!(page["reports"]["programs"]["programs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "length_ratio"));
    // The study joined the judge with the crowd on the shared `id`s.
    assert!(page["reports"]["study"]["join"]["matched_human_battles"].as_u64() > Some(0));

    // Exported and imported on a second worker: the same analyses.
    let second = api_worker("saved-analyses-import", &[]);
    let (_, copy_id) = exported_and_imported(&worker, id, &second);
    let copy = http(
        second.authority(),
        "GET",
        &format!("/api/sessions/{copy_id}"),
        &[],
        b"",
    )
    .json();
    assert_eq!(copy["analyses"], session["analyses"]);
    assert_eq!(copy["analyses"].as_array().map(Vec::len), Some(6));
}

/// `tribunal stats run` on analysis `saved` of session `id` as the session serves it: its spec
/// and each of its datasets downloaded into `dir` (files named after `name`); the report less
/// its `record`.
fn rerun_with_the_cli(
    worker: &tribunal_e2e::Worker,
    id: &str,
    saved: &Value,
    dir: &std::path::Path,
    name: &str,
) -> Value {
    let spec_path = dir.join(format!("{name}.json"));
    std::fs::write(&spec_path, saved.to_string()).unwrap();
    let mut args = vec![
        "stats".to_owned(),
        "run".to_owned(),
        spec_path.to_str().unwrap().to_owned(),
    ];
    for (role, input) in saved["spec"]["inputs"].as_object().unwrap() {
        let hash = input["hash"].as_str().unwrap();
        let body = http(
            worker.authority(),
            "GET",
            &format!("/api/sessions/{id}/datasets/{hash}"),
            &[],
            b"",
        )
        .body;
        let path = dir.join(format!("{name}-{role}.download"));
        std::fs::write(&path, body).unwrap();
        args.extend(["--input".to_owned(), format!("{role}={}", path.display())]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cli = stdout_json(&run_tribunal(&args));
    cli.as_object_mut().unwrap().remove("record");
    cli
}

/// `tribunal stats …` with `args` (run in the repository root): its report, and what the
/// session page's form needs to save its spec in session `id` — its title, its settings (the
/// spec without its version and inputs) and role → dataset hash — with every file it read
/// uploaded as a dataset of the kind its role reads.
fn uploaded_for_the_cli(
    worker: &tribunal_e2e::Worker,
    id: &str,
    token: &str,
    args: &[&str],
) -> (Value, Value) {
    let mut cli = stdout_json(&run_tribunal(args));
    let spec = cli.as_object_mut().unwrap().remove("record").unwrap()["spec"].clone();
    let typed: Spec = serde_json::from_value(spec).unwrap();
    let auth = format!("Authorization: Bearer {token}");
    let mut inputs = serde_json::Map::new();
    for (role, input) in &typed.inputs {
        let path = root().join(&input.name);
        let file = path.file_name().unwrap().to_str().unwrap();
        let kind = typed.analysis.roles().kind_of(role).unwrap().as_str();
        let stored = http(
            worker.authority(),
            "POST",
            &format!("/api/sessions/{id}/datasets?kind={kind}&name={file}"),
            &[&auth],
            &std::fs::read(&path).unwrap(),
        );
        assert_eq!(
            stored.status,
            201,
            "{}: {}",
            args[1],
            String::from_utf8_lossy(&stored.body)
        );
        assert_eq!(stored.json()["hash"], input.hash.as_str());
        inputs.insert(role.clone(), input.hash.clone().into());
    }
    let entry = serde_json::json!({
        "title": typed.analysis.name(),
        "analysis": typed.analysis,
        "inputs": inputs,
    });
    (cli, entry)
}

/// `tribunal stats run SPEC --input ROLE=FILE …` for each kind of the registry that `listed`
/// does not name: the spec of its example settings on its example inputs, written to `dir`.
fn example_commands(dir: &std::path::Path, listed: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    Analysis::each_kind()
        .into_iter()
        .filter(|analysis| !listed(analysis.name()))
        .map(|analysis| {
            let name = analysis.name();
            let pairs = analysis.example_inputs();
            assert!(
                !pairs.is_empty(),
                "{name}: no command line in this test and no example inputs"
            );
            let mut inputs = Inputs::new();
            for &(role, path) in pairs {
                inputs.insert(role, path, std::fs::read(root().join(path)).unwrap());
            }
            let spec = dir.join(format!("{name}.json"));
            let text = serde_json::to_string(&Spec::new(analysis.clone(), &inputs)).unwrap();
            std::fs::write(&spec, text).unwrap();
            let mut args = vec!["stats".to_owned(), "run".to_owned()];
            args.push(spec.to_str().unwrap().to_owned());
            for (role, path) in pairs {
                args.extend(["--input".to_owned(), format!("{role}={path}")]);
            }
            args
        })
        .collect()
}

#[test]
fn every_kind_saved_from_the_session_page_reopens_in_a_visitors_browser_with_the_clis_numbers() {
    let worker = app_worker("api-analyses-browser");
    let dir = temp_dir("api-analyses-browser");
    let (id, token) = create_session(&worker, "analyses of every kind");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let runs = "tests/fixtures/aa-runs.csv";
    let orders = write(
        "orders.csv",
        "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\np3,ab,tie\n\
         p3,ba,right\np4,ab,right\np4,ba,left\np5,ab,left\np5,ba,right\n",
    );
    // The committee's votes on the LLMFAO pairs, as `tribunal stats programs` writes them.
    let votes = dir.join("votes.csv");
    let votes = votes.to_str().unwrap();
    stdout_json(&run_tribunal(&[
        "stats",
        "programs",
        "--pairs",
        "tests/data/llmfao/pairs.csv",
        "--rounds",
        "20",
        "--votes-out",
        votes,
    ]));
    let llm = "tests/data/llmfao/gpt4-verdicts.csv";
    let commands: Vec<Vec<&str>> = vec![
        // The two kinds whose runs the page splits across its workers: a leaderboard's
        // bootstrap rounds (clustered by prompt) and a calibration's folds (after an ablation,
        // with a training-size curve).
        vec![
            "stats",
            "leaderboard",
            "--input",
            "tests/data/llmfao/crowd-comparisons.csv",
            "--bootstrap",
            "60",
            "--seed",
            "3",
            "--cluster",
            "prompt",
        ],
        vec![
            "stats",
            "calibration",
            "--head",
            "btl",
            "--train",
            "tests/data/llmfao/calibration-train.csv",
            "--test",
            "tests/data/llmfao/calibration-test.csv",
            "--train-embeddings",
            "tests/data/llmfao/calibration-train.npy",
            "--test-embeddings",
            "tests/data/llmfao/calibration-test.npy",
            "--ablation",
            "drop:0.5",
            "--train-sizes",
            "100,200",
            "--repeats",
            "2",
            "--bootstrap",
            "100",
        ],
        vec![
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
        vec!["stats", "position", "--input", &orders, "--bootstrap", "50"],
        vec![
            "stats",
            "irt",
            "--input",
            "tests/fixtures/small-irt-judge.csv",
            "--human",
            "tests/fixtures/small-irt-human.csv",
        ],
        vec![
            "stats",
            "conformal",
            "--human",
            "tests/data/llmfao/crowd-comparisons.csv",
            "--judge",
            "tests/data/llmfao/gpt4-crowd-comparisons.csv",
            "--key",
            "id",
            "--splits",
            "20",
            "--alpha",
            "0.2",
        ],
        vec![
            "stats", "power", "--p1", "0.6", "--p2", "0.5,0.55", "--power", "0.8,0.9",
        ],
        vec![
            "stats",
            "label-model",
            "--votes",
            votes,
            "--rounds",
            "50",
            "--seed",
            "7",
        ],
        vec![
            "stats", "route", "--votes", votes, "--llm", llm, "--rounds", "50", "--seed", "7",
        ],
        vec![
            "stats",
            "ppi",
            "--input",
            "tests/fixtures/ppi-llmfao-ten-models.csv",
            "--alpha",
            "0.1",
            "--target-width",
            "0.3",
            "--plan-labels",
            "30",
        ],
        vec![
            "stats",
            "judge-value",
            "--input",
            "tests/fixtures/ppi-llmfao-battles.csv",
        ],
        vec![
            "stats",
            "style",
            "--input",
            "tests/data/llmfao/crowd-comparisons.csv",
            "--answers",
            "tests/data/llmfao/pairs.csv",
            "--bootstrap",
            "20",
            "--seed",
            "1",
        ],
        vec![
            "stats",
            "self-preference",
            "--human",
            "tests/data/llmfao/crowd-comparisons.csv",
            "--judge",
            "tests/data/llmfao/gpt4-crowd-comparisons.csv",
            "--key",
            "id",
            "--family",
            "GPT 4,GPT 3.5 Turbo,GPT 3.5 Turbo (16k)",
        ],
        vec![
            "stats",
            "lc",
            "--input",
            "tests/fixtures/lc-alpaca-eval.csv",
        ],
        vec![
            "stats",
            "compare",
            "--input",
            "tests/fixtures/compare-alpaca-eval.csv",
            "--cluster-column",
            "dataset",
            "--slice",
            "dataset",
            "--length",
            "length",
            "--bootstrap-rounds",
            "50",
            "--seed",
            "2",
        ],
        vec![
            "stats",
            "cascade",
            "--input",
            "tests/fixtures/cascade-sim.csv",
            "--tier",
            "small",
            "--tier",
            "medium",
            "--tier",
            "large",
        ],
        vec![
            "stats",
            "transitivity",
            "--input",
            "tests/data/llmfao/gpt3-crowd-comparisons.csv",
            "--group",
            "prompt",
            "--bootstrap",
            "100",
            "--seed",
            "4",
        ],
    ];
    // A kind with no command line above runs on its example inputs (`Kind::example_inputs`):
    // `tribunal stats run` on the spec of its example settings.
    let (mut clis, mut entries): (Vec<Value>, Vec<Value>) = commands
        .iter()
        .map(|args| uploaded_for_the_cli(&worker, &id, &token, args))
        .unzip();
    let listed = clis.len();
    let examples = example_commands(&dir, |name| {
        SAVED_FROM_PAGES.contains(&name) || clis.iter().any(|cli| cli["analysis"] == name)
    });
    for args in &examples {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (cli, entry) = uploaded_for_the_cli(&worker, &id, &token, &args);
        clis.push(cli);
        entries.push(entry);
    }
    let specs = dir.join("specs.json");
    std::fs::write(&specs, Value::from(entries.clone()).to_string()).unwrap();
    let owner_url = format!("{}s/{id}#owner={token}", worker.url);
    let page = run_browser_driver(
        "open_analyses.mjs",
        [owner_url.as_str().as_ref(), specs.as_os_str()],
    );
    let kinds: Vec<&str> = page["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[..listed],
        [
            "leaderboard",
            "calibration",
            "aa",
            "position",
            "irt",
            "conformal",
            "power",
            "label_model",
            "routing",
            "ppi",
            "judge_value",
            "style",
            "self_preference",
            "length_control",
            "compare",
            "cascade",
            "transitivity"
        ]
    );
    for (kind, args) in kinds[listed..].iter().zip(&examples) {
        assert!(
            args[2].ends_with(&format!("{kind}.json")),
            "{kind}: {args:?}"
        );
    }
    // A kind of the registry that neither test saves and reopens fails here, by name: its
    // command line belongs in `commands` above.
    let covered: BTreeSet<&str> = kinds.iter().chain(&SAVED_FROM_PAGES).copied().collect();
    let missing: Vec<&&str> = Analysis::NAMES
        .iter()
        .filter(|name| !covered.contains(**name))
        .collect();
    assert!(missing.is_empty(), "no browser test of {missing:?}");
    let session = |w: &tribunal_e2e::Worker, id: &str| {
        http(
            w.authority(),
            "GET",
            &format!("/api/sessions/{id}"),
            &[],
            b"",
        )
        .json()
    };
    let original = session(&worker, &id);
    for (k, ((visitor, entry), kind)) in page["reports"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&entries)
        .zip(kinds)
        .enumerate()
    {
        assert!(visitor["error"].is_null(), "{kind}: {}", visitor["error"]);
        assert_eq!(visitor["report"]["analysis"], kind);
        // The page shows the report, not only its JSON (the position check is a paragraph).
        if kind != "position" {
            assert!(visitor["rows"].as_u64() > Some(0), "{kind}: no table rows");
        }
        // The prediction-powered leaderboard is drawn (its three intervals per model), and the
        // label budget (width against human labels).
        if kind == "ppi" {
            assert_eq!(
                visitor["charts"], 2,
                "{kind}: the forest plot and the budget"
            );
            // The label plan: its 20 most useful battles listed, and the file to send to the
            // annotators offered as the report has it.
            assert_eq!(visitor["planRows"], 20);
            assert_eq!(visitor["planCsv"], visitor["report"]["plan"]["csv"]);
            assert!(visitor["report"]["plan"]["selected"].as_u64() > Some(0));
        }
        // Style control draws both leaderboards (the interval band and the raw Elo)
        // and the ranks' slopes; its bootstrap ran in the visitor's browser as in the CLI.
        if kind == "style" {
            assert_eq!(
                visitor["charts"], 2,
                "{kind}: the forest plot and the slopes"
            );
            assert_eq!(visitor["report"]["bootstrap_valid_rounds"], 20);
        }
        // Every report fits a 390 px phone without scrolling sideways (wide tables scroll
        // inside their card, charts are laid out for the width).
        assert!(
            visitor["phoneWidth"].as_u64() <= Some(390),
            "{kind}: {} px wide at 390 px",
            visitor["phoneWidth"]
        );
        // axe-core finds nothing on the view at 1200 or at 390 px, and its charts' text is
        // 11 px or more on the phone.
        for audit in [&visitor["axe"], &visitor["phoneAxe"]] {
            let violations = audit["violations"].as_array().unwrap();
            assert!(violations.is_empty(), "{kind}: {violations:?}");
            for chart in audit["charts"].as_array().unwrap() {
                let smallest = chart["smallestText"].as_f64().unwrap_or(f64::INFINITY);
                assert!(smallest >= 11.0, "{kind}: {smallest:.1} px chart text");
            }
        }
        // A calibration shows the ablation it was fitted after and its training-size curve,
        // one row per size.
        if kind == "calibration" {
            assert_eq!(
                visitor["ablation"].as_str(),
                Some("Ablation: 50 % of the embedding's coordinates dropped at random (seed 0), in both files.")
            );
            assert_eq!(visitor["curveRows"], 2);
            assert_eq!(
                visitor["report"]["training_curve"]["points"][1]["size"],
                200
            );
        }
        // Self-preference draws the family's shares as bars.
        if ["self_preference", "length_control", "transitivity"].contains(&kind) {
            assert_eq!(visitor["charts"], 1, "{kind}: the share bars");
        }
        // The form saved the CLI's settings and files exactly.
        let analysis_id = page["urls"][k]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap();
        let saved = original["analyses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == analysis_id)
            .unwrap_or_else(|| panic!("{kind}: not in the session"));
        let mut settings = saved["spec"].clone();
        let inputs = settings.as_object_mut().unwrap().remove("inputs").unwrap();
        settings.as_object_mut().unwrap().remove("version");
        assert_eq!(settings, entry["analysis"], "{kind}: settings");
        for (role, hash) in entry["inputs"].as_object().unwrap() {
            assert_eq!(&inputs[role]["hash"], hash, "{kind}: {role}");
        }
        assert_eq!(
            inputs.as_object().unwrap().len(),
            entry["inputs"].as_object().unwrap().len()
        );
        // What the visitor's browser recomputed equals `tribunal stats run` on the saved spec and
        // the downloaded datasets, and — file names aside — the report the CLI first printed.
        let rerun = rerun_with_the_cli(&worker, &id, saved, &dir, kind);
        // The browser's `exp` is not the native one: fits that stop on a flat loss (IRT's
        // quadrature; a PPI bootstrap round near separation, where a 1e-13 gradient still
        // leaves θ free in its 8th digit; a BTL head's cross-validation fits, stopped at their
        // gradient tolerance) agree to fewer digits.
        let tol = match kind {
            "irt" => 1e-8,
            "ppi" | "calibration" => 1e-7,
            _ => 1e-9,
        };
        assert_same(&visitor["report"], &rerun, tol, kind);
        assert_same(
            &without_names(&rerun),
            &without_names(&clis[k]),
            1e-12,
            kind,
        );
    }

    // Exported and imported on a second worker: the same analyses, their datasets byte for byte.
    let second = api_worker("api-analyses-import", &[]);
    let (_, copy_id) = exported_and_imported(&worker, &id, &second);
    let copy = session(&second, &copy_id);
    assert_eq!(copy["analyses"], original["analyses"]);
    assert_eq!(
        copy["analyses"].as_array().map(Vec::len),
        Some(entries.len())
    );
    for dataset in original["datasets"].as_array().unwrap() {
        let path = |id: &str| {
            format!(
                "/api/sessions/{id}/datasets/{}",
                dataset["hash"].as_str().unwrap()
            )
        };
        assert_eq!(
            http(second.authority(), "GET", &path(&copy_id), &[], b"").body,
            http(worker.authority(), "GET", &path(&id), &[], b"").body
        );
    }
}

/// Other tools' files straight into the Compare page: two AlpacaEval annotation files (a model
/// each) picked at once are converted on the device, joined on the instruction, and compared on
/// the three instructions both have — the same join the CLI's `--input a --input b` makes.
#[test]
fn tools_files_are_compared_on_the_compare_page() {
    let worker = app_worker("compare-tools-browser");
    let weighted = root().join(
        "tests/data/readers/alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json",
    );
    let remax = root().join(
        "tests/data/readers/alpaca_eval/Mistral-7B-ReMax-v0.1.alpaca_eval_gpt4_turbo_fn.annotations.json",
    );
    let page = run_browser_driver(
        "compare_tools.mjs",
        [
            std::ffi::OsStr::new(&worker.url),
            weighted.as_os_str(),
            remax.as_os_str(),
        ],
    );
    assert_eq!(page["pageErrors"], serde_json::json!([]));
    assert_eq!(page["error"], serde_json::Value::Null, "{page}");
    let reading = page["reading"].as_str().unwrap();
    assert!(
        reading.contains("`alpaca-7b`") && reading.contains("`Mistral-7B-ReMax-v0.1`"),
        "{reading}"
    );
    assert!(reading.contains("3 shared items"), "{reading}");
    let notes = page["notes"].to_string();
    assert!(
        notes.contains("Mistral-7B-ReMax-v0.1.alpaca_eval_gpt4_turbo_fn.annotations.json: 1 record(s) have no preference"),
        "{notes}"
    );
    assert_eq!(page["corrected"], serde_json::json!([]));
    // Scores with a `human` column: the page shows each system's judge-corrected score.
    let gold = root().join("tests/fixtures/compare-alpaca-gold.csv");
    let page = run_browser_driver(
        "compare_tools.mjs",
        [std::ffi::OsStr::new(&worker.url), gold.as_os_str()],
    );
    assert_eq!(page["pageErrors"], serde_json::json!([]));
    assert_eq!(
        page["corrected"],
        serde_json::json!([
            "Mistral-7B-Instruct-v0.2",
            "Mixtral-8x7B-Instruct-v0.1",
            "gemini-pro",
            "gpt-3.5-turbo-0301"
        ]),
        "{page}"
    );
}

/// Other tools' files added through the session page's form: recognised when picked, said so,
/// converted in the browser to exactly the CSV `tribunal convert` writes, and stored as the
/// dataset kind it reads as (battles, ratings).
#[test]
fn other_tools_files_are_recognised_and_converted_on_the_session_page() {
    let worker = app_worker("convert-upload-browser");
    let (id, token) = create_session(&worker, "other tools' files");
    let alpaca = root().join(
        "tests/data/readers/alpaca_eval/alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.json",
    );
    let arena_hard = root().join("tests/data/readers/arena_hard/krikri-annealing-dpo_max-length-norm-fixes-checkpoint-1560-with-thinking.excerpt.jsonl");
    let inspect =
        root().join("tests/data/readers/inspect/2025-05-12T20-28-13-04-00_popularity.json");
    let owner_url = format!("{}s/{id}#owner={token}", worker.url);
    let with_baseline = format!("{}=gpt-4-0314", arena_hard.display());
    let page = run_browser_driver(
        "convert_upload.mjs",
        [
            std::ffi::OsStr::new(&owner_url),
            alpaca.as_os_str(),
            std::ffi::OsStr::new(&with_baseline),
            inspect.as_os_str(),
        ],
    );
    assert_eq!(page["pageErrors"], serde_json::json!([]));
    let uploads = page["uploads"].as_array().unwrap();
    let formats: Vec<&str> = uploads
        .iter()
        .map(|u| u["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["alpaca_eval", "arena_hard", "inspect"]);
    assert!(uploads[0]["said"]
        .as_str()
        .unwrap()
        .starts_with("This is AlpacaEval annotations"));
    let session = http(
        worker.authority(),
        "GET",
        &format!("/api/sessions/{id}"),
        &[],
        b"",
    )
    .json();
    let datasets = session["datasets"].as_array().unwrap();
    let expected = [
        (
            alpaca.to_str().unwrap(),
            None,
            "battles",
            "alpaca-7b.weighted_alpaca_eval_gpt4_turbo.annotations.csv",
        ),
        (
            arena_hard.to_str().unwrap(),
            Some("gpt-4-0314"),
            "battles",
            "krikri-annealing-dpo_max-length-norm-fixes-checkpoint-1560-with-thinking.excerpt.csv",
        ),
        (
            inspect.to_str().unwrap(),
            None,
            "ratings",
            "2025-05-12T20-28-13-04-00_popularity.csv",
        ),
    ];
    assert_eq!(datasets.len(), expected.len());
    for (dataset, (file, baseline, kind, name)) in datasets.iter().zip(expected) {
        assert_eq!(dataset["kind"], kind);
        assert_eq!(dataset["name"], name);
        let mut args = vec!["convert", file];
        if let Some(b) = baseline {
            args.extend(["--baseline", b]);
        }
        let cli = run_tribunal(&args);
        assert!(cli.status.success());
        let stored = http(
            worker.authority(),
            "GET",
            &format!(
                "/api/sessions/{id}/datasets/{}",
                dataset["hash"].as_str().unwrap()
            ),
            &[],
            b"",
        );
        assert_eq!(
            stored.body, cli.stdout,
            "{name}: the page's conversion differs from the CLI's"
        );
    }
}
