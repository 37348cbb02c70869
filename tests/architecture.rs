//! The code's shape, checked: no import cycle between the modules of the library, the worker,
//! the app or the Python binding (`scripts/import_cycles.py`, which lists each cycle it finds).

use std::process::Command;
use tribunal_e2e::root;

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let out = Command::new("python3")
        .current_dir(root())
        .args([
            "scripts/import_cycles.py",
            "shared/src",
            "worker/src",
            "app/src",
            "python/src",
        ])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every crate was read (a wrong folder would read none and find no cycle).
    for line in stdout.lines() {
        let modules: usize = line
            .split(": ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(modules > 0, "{line}");
    }
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
}

#[test]
fn the_checker_finds_a_cycle() {
    let dir = tribunal_e2e::temp_dir("import-cycles");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "pub mod c;\n").unwrap();
    std::fs::write(dir.join("a/c.rs"), "use crate::b::B;\n").unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "// crate::lib is a comment\npub struct B(crate::a::c::C);\n",
    )
    .unwrap();
    let out = Command::new("python3")
        .current_dir(root())
        .arg("scripts/import_cycles.py")
        .arg(&dir)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("4 modules, 1 import cycles"), "{stdout}");
    assert!(
        stdout.contains("a/c -> b") && stdout.contains("b -> a/c"),
        "{stdout}"
    );
}
