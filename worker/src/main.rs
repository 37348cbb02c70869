//! The `tribunal` binary: see [`tribunal_worker::cli`].

fn main() -> std::process::ExitCode {
    tribunal_worker::cli::main()
}
