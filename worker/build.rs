//! Records the git commit the worker is built from (when built from a checkout) as
//! `TRIBUNAL_GIT_COMMIT`, for the reproducibility record of every result it writes
//! ([`tribunal_worker::build_info`]). Here and not in the library: a commit then rebuilds only
//! this crate, not every build of `tribunal` beneath it.

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|text| text.trim().to_owned())
        .filter(|hash| hash.len() == 40 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    if let Some(commit) = commit {
        println!("cargo:rustc-env=TRIBUNAL_GIT_COMMIT={commit}");
    }
    // Rebuild when HEAD moves (a commit, a checkout); nothing else here changes the answer.
    for path in ["../.git/HEAD", "../.git/refs/heads", "../.git/packed-refs"] {
        if Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
