//! The lists the compiler cannot gather itself, written to `OUT_DIR` from the sources:
//!
//! - `every_kind.rs`: the registry of analysis kinds, the `every_kind!` macro, from each
//!   `register_kind! { … }` block under `src/` (its doc, position, variant, name and type), in
//!   the order of their positions, which must run 1, 2, … without a gap or a repeat.
//! - `kind_modules/<family>.rs`: a family's statistic files that register a kind and that its
//!   `mod.rs` does not declare, declared (`pub mod`) where the family's `mod.rs` says
//!   `kind_modules!("<family>")`.
//! - `test_modules.rs`: every integration test file of `tests/` but `main.rs`, as a module of
//!   the one test binary (`tests/main.rs`).
//!
//! So a new kind is its statistic's file, its view and its test, and no list to edit
//! (ARCHITECTURE.md, "Adding an analysis kind"). A block this cannot read stops the build with
//! its file and line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// One `register_kind!` block.
struct Registered {
    position: usize,
    docs: Vec<String>,
    variant: String,
    name: String,
    path: String,
    at: String,
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=tests");

    let mut sources = Vec::new();
    rust_files(&root.join("src"), &mut sources);
    sources.sort();
    let mut kinds = Vec::new();
    let mut undeclared: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let mut families = Vec::new();
    for file in &sources {
        let text = read(file);
        let relative = file.strip_prefix(root.join("src")).expect("under src");
        if let Some(family) = kind_modules_call(&text) {
            families.push(family);
        }
        let found = registered(&text, relative, &root);
        if found.is_empty() {
            continue;
        }
        let module = module_path(relative);
        for mut kind in found {
            kind.path = format!("$crate::{module}::{}", kind.path);
            kinds.push(kind);
        }
        if let Some(family) = needs_declaring(file, relative) {
            undeclared.entry(family).or_default().push(file.clone());
        }
    }

    kinds.sort_by_key(|k| k.position);
    for (expected, kind) in (1..).zip(&kinds) {
        if kind.position != expected {
            panic!(
                "{}: registers `{}` at position {}, expected {expected} (positions run 1, 2, … in \
                 the order kinds were released; a new kind takes the next one)",
                kind.at, kind.name, kind.position
            );
        }
    }
    write(&out.join("every_kind.rs"), &every_kind(&kinds));

    fs::create_dir_all(out.join("kind_modules")).expect("OUT_DIR is writable");
    for family in &families {
        let files = undeclared.remove(family).unwrap_or_default();
        write(
            &out.join("kind_modules").join(format!("{family}.rs")),
            &module_lines(&files, "pub "),
        );
    }
    if let Some((family, files)) = undeclared.into_iter().next() {
        panic!(
            "{}: registers a kind, but src/{family}/mod.rs neither declares it nor says \
             `crate::analysis::kind_modules!(\"{family}\");`",
            files[0].display()
        );
    }

