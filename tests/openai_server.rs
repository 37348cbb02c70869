//! The OpenAI-compatible backend against a real server: llama.cpp's (llama-cpp-python's
//! `llama_cpp.server`, which scripts/setup.sh builds into `.venv-llama`) serving the very GGUF
//! file the local backend runs (SmolLM2-135M-Instruct Q4_1 from `models/`). The same items go
//! through `tribunal judge` with `[backend] kind = "openai"` and with the local candle judge;
//! the same texts through `tribunal embed --with server` (the server's embeddings endpoint)
//! and `--with judge` (the local decoder's hidden states). A constrained verdict goes to the
//! server as a GBNF grammar when the configuration says it takes one.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tribunal_e2e::{judge_args, root, run_tribunal, temp_dir, write_csv, LlamaServer};

/// The first `n` LLMFAO pairs of the items fixture.
fn items(dir: &Path, n: usize) -> PathBuf {
    let text = std::fs::read_to_string(root().join("tests/fixtures/llmfao-items.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let path = dir.join("items.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(reader.headers().unwrap()).unwrap();
    for record in reader.records().take(n) {
        writer.write_record(&record.unwrap()).unwrap();
    }
    writer.flush().unwrap();
    path
}

/// A pairwise template whose marker this small model does write, both orders, 16 tokens.
fn config(dir: &Path, name: &str, backend: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "[prompt]\nkind = \"template\"\n[prompt.template]\n\
             system = \"You are a fair judge. You answer in one line.\"\n\
             user = \"Question: {{instruction}}\\n\\nResponse A: {{response}}\\n\\nResponse B: \
             {{response_b}}\\n\\nWhich response answers the question better? Complete the \
             sentence: The better response is\"\n\
             labels = [\"A\", \"B\"]\nmarker = \"The better response is\"\n\n\
             [design]\norders = \"both\"\n\n[decoding]\nmax_tokens = 16\n\n{backend}"
        ),
    )
    .unwrap();
    path
}

