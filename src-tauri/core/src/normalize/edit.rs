//! What an edit permission changes, in a line (issue 24: "the file and a diff summary for
//! edits"): the file and how many lines go and come — from Claude Code's Edit / MultiEdit / Write
//! input, Codex's `apply_patch` patch, or Gemini CLI's `fileDiff`.

use crate::json::Value;
use serde::{Deserialize, Serialize};

/// The file an edit permission changes, and by how many lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EditSummary {
    /// The file's path as the CLI gave it (the first one, for a patch of several).
    pub file: String,
    /// Lines added and removed.
    pub added: u32,
    pub removed: u32,
    /// How many files the edit touches (a patch may touch several).
    pub files: u32,
}

fn lines(text: &str) -> u32 {
    u32::try_from(text.lines().count()).unwrap_or(u32::MAX)
}

/// The summary of a tool's input, for the edit tools that have one.
pub fn of_tool_input(tool: Option<&str>, input: Option<&Value>) -> Option<EditSummary> {
    let input = input?;
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let file = text("file_path").or_else(|| text("path")).or_else(|| text("notebook_path"));
    match tool? {
        "Edit" => Some(EditSummary {
            file: file?.to_owned(),
            removed: lines(text("old_string")?),
            added: lines(text("new_string")?),
            files: 1,
        }),
        "MultiEdit" => {
            let edits = input.get("edits")?.as_array()?;
            let count = |key: &str| edits.iter().filter_map(|e| e.get(key)?.as_str()).map(lines).sum::<u32>();
            Some(EditSummary {
                file: file?.to_owned(),
                removed: count("old_string"),
                added: count("new_string"),
                files: 1,
            })
        }
        "Write" => Some(EditSummary { file: file?.to_owned(), removed: 0, added: lines(text("content")?), files: 1 }),
        // Codex: the patch is the tool's input (or its `command`).
        "apply_patch" => of_patch(input.as_str().or_else(|| text("command")).or_else(|| text("input"))?),
        _ => None,
    }
}

/// A patch's summary: Codex's `*** Begin Patch` format or a unified diff.
pub fn of_patch(patch: &str) -> Option<EditSummary> {
    let mut summary = EditSummary::default();
    for line in patch.lines() {
        let file = ["*** Update File: ", "*** Add File: ", "*** Delete File: ", "+++ "]
            .iter()
            .find_map(|lead| line.strip_prefix(lead));
        if let Some(file) = file {
            let file = file.split('\t').next().unwrap_or(file).trim();
            if summary.file.is_empty() {
                summary.file = file.trim_start_matches("b/").to_owned();
            }
            summary.files += 1;
        } else if line.starts_with("---")
            || line.starts_with("***")
            || line.starts_with("Index: ")
            || line.starts_with("===")
        {
        } else if line.starts_with('+') {
            summary.added += 1;
        } else if line.starts_with('-') {
            summary.removed += 1;
        }
    }
    (!summary.file.is_empty()).then_some(summary)
}

/// An edit confirmation that carries `fileDiff` (a unified diff) and `filePath` (Gemini CLI's `details`).
pub fn of_file_diff(details: Option<&Value>) -> Option<EditSummary> {
    let details = details?;
    let diff = details.get("fileDiff")?.as_str()?;
    let mut summary = of_patch(diff)?;
    if let Some(path) = details.get("filePath").and_then(Value::as_str) {
        summary.file = path.to_owned();
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// The summaries on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn of_tool_input(tool: Option<&str>, input: Option<&Value>) -> Option<EditSummary> {
        super::of_tool_input(tool, input.map(Into::into).as_ref())
    }

    fn of_file_diff(details: Option<&Value>) -> Option<EditSummary> {
        super::of_file_diff(details.map(Into::into).as_ref())
    }

    #[test]
    fn claudes_edit_tools_say_the_file_and_the_lines() {
        let edit = json!({"file_path": "/src/app.ts", "old_string": "a\nb\nc", "new_string": "a\nB\nc\nd"});
        assert_eq!(
            of_tool_input(Some("Edit"), Some(&edit)),
            Some(EditSummary { file: "/src/app.ts".into(), added: 4, removed: 3, files: 1 })
        );
        let multi = json!({"file_path": "/src/a.rs", "edits": [{"old_string": "x", "new_string": "y\nz"},
                                                                  {"old_string": "p\nq", "new_string": ""}]});
        assert_eq!(of_tool_input(Some("MultiEdit"), Some(&multi)).map(|s| (s.added, s.removed)), Some((2, 3)));
        let write = json!({"file_path": "/src/new.md", "content": "one\ntwo\n"});
        assert_eq!(of_tool_input(Some("Write"), Some(&write)).map(|s| (s.added, s.removed)), Some((2, 0)));
        assert_eq!(of_tool_input(Some("Bash"), Some(&json!({"command": "ls"}))), None);
        assert_eq!(of_tool_input(Some("Edit"), Some(&json!({"file_path": "/x"}))), None, "no strings: no summary");
    }

    #[test]
    fn a_codex_patch_counts_its_lines_and_files() {
        let patch = "*** Begin Patch\n*** Update File: src/main.rs\n@@ fn main\n-    old();\n+    new();\n+    more();\n*** Add File: README.md\n+hello\n*** End Patch\n";
        assert_eq!(
            of_tool_input(Some("apply_patch"), Some(&json!({"command": patch}))),
            Some(EditSummary { file: "src/main.rs".into(), added: 3, removed: 1, files: 2 })
        );
    }

    #[test]
    fn geminis_file_diff_is_read_from_its_real_confirmation() {
        let path = format!(
            "{}/../../tests/fixtures/real/gemini-cli-0.61.0/events/Notification-ToolPermission-edit.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            of_file_diff(raw.get("details")),
            Some(EditSummary { file: "/home/dev/ws/notes.txt".into(), added: 1, removed: 0, files: 1 })
        );
    }
}
