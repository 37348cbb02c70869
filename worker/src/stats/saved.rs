//! `tribunal stats run SPEC.json --input ROLE=FILE …`: reruns a saved analysis on files given
//! by role and prints the same report the page, the session and the subcommand that made it
//! print. The spec is read from a spec document, from a saved analysis (`{"spec": …}`, as a
//! session lists it) or from the `record.spec` of an earlier `tribunal stats` report. Each file
//! must be the one the spec was made on (same SHA-256), so a rerun cannot silently compute
//! other numbers.

use super::{add_input, Planned};
use crate::input_file::read_input;
use anyhow::{bail, Context};
use clap::Args;
use std::path::PathBuf;
use tribunal::analysis::{Inputs, Spec};

#[derive(Args)]
pub struct RunArgs {
    /// The spec: a spec JSON, a saved analysis, or a `tribunal stats` report (`-` for stdin).
    spec: PathBuf,
    /// A file in a role of the spec, e.g. `--input battles=arena.csv` (repeat per role).
    #[arg(long, value_name = "ROLE=FILE", value_parser = role_and_file)]
    input: Vec<(String, PathBuf)>,
}

fn role_and_file(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((role, file)) if !role.is_empty() && !file.is_empty() => {
            Ok((role.to_owned(), PathBuf::from(file)))
        }
        _ => Err(format!("expected ROLE=FILE, found `{text}`")),
    }
}

/// The spec in `json`: the document itself, its `spec`, or its `record.spec`.
fn find_spec(source: &str, json: serde_json::Value) -> anyhow::Result<Spec> {
    let value = match (&json.get("spec"), json.pointer("/record/spec")) {
        (Some(spec), _) => (*spec).clone(),
        (None, Some(spec)) => spec.clone(),
        (None, None) => json,
    };
    serde_json::from_value(value).with_context(|| {
        format!("{source}: expected an analysis spec (a session's saved analysis or a `tribunal stats` report)")
    })
}

pub fn plan(args: RunArgs) -> anyhow::Result<Planned> {
    let (source, bytes) = read_input(&args.spec)?;
    let json: serde_json::Value =
        serde_json::from_slice(&bytes).with_context(|| format!("{source}: expected JSON"))?;
    let spec = find_spec(&source, json)?;
    let mut inputs = Inputs::new();
    for (role, path) in &args.input {
        if inputs.optional(role).is_some() {
            bail!("--input: the role `{role}` is given twice");
        }
        add_input(&mut inputs, role, path)?;
    }
    Ok(Planned {
        spec,
        inputs,
        outputs: Vec::new(),
    })
}