fn judge(config: &Path, items: &Path, out: &Path, data: &Path) -> Vec<Value> {
    let output = run_tribunal(&judge_args(config, items, out, data));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn judging_through_llama_cpp_server_reads_answers_tokens_and_p_s() {
    let server = LlamaServer::start(&[]);
    let dir = temp_dir("openai-server");
    let items = items(&dir, 3);
    let backend = format!(
        "[backend]\nkind = \"openai\"\nurl = \"http://127.0.0.1:{}/v1\"\nmodel = \"smollm2\"\n",
        server.port
    );
    let remote = config(&dir, "remote.toml", &backend);
    let local = config(&dir, "local.toml", "");
    let first = judge(&remote, &items, &dir.join("a.jsonl"), &dir.join("a"));
    let again = judge(&remote, &items, &dir.join("b.jsonl"), &dir.join("b"));
    let candle = judge(&local, &items, &dir.join("c.jsonl"), &dir.join("c"));
    assert_eq!(first.len(), 6, "three pairs in both orders");
    let mut read = 0;
    for ((j, k), c) in first.iter().zip(&again).zip(&candle) {
        assert_eq!((&j["id"], &j["order"]), (&c["id"], &c["order"]));
        // Greedy decoding through the server is repeatable.
        assert_eq!(j["raw"], k["raw"], "item {}", j["id"]);
        let generated = j["generated_tokens"].as_u64().unwrap();
        assert!((1..=16).contains(&generated), "{generated} tokens");
        // The server's prompt, from the GGUF's chat template, is the one the local judge
        // builds, give or take the begin-of-text token.
        let (server_tokens, candle_tokens) = (
            j["prompt_tokens"].as_i64().unwrap(),
            c["prompt_tokens"].as_i64().unwrap(),
        );
        assert!(
            (server_tokens - candle_tokens).abs() <= 1,
            "{server_tokens} vs {candle_tokens} prompt tokens"
        );
        match j["score_position"].as_str() {
            Some("generated") => {
                read += 1;
                let p: Vec<f64> = ["A", "B"]
                    .iter()
                    .map(|l| j["label_probs"][l].as_f64().unwrap())
                    .collect();
                assert!((p[0] + p[1] - 1.0).abs() < 1e-9 && p.iter().all(|&x| x >= 0.0));
                assert!(j["label_mass"].as_f64().unwrap() > 0.0);
            }
            Some("missing") => assert!(j["label_probs"].as_object().unwrap().is_empty()),
            other => panic!("score_position {other:?}"),
        }
    }
    assert!(read >= 2, "p_s was read in only {read} of 6 answers");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a.jsonl.run.json")).unwrap())
            .unwrap();
    assert_eq!(record["judge_model"]["backend"], "openai-compatible");
}

#[test]
fn a_server_that_takes_a_grammar_gets_the_verdict_constrained() {
    let server = LlamaServer::start(&[]);
    let dir = temp_dir("openai-grammar");
    let items = items(&dir, 3);
    // The Prometheus relative prompt, whose `[RESULT]` this small model does not write freely
    // within 24 tokens.
    let config = |name: &str, grammar: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "[prompt]\nkind = \"relative\"\nrubric = \"Which response is better?\"\n\
                 [decoding]\nmax_tokens = 24\n\
                 [backend]\nkind = \"openai\"\nurl = \"http://127.0.0.1:{}/v1\"\nmodel = \"smollm2\"\n{grammar}",
                server.port
            ),
        )
        .unwrap();
        path
    };
    let record = |out: &Path| -> Value {
        let path = format!("{}.run.json", out.display());
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let free_out = dir.join("free.jsonl");
    let free = judge(&config("free.toml", ""), &items, &free_out, &dir.join("f"));
    let gbnf_out = dir.join("gbnf.jsonl");
    let constrained = judge(
        &config("gbnf.toml", "grammar = \"gbnf\"\n"),
        &items,
        &gbnf_out,
        &dir.join("g"),
    );
    assert_eq!(record(&free_out)["verdict_constrained"], false);
    assert_eq!(record(&gbnf_out)["verdict_constrained"], true);
    let unparsed = free.iter().filter(|j| !j["parse_error"].is_null()).count();
    assert!(unparsed > 0, "free decoding parsed every answer: {free:?}");
    assert_eq!(constrained.len(), 3);
    for j in &constrained {
        assert!(j["parse_error"].is_null(), "{j}");
        let raw = j["raw"].as_str().unwrap().trim_end();
        assert!(
            raw.ends_with("[RESULT] A") || raw.ends_with("[RESULT] B"),
            "{raw:?}"
        );
        assert_eq!(raw.matches('[').count(), 1, "{raw:?}");
        assert!(j["generated_tokens"].as_u64().unwrap() <= 24, "{j}");
    }
}

/// The criteria prompt with its criteria shuffled, at 24 free tokens: decoded freely the
/// answers are cut off inside their JSON and do not parse; with the format sent as a grammar
/// every answer is the prompt's block, in the criterion order its own prompt shows, and parses.
#[test]
fn a_json_prompt_gets_its_format_as_a_grammar() {
    let server = LlamaServer::start(&[]);
    let dir = temp_dir("openai-json-grammar");
    let items = items(&dir, 2);
    let config = |name: &str, grammar: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "[prompt]\nkind = \"criteria\"\n[design]\nshuffle_criteria = true\nseed = 4\n\
                 [decoding]\nmax_tokens = 24\n\
                 [backend]\nkind = \"openai\"\nurl = \"http://127.0.0.1:{}/v1\"\nmodel = \"smollm2\"\n\
                 timeout_seconds = 900.0\n{grammar}",
                server.port
            ),
        )
        .unwrap();
        path
    };
    // A grammar-constrained criteria answer took over the default 120 s per request on a slow
    // 2-core machine (three attempts, then a timeout); the test is about the grammar.
    let free = judge(
        &config("free.toml", ""),
        &items,
        &dir.join("free.jsonl"),
        &dir.join("f"),
    );
    assert!(
        free.iter().all(|j| !j["parse_error"].is_null()),
        "24 free tokens held a whole block: {free:?}"
    );
    let constrained = judge(
        &config("gbnf.toml", "grammar = \"gbnf\"\n"),
        &items,
        &dir.join("gbnf.jsonl"),
        &dir.join("g"),
    );
    assert_eq!(constrained.len(), 2);
    let defined = [
        "adherence",
        "helpfulness",
        "factuality",
        "completeness",
        "clarity",
        "fluency",
    ];
    let mut shuffled = 0;
    for j in &constrained {
        assert!(j["parse_error"].is_null(), "{j}");
        let raw = j["raw"].as_str().unwrap();
        assert!(
            raw.starts_with("```json\n{\"completion_A\": {\""),
            "{raw:?}"
        );
        let side_a = &raw[..raw.find('}').unwrap()];
        let mut at: Vec<(usize, &str)> = defined
            .iter()
            .map(|&name| (side_a.find(&format!("\"{name}\": ")).unwrap(), name))
            .collect();
        at.sort_unstable();
        if at.iter().map(|&(_, name)| name).ne(defined) {
            shuffled += 1;
        }
        assert_eq!(j["criteria"]["a"].as_array().unwrap().len(), 6);
        assert!(["A", "B", "tie"].contains(&j["criteria"]["preference"].as_str().unwrap()));
    }
    // The grammar follows each judgment's own criterion order, not the defined one.
    assert!(shuffled > 0, "{constrained:?}");
}

