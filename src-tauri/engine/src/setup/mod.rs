//! Setting up: what connects the CLIs to Switchboard and checks that they are — the installer
//! (`switchboard install`), `switchboard doctor`, and Codex's trust entries for our hooks. Runs
//! as a command or from the app's Connections panel, never on the hook path.

pub mod codex_trust;
pub mod doctor;
pub mod install;
