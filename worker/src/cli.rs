//! Command-line interface: `tribunal serve`, `tribunal judge`, `tribunal work`, `tribunal embed`
//! and `tribunal stats …` (JSON on stdout, a located
//! error on stderr and exit status 1 on bad input).

use crate::convert::{self, ConvertArgs};
use crate::engine::Fleet;
use crate::judge::{embed, judge, work, EmbedArgs, EngineArgs, JudgeArgs, WorkerArgs};
use crate::limits::Limits;
use crate::server::{serve, ServeConfig};
use crate::stats::{run_kind_command, with_kind_commands, Invocation, Stats};
use crate::store::backup::{backup, restore, BackupArgs, RestoreArgs};
use crate::store::StoreArgs;
use crate::study::{study, StudyArgs};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tribunal",
    version,
    about = "LLM judges as measurement instruments"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the app, the API and the WebSocket endpoint.
    Serve {
        /// Address to listen on (port 0 picks a free port).
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The store: SQLite under --data-dir, or --store postgres://….
        #[command(flatten)]
        store: StoreArgs,
        /// The app built by Trunk.
        #[arg(long, default_value = "dist")]
        dist: PathBuf,
        /// The judge engine for runs started from the app.
        #[command(flatten)]
        engine: EngineArgs,
        /// An OpenAI-compatible server that runs started from the app may use (`URL`, or
        /// `URL=ENV` with ENV the variable holding its API key); repeatable.
        #[arg(long = "fleet")]
        fleets: Vec<Fleet>,
        #[command(flatten)]
        limits: Limits,
    },
    /// Run a statistic on files and print JSON.
    #[command(subcommand)]
    Stats(Stats),
    /// Judge the items of a CSV (queued in the store, judged by this process and any
    /// `tribunal work` processes); one JSON line per judgment.
    Judge(JudgeArgs),
    /// Judge the store's queued runs alongside other workers.
    Work(WorkerArgs),
    /// Convert another tool's result file into a battles CSV (AlpacaEval annotations,
    /// Arena-Hard judgments, Chatbot Arena battles) or a ratings CSV (Inspect logs, promptfoo).
    Convert(ConvertArgs),
    /// Embed a CSV column with all-MiniLM-L6-v2.
    Embed(EmbedArgs),
    /// Write a consistent snapshot of the store (SQLite or PostgreSQL) to one file.
    Backup(BackupArgs),
    /// Fill an empty store (SQLite or PostgreSQL) from a `tribunal backup` file.
    Restore(RestoreArgs),
    /// The LLMFAO study: the local judge on a budgeted sample of LLMFAO's pairs against the
    /// crowd and GPT-4, saved as a session and written up as a report with figures.
    Study(Box<StudyArgs>),
}

/// Runs the CLI.
pub fn main() -> ExitCode {
    let matches = command().get_matches();
    if let Some(("stats", stats)) = matches.subcommand() {
        if let Some((name, args)) = stats.subcommand() {
            let invocation = command()
                .find_subcommand("stats")
                .and_then(|stats| stats.find_subcommand(name))
                .map(|command| Invocation::new(name, args, command));
            if let Some(result) =
                invocation.and_then(|invocation| run_kind_command(name, args, invocation))
            {
                return exit_code(result);
            }
        }
    }
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let result = match cli.command {
        Command::Serve {
            addr,
            store,
            dist,
            engine,
            fleets,
            limits,
        } => run_server(ServeConfig {
            addr,
            store,
            dist: crate::install_paths::locate(&dist),
            engine,
            fleets,
            limits,
        }),
        Command::Stats(stats) => {
            let invocation = match matches.subcommand() {
                Some(("stats", stats)) => stats.subcommand(),
                _ => None,
            };
            match invocation {
                Some((name, args)) => {
                    let command = command();
                    let parsed_by = command
                        .find_subcommand("stats")
                        .and_then(|stats| stats.find_subcommand(name));
                    match parsed_by {
                        Some(command) => stats.run(Invocation::new(name, args, command)),
                        None => Err(anyhow::anyhow!(
                            "`tribunal stats {name}` is not a statistic"
                        )),
                    }
                }
                None => Err(anyhow::anyhow!("`tribunal stats` needs a statistic")),
            }
        }
        Command::Judge(args) => judge(args),
        Command::Work(args) => work(args),
        Command::Convert(args) => convert::run(args),
        Command::Embed(args) => embed(args),
        Command::Backup(args) => backup(args),
        Command::Restore(args) => restore(args),
        Command::Study(args) => study(*args),
    };
    exit_code(result)
}

/// The CLI's commands: the derived ones, `stats` with a subcommand for every kind of the
/// registry that gives its options ([`with_kind_commands`]).
fn command() -> clap::Command {
    Cli::command().mut_subcommand("stats", with_kind_commands)
}

/// Success, or the error on stderr and failure.
fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_server(config: ServeConfig) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    tokio::runtime::Runtime::new()?.block_on(serve(config))
}
