//! The TypeScript twins of the engine's types that cross the IPC boundary, generated with ts-rs
//! into `ui/src/bindings/` (the core and the app each have one such file for their own types).
//! This test fails when a committed file is stale;
//! `UPDATE_BINDINGS=1 cargo test -p switchboard-engine bindings` rewrites them.

use std::path::Path;

use ts_rs::TS;

use crate::api::ErrorKind;
use crate::instance::act::answer::Delivered;
use crate::instance::act::jump::Jump;
use crate::instance::act::launch::Launched;
use crate::instance::act::peek::Screen;
use crate::instance::outputs::push::{PushKind, PushOutcome};
use crate::instance::settings::{PushChannel, QuietHours, Reach, RemoteSpec, Settings};
use crate::protocol::{Verdict, DOCTOR_SESSION_PREFIX};
use crate::remote::{LinkState, RemoteState};
use crate::setup::doctor::{AgentReport, Check, DoctorReport, Outcome};

fn generated() -> Vec<(&'static str, String)> {
    let header = "// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.\n";
    let file = |decl: String, imports: &[&str]| {
        let mut text = header.to_owned();
        for import in imports {
            text.push_str(&format!("import type {{ {import} }} from \"./{import}\";\n"));
        }
        format!("{text}\nexport {decl}\n")
    };
    vec![
        ("Outcome.ts", file(Outcome::decl(), &[])),
        ("Check.ts", file(Check::decl(), &["Outcome"])),
        ("AgentReport.ts", file(AgentReport::decl(), &["Check"])),
        ("DoctorReport.ts", file(DoctorReport::decl(), &["AgentReport", "Check"])),
        ("doctor.ts", format!("{header}\nexport const DOCTOR_SESSION_PREFIX = {DOCTOR_SESSION_PREFIX:?};\n")),
        ("Jump.ts", file(Jump::decl(), &[])),
        ("Delivered.ts", file(Delivered::decl(), &[])),
        ("Screen.ts", file(Screen::decl(), &[])),
        ("Launched.ts", file(Launched::decl(), &[])),
        ("Settings.ts", file(Settings::decl(), &["Reach", "RemoteSpec"])),
        ("Reach.ts", file(Reach::decl(), &["PushChannel", "QuietHours"])),
        ("PushChannel.ts", file(PushChannel::decl(), &[])),
        ("QuietHours.ts", file(QuietHours::decl(), &[])),
        ("PushKind.ts", file(PushKind::decl(), &[])),
        ("PushOutcome.ts", file(PushOutcome::decl(), &[])),
        ("RemoteSpec.ts", file(RemoteSpec::decl(), &[])),
        ("LinkState.ts", file(LinkState::decl(), &[])),
        ("RemoteState.ts", file(RemoteState::decl(), &["LinkState"])),
        ("Verdict.ts", file(Verdict::decl(), &[])),
        ("ErrorKind.ts", file(ErrorKind::decl(), &[])),
        ("agents.ts", agents(header)),
        ("limits.ts", limits(header)),
    ]
}

/// The bounds the settings enforce, so the web view's fields offer what Rust keeps.
fn limits(header: &str) -> String {
    format!(
        "{header}\n/** The shortest and longest a held permission may wait for the board (seconds). */\n\
         export const MIN_HOLD_SECONDS = {};\nexport const MAX_HOLD_SECONDS = {};\n",
        crate::protocol::MIN_HOLD.as_secs(),
        crate::protocol::MAX_HOLD.as_secs(),
    )
}

/// Each CLI's row as the web view needs it (issue 35: the web view names no CLI itself): its
/// name, and whether and why not its permissions can be answered from the board.
fn agents(header: &str) -> String {
    let rows: Vec<String> = switchboard_core::agent::AGENTS
        .iter()
        .map(|agent| {
            let text = |text: Option<&str>| text.map_or("null".to_owned(), |text| format!("{text:?}"));
            format!(
                "  {{ id: {:?}, name: {:?}, short: {:?}, letter: \"{}\", decides: {}, whyNotDecided: {}, heldNote: {}, starts: {}, installs: {} }},\n",
                agent.id,
                agent.name,
                agent.short_name,
                agent.letter,
                agent.decision_event.is_some(),
                text(agent.why_not_decided),
                text(agent.held_note),
                agent.start.is_some(),
                !agent.hook_events.is_empty(),
            )
        })
        .collect();
    format!(
        "{header}\n/** One agent CLI, from its row in Rust's table. */\nexport type AgentRow = {{\n  id: string;\n  name: string;\n  short: string;\n  letter: string;\n  decides: boolean;\n  whyNotDecided: string | null;\n  heldNote: string | null;\n  starts: boolean;\n  installs: boolean;\n}};\n\nexport const AGENTS: readonly AgentRow[] = [\n{}];\n",
        rows.concat()
    )
}

#[test]
fn engine_bindings_are_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/bindings");
    for (name, text) in generated() {
        let path = dir.join(name);
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &text).unwrap();
        } else {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                committed, text,
                "{name} is stale: run `UPDATE_BINDINGS=1 cargo test -p switchboard-engine bindings`"
            );
        }
    }
}
