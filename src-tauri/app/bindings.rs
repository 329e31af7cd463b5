//! The TypeScript side of the IPC that the app crate defines (the command error and the event
//! names), generated into `ui/src/bindings/` like the core's and the engine's types; this fails
//! when a committed file is stale. `UPDATE_BINDINGS=1 cargo test -p switchboard --lib bindings`
//! rewrites them.

use ts_rs::TS;

use crate::terminal::TerminalEnded;
use crate::{CommandError, CHIME, FOCUS_SESSION, NOTICES_CHANGED, SESSIONS_CHANGED};

#[test]
fn ipc_bindings_are_up_to_date() {
    let header = "// Generated from the Rust types by ts-rs (src-tauri/app/bindings.rs). Do not edit.\n";
    let files = [
        (
            "CommandError.ts",
            format!("{header}import type {{ ErrorKind }} from \"./ErrorKind\";\n\nexport {}\n", CommandError::decl()),
        ),
        ("TerminalEnded.ts", format!("{header}\nexport {}\n", TerminalEnded::decl())),
        (
            "events.ts",
            format!(
                "{header}\nexport const SESSIONS_CHANGED = {SESSIONS_CHANGED:?};\nexport const FOCUS_SESSION = {FOCUS_SESSION:?};\nexport const NOTICES_CHANGED = {NOTICES_CHANGED:?};\nexport const CHIME = {CHIME:?};\n"
            ),
        ),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
    for (file, text) in files {
        let path = dir.join(file);
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &text).unwrap();
        } else {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                committed, text,
                "{file} is stale: run `UPDATE_BINDINGS=1 cargo test -p switchboard --lib bindings`"
            );
        }
    }
}
