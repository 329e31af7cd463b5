//! The TypeScript twins of the types that cross the IPC boundary are generated from these Rust
//! types (ts-rs) and committed in `ui/src/bindings/`. This test fails when they are stale;
//! `UPDATE_BINDINGS=1 cargo test -p switchboard-core bindings` rewrites them.

use std::path::PathBuf;

use ts_rs::TS;

use crate::normalize::edit::EditSummary;
use crate::reducer::{HistoryEntry, Position, Session, SessionsChanged, Snapshot};
use crate::session::{Attention, Question, QuestionOption};
use crate::status::{AgentProcess, AgentStatus, SessionKind};
use crate::turn::{TurnItem, TurnPart};
use crate::usage::{Footprint, GitInfo, Usage};

fn generated() -> Vec<(String, String)> {
    let header = "// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.\n";
    let mut files = Vec::new();
    let mut add = |name: String, decl: String, imports: &[&str]| {
        let mut text = header.to_owned();
        for import in imports {
            text.push_str(&format!("import type {{ {import} }} from \"./{import}\";\n"));
        }
        text.push_str(&format!("\nexport {decl}\n"));
        files.push((format!("{name}.ts"), text));
    };
    add(AgentStatus::name(), AgentStatus::decl(), &[]);
    add(SessionKind::name(), SessionKind::decl(), &[]);
    add(Position::name(), Position::decl(), &[]);
    add(AgentProcess::name(), AgentProcess::decl(), &[]);
    add(HistoryEntry::name(), HistoryEntry::decl(), &["AgentStatus"]);
    add(Attention::name(), Attention::decl(), &[]);
    add(QuestionOption::name(), QuestionOption::decl(), &[]);
    add(Question::name(), Question::decl(), &["QuestionOption"]);
    add(Usage::name(), Usage::decl(), &[]);
    add(EditSummary::name(), EditSummary::decl(), &[]);
    add(TurnPart::name(), TurnPart::decl(), &[]);
    add(TurnItem::name(), TurnItem::decl(), &["TurnPart"]);
    add(Footprint::name(), Footprint::decl(), &[]);
    add(GitInfo::name(), GitInfo::decl(), &[]);
    add(
        Session::name(),
        Session::decl(),
        &[
            "AgentProcess",
            "AgentStatus",
            "Attention",
            "EditSummary",
            "Footprint",
            "GitInfo",
            "Position",
            "Question",
            "SessionKind",
            "Usage",
        ],
    );
    add(Snapshot::name(), Snapshot::decl(), &["Session"]);
    add(SessionsChanged::name(), SessionsChanged::decl(), &["Session"]);
    files
}

#[test]
fn typescript_bindings_are_up_to_date() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings");
    let update = std::env::var_os("UPDATE_BINDINGS").is_some();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for (file, text) in generated() {
        let path = dir.join(&file);
        if update {
            std::fs::write(&path, &text).unwrap();
        } else {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                committed, text,
                "{file} is stale: run `UPDATE_BINDINGS=1 cargo test -p switchboard-core bindings`"
            );
        }
    }
}