    let mut tests = Vec::new();
    rust_files(&root.join("tests"), &mut tests);
    tests.retain(|t| t.parent() == Some(&root.join("tests")) && !t.ends_with("main.rs"));
    tests.sort();
    write(&out.join("test_modules.rs"), &module_lines(&tests, ""));
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

fn read(file: &Path) -> String {
    fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// Writes `text` unless the file already holds it (an unchanged list keeps its time).
fn write(file: &Path, text: &str) {
    if fs::read_to_string(file).ok().as_deref() != Some(text) {
        fs::write(file, text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    }
}

/// `crate::a::b` of `a/b.rs` or `a/b/mod.rs`.
fn module_path(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// The family of `file` when its folder's `mod.rs` does not declare it.
fn needs_declaring(file: &Path, relative: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    if stem == "mod" || relative.components().count() != 2 {
        return None;
    }
    let family = relative.parent()?.to_str()?.to_owned();
    let parent = read(&file.with_file_name("mod.rs"));
    let declared = parent.lines().any(|line| {
        let line = line.trim();
        let line = line.strip_prefix("pub ").unwrap_or(line);
        let line = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub(super) "))
            .unwrap_or(line);
        line == format!("mod {stem};")
    });
    (!declared).then_some(family)
}

/// The family named by a `kind_modules!("family")` line of a `mod.rs`.
fn kind_modules_call(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix("crate::analysis::kind_modules!(\"")?;
        Some(rest.split('"').next()?.to_owned())
    })
}

/// Every `register_kind! { … }` block of a source file.
fn registered(text: &str, relative: &Path, root: &Path) -> Vec<Registered> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim();
        if trimmed.starts_with("//") || !trimmed.ends_with("register_kind! {") {
            continue;
        }
        let at = format!(
            "{}:{}",
            root.join("src").join(relative).display(),
            index + 1
        );
        let mut docs = Vec::new();
        let mut entry = None;
        for (_, line) in lines.by_ref() {
            let line = line.trim();
            if line == "}" {
                break;
            }
            if let Some(doc) = line.strip_prefix("///") {
                docs.push(doc.strip_prefix(' ').unwrap_or(doc).to_owned());
            } else if !line.is_empty() {
                entry = Some(line.trim_end_matches(',').to_owned());
            }
        }
        let entry = entry.unwrap_or_else(|| panic!("{at}: a register_kind! block with no entry"));
        found.push(parse_entry(&entry, docs, at));
    }
    found
}

/// `7 Variant = "name": TypeKind`.
fn parse_entry(entry: &str, docs: Vec<String>, at: String) -> Registered {
    let expected = "expected `POSITION Variant = \"name\": TypeKind`";
    let (position, rest) = entry
        .split_once(' ')
        .unwrap_or_else(|| panic!("{at}: {expected}, found `{entry}`"));
    let position = position
        .parse()
        .unwrap_or_else(|_| panic!("{at}: {expected}: `{position}` is not a position"));
    let (variant, rest) = rest
        .split_once('=')
        .unwrap_or_else(|| panic!("{at}: {expected}, found `{entry}`"));
    let (name, path) = rest
        .trim()
        .strip_prefix('"')
        .and_then(|r| r.split_once("\":"))
        .unwrap_or_else(|| panic!("{at}: {expected}, found `{entry}`"));
    if docs.is_empty() {
        panic!("{at}: `{name}` has no doc comment (the form and the registry show it)");
    }
    Registered {
        position,
        docs,
        variant: variant.trim().to_owned(),
        name: name.to_owned(),
        path: path.trim().to_owned(),
        at,
    }
}

/// The `every_kind!` macro: calls `$callback!` with every kind, in the registry's order.
fn every_kind(kinds: &[Registered]) -> String {
    let mut text = String::from(
        "/// Calls `$callback! { /// doc\\n Variant = \"name\": path::to::TypeKind, … }` with every \
         analysis kind,\n/// in the registry's order (generated by `shared/build.rs` from the \
         `register_kind!` blocks).\n#[macro_export]\nmacro_rules! every_kind {\n    \
         ($callback:ident) => {\n        $callback! {\n",
    );
    for kind in kinds {
        for doc in &kind.docs {
            let _ = writeln!(text, "            #[doc = {doc:?}]");
        }
        let _ = writeln!(
            text,
            "            {} = {:?}: {},",
            kind.variant, kind.name, kind.path
        );
    }
    text.push_str("        }\n    };\n}\n");
    text
}

/// `#[path = "…"] mod stem;` for each file.
fn module_lines(files: &[PathBuf], visibility: &str) -> String {
    let mut text = String::new();
    for file in files {
        let stem = file.file_stem().and_then(|s| s.to_str()).expect("a name");
        let _ = writeln!(
            text,
            "#[path = {:?}]\n{visibility}mod {stem};",
            file.display().to_string()
        );
    }
    text
}
