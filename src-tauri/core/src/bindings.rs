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
use crate::view::{Badge, Category, HistoryView, Look, Reason, Tone};

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
    add(Tone::name(), Tone::decl(), &[]);
    add(Badge::name(), Badge::decl(), &["Tone"]);
    add(Category::name(), Category::decl(), &[]);
    add(Look::name(), Look::decl(), &[]);
    add(Reason::name(), Reason::decl(), &["Look"]);
    add(HistoryView::name(), HistoryView::decl(), &["AgentStatus", "Badge", "Reason"]);
    add(
        Session::name(),
        Session::decl(),
        &[
            "AgentProcess",
            "AgentStatus",
            "Attention",
            "Badge",
            "Category",
            "EditSummary",
            "Footprint",
            "GitInfo",
            "Position",
            "Question",
            "Reason",
            "SessionKind",
            "Usage",
        ],
    );
    add(Snapshot::name(), Snapshot::decl(), &["Session"]);
    add(SessionsChanged::name(), SessionsChanged::decl(), &["Session"]);
    files.push(("view.ts".to_owned(), view(header)));
    files
}

/// The display rules' numbers and words the web view draws with (core/src/view.rs): it
/// decides nothing about status itself.
fn view(header: &str) -> String {
    let badge = |status| {
        let session = Session { status: Some(status), ..crate::view::fixtures::started() };
        serde_json::to_string(&crate::view::badge(&session)).unwrap()
    };
    let legend: String = crate::view::LEGEND
        .iter()
        .map(|(tone, word, what)| {
            format!("  {{ tone: {}, word: {word:?}, what: {what:?} }},\n", serde_json::to_string(tone).unwrap())
        })
        .collect();
    format!(
        "{header}import type {{ AgentStatus }} from \"./AgentStatus\";\nimport type {{ Badge }} from \"./Badge\";\nimport type {{ Tone }} from \"./Tone\";\n\n\
         /** Cards ranked at or below this go to the \"Needs you\" lane (`boardRank`). */\nexport const RANK_NEEDS_YOU = {};\n\
         /** An ended session's rank, the last. */\nexport const RANK_ENDED = {};\n\
         /** How much of a reason a card shows. */\nexport const REASON_CHARS = {};\n\n\
         /** Each reported status's badge, for lists that name a status (a tone per status). */\n\
         export const STATUS_BADGES: Record<AgentStatus, Badge> = {{\n  working: {},\n  waiting: {},\n  blocked: {},\n  done: {},\n}};\n\n\
         /** Each tone, the word beside it and what it means: the `?` sheet's legend. */\n\
         export const LEGEND: readonly {{ tone: Tone; word: string; what: string }}[] = [\n{legend}];\n",
        crate::view::RANK_NEEDS_YOU,
        crate::view::RANK_ENDED,
        crate::view::REASON_CHARS,
        badge(AgentStatus::Working),
        badge(AgentStatus::Waiting),
        badge(AgentStatus::Blocked),
        badge(AgentStatus::Done),
    )
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
