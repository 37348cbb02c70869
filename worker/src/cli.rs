//! Command-line interface: `tribunal serve` and `tribunal stats …` (JSON on stdout, a located
//! error on stderr and exit status 1 on bad input).

use crate::server::{serve, ServeConfig};
use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::battles::parse_battles;
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::bradley_terry_leaderboard;

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
        /// Directory for the embedded SQLite database.
        #[arg(long, default_value = "data")]
        data_dir: PathBuf,
        /// The app built by Trunk.
        #[arg(long, default_value = "dist")]
        dist: PathBuf,
    },
    /// Run a statistic on files and print JSON.
    #[command(subcommand)]
    Stats(Stats),
}

#[derive(Subcommand)]
enum Stats {
    /// Bradley–Terry leaderboard (Elo scale) from a battles CSV.
    Bt {
        /// Battles CSV: `model_a,model_b,winner` or `left,right,winner` (`-` for stdin).
        #[arg(long)]
        input: PathBuf,
        /// L2 penalty λ.
        #[arg(long, default_value_t = BradleyTerryParams::default().lambda)]
        lambda: f64,
        /// Most Newton iterations.
        #[arg(long, default_value_t = BradleyTerryParams::default().max_iter)]
        max_iter: usize,
        /// Convergence tolerance on the largest Newton step.
        #[arg(long, default_value_t = BradleyTerryParams::default().tol)]
        tol: f64,
    },
}

/// Runs the CLI.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            addr,
            data_dir,
            dist,
        } => run_server(ServeConfig {
            addr,
            data_dir,
            dist,
        }),
        Command::Stats(stats) => run_stats(stats),
    };
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

fn run_stats(stats: Stats) -> anyhow::Result<()> {
    let json = match stats {
        Stats::Bt {
            input,
            lambda,
            max_iter,
            tol,
        } => {
            let (source, bytes) = read_input(&input)?;
            let battles = parse_battles(&source, &bytes)?;
            let params = BradleyTerryParams {
                lambda,
                max_iter,
                tol,
            };
            serde_json::to_string_pretty(&bradley_terry_leaderboard(&source, &battles, &params)?)?
        }
    };
    println!("{json}");
    Ok(())
}

fn read_input(path: &Path) -> anyhow::Result<(String, Vec<u8>)> {
    use anyhow::Context;
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        return Ok(("<stdin>".to_owned(), bytes));
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok((path.display().to_string(), bytes))
}
