//! Codex CLI's own check: each of Switchboard's hooks trusted (Codex runs a hook only once the
//! user trusted it in `/hooks`).

use super::{Check, Outcome};
use crate::setup::install::CliStatus;

pub(super) fn codex_trust_check(status: &CliStatus, id: String) -> Check {
    const LABEL: &str = "Hooks trusted";
    let Some(trust) = &status.trust else {
        return Check::new(id, LABEL, Outcome::Skip, "no Switchboard hook to trust yet", None);
    };
    if trust.complete() {
        let detail = format!("Codex trusts all {} of Switchboard's hooks", trust.trusted.len());
        return Check::new(id, LABEL, Outcome::Pass, detail, None);
    }
    let mut parts = Vec::new();
    for (events, word) in [(&trust.untrusted, "not trusted yet"), (&trust.modified, "changed since trusted")] {
        if !events.is_empty() {
            parts.push(format!("{word}: {}", events.join(", ")));
        }
    }
    if !trust.disabled.is_empty() {
        parts.push(format!("switched off in /hooks: {}", trust.disabled.join(", ")));
    }
    let fix = if trust.untrusted.is_empty() && trust.modified.is_empty() {
        "run codex, open /hooks and switch Switchboard's hooks back on"
    } else {
        "run codex and choose \"Trust all and continue\" when it says hooks need review (or trust them in /hooks)"
    };
    let detail = format!("Codex skips untrusted hooks: {}", parts.join("; "));
    Check::new(id, LABEL, Outcome::Fail, detail, Some(fix.to_owned()))
}
