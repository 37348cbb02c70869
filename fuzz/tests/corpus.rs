//! Replays every committed corpus input (`corpus/<target>/`, minimised with `cargo fuzz cmin`)
//! and every crash found so far (`regressions/<target>/`) through the fuzzed entry points on
//! stable Rust: none may panic.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut count = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a corpus entry").path();
            let data = std::fs::read(&path).expect("reading a corpus input");
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{} panics", path.display());
            count += 1;
        }
    }
    count
}

#[test]
fn csv_inputs_corpus_replays_without_a_panic() {
    assert!(replay("csv_inputs", tribunal_fuzz::csv_inputs) > 100);
}

#[test]
fn protocol_corpus_replays_without_a_panic() {
    assert!(replay("protocol", tribunal_fuzz::protocol) > 20);
}

#[test]
fn judge_output_corpus_replays_without_a_panic() {
    assert!(replay("judge_output", tribunal_fuzz::judge_output) > 20);
}

#[test]
fn readers_corpus_replays_without_a_panic() {
    assert!(replay("readers", tribunal_fuzz::readers) > 20);
}
