//! Input errors that say what to do, in every CSV parser (issue 21, item 8): a CRLF file's
//! errors name the same line as its LF twin, an unterminated quote is named where its field
//! began, a semicolon- or tab-separated header says so, and an ambiguous header is an error.
//! Runs natively and in headless Chromium.

use tribunal::compare::score_table::TableParams;
use tribunal::io::error::{Error, Location};
use tribunal::judging::judge_items::parse_judge_items;
use tribunal::programs::program_pairs::{parse_program_pairs, parse_verdicts};
use tribunal::programs::vote_file::parse_vote_file;
use tribunal::rankings::scored_battles::parse_scored_battles;

fn input_error<T: std::fmt::Debug>(result: Result<T, Error>) -> (Location, String) {
    match result {
        Err(Error::Input { location, message }) => (location, message),
        other => panic!("expected an input error, got {other:?}"),
    }
}

fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn crlf_errors_name_the_line_an_editor_shows_in_every_parser() {
    let scored = "model_a,model_b,score\nA,B,1\nB,C,2\nA,C,x\n";
    let pairs = "id,instruction,response,response_b,label\n\
                 1,q,\"two\nlines\",r,a\n2,q,r,s,b\n3,q,r,s,maybe\n";
    let items = "id,instruction,response\n1,q,r\n2,q,\"r\n\"\n3,,r\n";
    for text in [scored.to_owned(), crlf(scored)] {
        let (loc, msg) = input_error(parse_scored_battles("s.csv", text.as_bytes()));
        assert_eq!(loc, Location::field("s.csv", 4, 3, "score"), "{text:?}");
        assert_eq!(msg, "expected a number, found `x`");
    }
    for text in [pairs.to_owned(), crlf(pairs)] {
        let (loc, _) = input_error(parse_program_pairs("p.csv", text.as_bytes()));
        assert_eq!(loc, Location::field("p.csv", 5, 5, "label"), "{text:?}");
    }
    for text in [items.to_owned(), crlf(items)] {
        let (loc, _) = input_error(parse_judge_items("i.csv", text.as_bytes(), false));
        assert_eq!(
            loc,
            Location::field("i.csv", 5, 2, "instruction"),
            "{text:?}"
        );
    }
    // The quoted field keeps its own line break.
    let read = parse_program_pairs("p.csv", crlf(&pairs.replace("maybe", "tie")).as_bytes());
    assert_eq!(read.unwrap()[0].response_a, "two\r\nlines");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn scored_battles_headers_that_mislead_say_what_to_do() {
    let parse = |text: &str| input_error(parse_scored_battles("s.csv", text.as_bytes()));
    let (loc, msg) = parse("model_a;model_b;score\nA;B;1\n");
    assert_eq!(loc, Location::line("s.csv", 1));
    assert_eq!(
        msg,
        "the header looks semicolon-separated (found `model_a;model_b;score`): Tribunal reads \
         comma-separated files; save or export the file with `,` as the separator"
    );
    let (_, msg) = parse("model_a\tmodel_b\tscore\nA\tB\t1\n");
    assert!(msg.contains("looks tab-separated"), "{msg}");
    // The doc's promise: an ambiguous header is an error.
    let (loc, msg) = parse("model_a,model_b,score,score\nA,B,1,2\n");
    assert_eq!(loc, Location::field("s.csv", 1, 4, "score"));
    assert_eq!(
        msg,
        "the column `score` appears twice in the header (columns 3 and 4): expected each column \
         once; rename or delete one of them"
    );
    let (loc, _) = parse("model_a,model_b,judge,human,human\nA,B,tie,tie,tie\n");
    assert_eq!(loc, Location::field("s.csv", 1, 5, "human"));
    let (loc, _) = parse("model_b,model_a,model_b,judge\nA,B,C,tie\n");
    assert_eq!(loc, Location::field("s.csv", 1, 3, "model_b"));
    // An unterminated quote is named where its field began.
    let (loc, msg) = parse("model_a,model_b,score\r\nA,B,1\r\n\"A,B,2\r\nC,D,3\r\n");
    assert_eq!(loc, Location::field("s.csv", 3, 1, "model_a"));
    assert!(msg.contains("never closed"), "{msg}");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_repeated_key_names_both_lines_in_every_parser_that_forbids_it() {
    let pairs = "id,instruction,response,response_b\np1,q,r,s\np2,q,r,s\np1,q,r,s\n";
    let (loc, msg) = input_error(parse_program_pairs("p.csv", pairs.as_bytes()));
    assert_eq!(loc, Location::field("p.csv", 4, 1, "id"));
    assert_eq!(
        msg,
        "expected a unique id, found `p1` again (first on line 2)"
    );

    let votes = "id,label,split,f\nx,a,test,1\ny,b,test,0\nz,a,test,-1\ny,a,test,1\n";
    let (loc, msg) = input_error(parse_vote_file("v.csv", votes.as_bytes()));
    assert_eq!(loc, Location::field("v.csv", 5, 1, "id"));
    assert_eq!(
        msg,
        "expected a unique id, found `y` again (first on line 3)"
    );

    let verdicts = "id,label\ny,a\nx,b\ny,tie\n";
    let (loc, msg) = input_error(parse_verdicts("l.csv", verdicts.as_bytes(), &["x", "y"]));
    assert_eq!(loc, Location::field("l.csv", 4, 1, "id"));
    assert_eq!(
        msg,
        "expected a unique id, found `y` again (first on line 2)"
    );
    let (_, msg) = input_error(parse_verdicts("l.csv", b"id,label\nw,a\n", &["x"]));
    assert_eq!(msg, "expected the id of one of the pairs, found `w`");

    let table = TableParams::default();
    let scores = "item,system,score\ni1,A,1\ni2,A,0\ni1,B,1\ni1,A,0\n";
    let (loc, msg) = input_error(table.parse("s.csv", scores.as_bytes()));
    assert_eq!(loc, Location::line("s.csv", 5));
    assert!(
        msg.starts_with(
            "`A` has a second score for item `i1` and criterion `score` (the first is at line 2)"
        ),
        "{msg}"
    );
    // With epochs, only a repeated epoch is an error.
    let epochs = "item,system,score,epoch\ni1,A,1,1\ni1,A,0,2\ni1,A,1,1\n";
    let (loc, msg) = input_error(table.parse("s.csv", epochs.as_bytes()));
    assert_eq!(loc, Location::line("s.csv", 4));
    assert!(msg.contains("(the first is at line 2)"), "{msg}");
    let two_epochs = "item,system,score,epoch\ni1,A,1,1\ni1,A,0,2\ni2,A,1,1\n";
    assert!(
        table
            .parse("s.csv", two_epochs.as_bytes())
            .unwrap()
            .has_epochs
    );
}
