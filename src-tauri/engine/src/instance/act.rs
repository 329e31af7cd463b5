//! What acts on an agent for the user, each through one door that proves its target: answers
//! and replies (`answer`, typed through `terminal/` or given through a hook, a link or the CLI's
//! daemon), what `peek` shows (`peek`: the screen and the last turn), Allow /
//! Deny (`decide`, the held permissions), Jump to its terminal (`jump`), `switchboard new`
//! (`launch`) and End agent (`end`, never the caller, another user or the instance's own tree).
//! A tap on the phone (`phone`) goes through the same doors as the board's answers.

pub mod answer;
pub mod decide;
pub mod end;
pub mod jump;
pub mod launch;
pub mod peek;
pub mod phone;