#[test]
fn an_unreachable_server_is_a_clear_error_after_the_retries() {
    let dir = temp_dir("openai-down");
    let items = items(&dir, 1);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let backend = format!(
        "[backend]\nkind = \"openai\"\nurl = \"http://127.0.0.1:{port}/v1\"\nmodel = \"m\"\nretries = 1\n"
    );
    let config = config(&dir, "down.toml", &backend);
    let (out, data) = (dir.join("o.jsonl"), dir.join("d"));
    let output = run_tribunal(&judge_args(&config, &items, &out, &data));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("http://127.0.0.1:{port}/v1/chat/completions"))
            && stderr.contains("after 2 attempts")
            && stderr.contains("items.csv, line 2"),
        "{stderr}"
    );
}

fn embed(args: &[&str]) -> Vec<Vec<f64>> {
    let output = run_tribunal(args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = args[args.iter().position(|&a| a == "--out").unwrap() + 1];
    std::fs::read_to_string(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (norm(a) * norm(b))
}

/// llama.cpp's server in embedding mode returns the final-layer hidden state of every token of
/// the very GGUF the local judge runs; `tribunal embed --with server` averages them, and must
/// agree with `--with judge` (the local decoder's mean hidden state): llama.cpp computes with
/// the Q4_1 weights and 8-bit activations, candle with the weights dequantised to f32, so the
/// vectors agree in direction (cosine ≥ 0.99), not to the last digit. One text per request:
/// llama-cpp-python 0.3.36 reads the per-token vectors of the second and later texts of a
/// request from the wrong offset (pooling none), so several texts per request fail this check.
#[test]
fn the_embeddings_endpoint_agrees_with_the_judges_hidden_states() {
    let server = LlamaServer::start(&["--embedding", "true"]);
    let dir = temp_dir("openai-embeddings");
    let texts = write_csv(
        &dir,
        "texts.csv",
        "text",
        &[
            "\"The response answers the question correctly, explains the reasoning step by step, and stays concise.\"".to_owned(),
            "\"Response B ignores the user's request and rambles about an unrelated topic; it is clearly worse.\"".to_owned(),
            "\"Both answers are similar, but the first one cites a source and avoids the arithmetic error.\"".to_owned(),
        ],
    );
    let texts = texts.display().to_string();
    let (judge_out, server_out) = (
        dir.join("judge.jsonl").display().to_string(),
        dir.join("server.jsonl").display().to_string(),
    );
    let url = format!("http://127.0.0.1:{}/v1", server.port);
    let ours = embed(&[
        "embed", "--input", &texts, "--out", &judge_out, "--with", "judge", "--device", "cpu",
    ]);
    let theirs = embed(&[
        "embed",
        "--input",
        &texts,
        "--out",
        &server_out,
        "--with",
        "server",
        "--server",
        &url,
        "--server-model",
        "smollm2",
        "--batch",
        "1",
    ]);
    assert_eq!(ours.len(), 3);
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!((a.len(), b.len()), (576, 576), "text {i}");
        let c = cosine(a, b);
        assert!(c >= 0.99, "text {i}: cosine {c}");
    }
    // Different texts stay apart: the vectors are not all one direction.
    let across = cosine(&ours[0], &ours[1]);
    let same = cosine(&ours[0], &theirs[0]);
    assert!(across < same, "{across} vs {same}");
}
