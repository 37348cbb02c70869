//! The build this binary is: the tool version and the git commit compiled in by `build.rs`,
//! recorded with every result, session and archive the worker writes.

use tribunal::io::provenance::ToolVersion;

/// This build: the tool's version and, when built from a checkout, its git commit.
pub fn tool_version() -> ToolVersion {
    ToolVersion::new(option_env!("TRIBUNAL_GIT_COMMIT"))
}
