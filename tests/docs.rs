//! Issue 46: documents that stay true. Every link in README.md and docs/ points at a file that
//! is there; every path docs/ARCHITECTURE.md names exists; every room (folder of source) on disk
//! is named in it, so a new room cannot go undocumented nor a deleted one stay described.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// README.md and every Markdown file in docs/.
fn documents() -> Vec<PathBuf> {
    let mut all = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|ext| ext == "md") {
            all.push(entry.path());
        }
    }
    all
}

/// The targets of `[text](target)` links and `![alt](target)` images.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        found.push(rest[..end].trim().to_owned());
    }
    found
}

#[test]
fn every_link_in_the_readme_and_docs_points_at_a_file_that_is_there() {
    let mut broken = Vec::new();
    for document in documents() {
        let text = read(&document);
        for link in links(&text) {
            let target = link.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let path = document.parent().unwrap().join(target);
            if !path.exists() {
                broken.push(format!("{}: {link}", document.strip_prefix(root()).unwrap().display()));
            }
        }
        if text.contains("SPEC.md") {
            broken.push(format!("{}: SPEC.md, which is not in the repository", document.display()));
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
}

/// The repository paths written in backticks (`src-tauri/engine/src/hook/`), patterns among
/// them (`src-tauri/core/src/normalize/<cli>/`) kept as they are.
fn named_paths(text: &str) -> Vec<String> {
    const TOP: [&str; 8] = ["src-tauri/", "ui/", "tests/", "docs/", "scripts/", "bench/", "packaging/", ".ci/"];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|token| !token.contains(char::is_whitespace) && TOP.iter().any(|top| token.starts_with(top)))
        .map(|token| token.trim_end_matches('/').to_owned())
        .collect()
}

fn matches_pattern(pattern: &str, path: &str) -> bool {
    let (pattern, path): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), path.split('/').collect());
    pattern.len() == path.len()
        && pattern.iter().zip(&path).all(|(p, s)| p == s || (p.starts_with('<') && p.ends_with('>')))
}

/// Every folder of source: the app's, the crates' and the web view's.
fn rooms(dir: &Path, into: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !path.is_dir() || ["target", "node_modules", "proptest-regressions", "gen"].contains(&name.as_str()) {
            continue;
        }
        into.push(path.strip_prefix(root()).unwrap().to_string_lossy().into_owned());
        rooms(&path, into);
    }
}

#[test]
fn the_architecture_names_every_room_and_only_paths_that_exist() {
    let text = read(&root().join("docs/ARCHITECTURE.md"));
    let named = named_paths(&text);
    let missing: Vec<&String> =
        named.iter().filter(|path| !path.contains('<') && !path.contains('*') && !root().join(path).exists()).collect();
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md names what is not there: {missing:#?}");
    let mut on_disk = Vec::new();
    rooms(&root().join("src-tauri"), &mut on_disk);
    rooms(&root().join("ui/src"), &mut on_disk);
    on_disk.push("ui/src".into());
    let unnamed: Vec<&String> =
        on_disk.iter().filter(|room| !named.iter().any(|path| path == *room || matches_pattern(path, room))).collect();
    assert!(unnamed.is_empty(), "rooms docs/ARCHITECTURE.md does not name: {unnamed:#?}");
}

/// Issue 46: no production source file over 450 lines, so each stays one job a reader can hold.
/// A module's tests (`tests.rs`, `*_tests.rs`, `tests/`) may be longer. The web view's files are
/// held to the same by `ui/src/house.test.ts`, stylesheets too.
#[test]
fn no_rust_source_file_is_over_450_lines() {
    fn walk(dir: &Path, long: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, long);
                }
            } else if name.ends_with(".rs") && !name.ends_with("tests.rs") {
                let lines = read(&path).lines().count();
                if lines > 450 {
                    long.push(format!("{}: {lines} lines", path.strip_prefix(root()).unwrap().display()));
                }
            }
        }
    }
    let mut long = Vec::new();
    walk(&root().join("src-tauri"), &mut long);
    assert!(long.is_empty(), "over 450 lines: {long:#?}");
}

/// Issue 50: what names an operating system lives in the platform room
/// (`src-tauri/engine/src/platform/`); everywhere else asks the room. A module's tests (after its
/// `#[cfg(test)]`, in `tests.rs`, `testing.rs` or a `tests/` folder) may use Unix's own calls to
/// set files up.
#[test]
fn no_os_conditional_outside_the_platform_room() {
    const NAMES: [&str; 8] = [
        "cfg(unix",
        "cfg(windows",
        "cfg(target_os",
        "cfg(target_family",
        "cfg(not(unix",
        "cfg(not(windows",
        "std::os::unix",
        "std::os::windows",
    ];
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" && name != "platform" && name != "target" {
                    walk(&path, found);
                }
            } else if name.ends_with(".rs") && !name.ends_with("tests.rs") && name != "testing.rs" {
                let text = read(&path);
                // Production code ends where a test-only item begins (`#[cfg(test)]`,
                // `#[cfg(all(test, unix))]`).
                let tests_begin = |line: &&str| line.trim_start().starts_with("#[cfg(") && line.contains("test");
                let production = text.lines().take_while(|line| !tests_begin(line));
                for (at, line) in production.enumerate() {
                    let line = line.replace(' ', "");
                    if NAMES.iter().any(|os| line.contains(os)) {
                        found.push(format!("{}:{}", path.strip_prefix(root()).unwrap().display(), at + 1));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(&root().join("src-tauri"), &mut found);
    assert!(found.is_empty(), "OS conditionals outside src-tauri/engine/src/platform/: {found:#?}");
}
