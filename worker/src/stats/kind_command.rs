//! `tribunal stats NAME` for a kind of the registry that has no subcommand module here but gives
//! its options ([`Kind::cli`](tribunal::analysis::kind::Kind::cli)): the options its params
//! derive, and its files as `--input ROLE=FILE` (or `--input FILE` for a kind that reads one
//! file). A kind added to the registry this way is a subcommand without a line in this crate.

use super::{add_input, Planned};
use anyhow::Context;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::path::PathBuf;
use tribunal::analysis::{Analysis, Inputs};

/// `stats` with a subcommand for every kind that gives its options and is not among its
/// subcommands already.
pub fn with_kind_commands(stats: Command) -> Command {
    let commands: Vec<Command> = Analysis::NAMES
        .iter()
        .map(|name| name.replace('_', "-"))
        .filter(|name| stats.find_subcommand(name).is_none())
        .filter_map(|name| command(&name))
        .collect();
    stats.subcommands(commands)
}

/// The subcommand `name` (kebab-case) of a kind that gives its options.
fn command(name: &str) -> Option<Command> {
    let spec_name = name.replace('-', "_");
    let cli = Analysis::cli_of(&spec_name)?;
    let input = Arg::new("input")
        .long("input")
        .value_name("ROLE=FILE")
        .action(ArgAction::Append)
        .help("A file in a role of the analysis, e.g. `--input battles=arena.csv` (repeat per role; FILE alone for a kind of one file; `-` for stdin)");
    let mut command = (cli.options)(Command::new(name.to_owned()).arg(input));
    if spec_name != name {
        command = command.alias(spec_name);
    }
    // After the options: the params' doc comment would otherwise be the subcommand's help.
    Some(command.about(cli.about))
}

/// The analysis and files of `tribunal stats NAME …` for a kind of [`with_kind_commands`];
/// `None` for a name that is not one.
///
/// # Errors
/// The settings' parse errors (said as clap says them), an `--input` whose role is not the
/// analysis's or that names no role where the kind reads several files, and the files' read
/// errors.
pub fn plan(name: &str, matches: &ArgMatches) -> Option<anyhow::Result<Planned>> {
    let cli = Analysis::cli_of(&name.replace('-', "_"))?;
    Some(plan_with(&cli, name, matches))
}

fn plan_with(
    cli: &tribunal::analysis::kind::KindCli,
    name: &str,
    matches: &ArgMatches,
) -> anyhow::Result<Planned> {
    let analysis = (cli.analysis)(matches).map_err(|e| anyhow::anyhow!("{e}"))?;
    analysis.validate()?;
    let roles: Vec<String> = analysis.roles().iter().map(|r| r.name.clone()).collect();
    let mut inputs = Inputs::new();
    for given in matches.get_many::<String>("input").into_iter().flatten() {
        let (role, file) = match given.split_once('=') {
            Some((role, file)) if !role.is_empty() && !file.is_empty() => (role.to_owned(), file),
            _ => match roles.as_slice() {
                [only] => (only.clone(), given.as_str()),
                _ => anyhow::bail!(
                    "`tribunal stats {name} --input {given}`: expected ROLE=FILE, the role one of {}",
                    roles.join(", ")
                ),
            },
        };
        add_input(&mut inputs, &role, &PathBuf::from(file))
            .with_context(|| format!("--input {given}"))?;
    }
    Ok(Planned::new(analysis, inputs))
}
