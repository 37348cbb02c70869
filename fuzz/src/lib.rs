//! The fuzzed entry points, shared by the `cargo fuzz` targets (`fuzz_targets/`) and by
//! `tests/corpus.rs`, which replays the committed corpus on stable. Each takes arbitrary bytes
//! and must return without panicking: bad input is an `Err`, never a crash.
//!
//! - [`csv_inputs`]: the first byte picks a decoder of user files (every CSV schema, the
//!   embedding file, judge JSONL, a share-link fragment, a session archive); the rest is the
//!   file.
//! - [`protocol`]: the WebSocket protocol decoder, both directions; a decoded message must
//!   encode and decode back to itself.
//! - [`judge_output`]: the judge-answer parser of every prompt kind; a parsed answer's label
//!   is one of the prompt's labels.
//! - [`readers`]: the readers of other tools' files (the first byte picks the format) and
//!   format detection; a converted file's CSV reads back as battles or ratings.

use tribunal::calibration::calibration_data::{parse_calibration, HeadKind};
use tribunal::compare::score_table::TableParams;
use tribunal::io::dataset_kind::DatasetKind;
use tribunal::io::embedding_file::read_embeddings;
use tribunal::judging::judge_items::parse_judge_items;
use tribunal::judging::judge_prompt::{PromptKind, PromptParams, UserTemplate};
use tribunal::programs::program_pairs::{
    parse_judgments_jsonl, parse_probes, parse_program_pairs, parse_verdicts,
};
use tribunal::programs::vote_file::parse_vote_file;
use tribunal::rankings::battles::{parse_battles, parse_battles_with_column};
use tribunal::rankings::scored_battles::parse_scored_battles;
use tribunal::readers::{convert, detect, ConvertParams, Format, Output};
use tribunal::reliability::ratings::RatingsParams;
use tribunal::sessions::protocol::{decode, encode, ClientMessage, ServerMessage};
use tribunal::sessions::session::{check_dataset, SessionArchive};

const HEADS: [HeadKind; 5] = [
    HeadKind::Ls,
    HeadKind::Mn,
    HeadKind::Btl,
    HeadKind::Btl2,
    HeadKind::PlackettLuce,
];

/// One decoder of user files, chosen by the first byte.
pub fn csv_inputs(data: &[u8]) {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let source = "fuzz.csv";
    let ids = ["a", "b", "p1"];
    // Results are dropped: only a panic is a finding.
    match pick % 16 {
        0 => drop(parse_battles(source, bytes)),
        1 => drop(parse_battles_with_column(source, bytes, "key")),
        2 => drop(parse_scored_battles(source, bytes)),
        3 => {
            drop(parse_judge_items(source, bytes, false));
            drop(tribunal::sessions::run_calibration::item_labels(
                source, bytes,
            ));
        }
        4 => drop(parse_judge_items(source, bytes, true)),
        5 => drop(parse_program_pairs(source, bytes)),
        6 => drop(parse_verdicts(source, bytes, &ids)),
        7 => drop(parse_judgments_jsonl(source, bytes, &ids)),
        8 => drop(parse_probes(source, bytes)),
        9 => drop(parse_vote_file(source, bytes)),
        10 => drop(read_embeddings(source, bytes)),
        11 => {
            for head in HEADS {
                drop(parse_calibration(source, bytes, head, None));
            }
        }
        12 => {
            for kind in DatasetKind::ALL {
                drop(check_dataset(kind, source, bytes));
            }
        }
        13 => drop(
            tribunal::sessions::share_link::decode(&String::from_utf8_lossy(bytes))
                .and_then(|link| link.resolve(Vec::new())),
        ),
        14 => {
            // The import route: decode, then validate every dataset and analysis.
            if let Ok(archive) = serde_json::from_slice::<SessionArchive>(bytes) {
                drop(archive.validate(source));
            }
        }
        _ => drop(parse_calibration(source, bytes, HeadKind::Btl, Some(3))),
    }
}

/// The protocol decoder, both directions, with the round trip.
pub fn protocol(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(message) = decode::<ClientMessage>(text) {
        let again = decode::<ClientMessage>(&encode(&message));
        assert_eq!(
            again.as_ref(),
            Ok(&message),
            "a client message's round trip"
        );
    }
    if let Ok(message) = decode::<ServerMessage>(text) {
        let again = decode::<ServerMessage>(&encode(&message));
        assert_eq!(
            again.as_ref(),
            Ok(&message),
            "a server message's round trip"
        );
    }
}

fn prompts() -> Vec<PromptParams> {
    let plain = |kind| PromptParams {
        kind,
        rubric: "Is it right?".to_owned(),
        template: None,
    };
    vec![
        plain(PromptKind::Absolute {
            min_score: 1,
            max_score: 5,
        }),
        plain(PromptKind::Relative),
        plain(PromptKind::Criteria),
        plain(PromptKind::Binary),
        PromptParams {
            template: Some(UserTemplate {
                system: String::new(),
                user: "{instruction} {response} {response_b}".to_owned(),
                labels: vec!["left".to_owned(), "right".to_owned(), "tie".to_owned()],
                marker: "VERDICT:".to_owned(),
            }),
            ..plain(PromptKind::Template)
        },
    ]
}

/// Every prompt kind's answer parser.
pub fn judge_output(data: &[u8]) {
    let answer = String::from_utf8_lossy(data);
    for prompt in prompts() {
        if let Ok(parsed) = prompt.parse(&answer) {
            assert!(
                prompt.labels().contains(&parsed.label),
                "{:?} parsed the label {:?}",
                prompt.kind,
                parsed.label
            );
        }
    }
}

/// A reader of another tool's file, chosen by the first byte, and format detection; what a
/// reader writes must read back as battles, ratings or scores.
pub fn readers(data: &[u8]) {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let _ = detect(bytes);
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let outputs = format.outputs();
    let params = ConvertParams {
        baseline: (pick & 0x80 != 0).then(|| "baseline".to_owned()),
        to: Some(outputs[usize::from(pick >> 3) % outputs.len()]),
        ..ConvertParams::default()
    };
    let Ok(converted) = convert(format, "fuzz.json", bytes, &params) else {
        return;
    };
    if converted.rows == 0 {
        return;
    }
    let csv = converted.csv.as_bytes();
    let read_back = match converted.output {
        Output::Battles => parse_battles("converted.csv", csv).err(),
        Output::Ratings => RatingsParams::default().parse("converted.csv", csv).err(),
        Output::Scores => TableParams::default().parse("converted.csv", csv).err(),
    };
    if let Some(e) = read_back {
        panic!("a converted file does not read back: {e}");
    }
}
