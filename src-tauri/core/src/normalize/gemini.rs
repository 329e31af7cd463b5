//! Gemini CLI (`/hook/gemini`), SPEC 1.3.

use serde_json::Value;

use super::{lifecycle, one_line, Hook};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, StatusEvent};

const AGENT: &str = "gemini";

pub fn normalize_gemini(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT, now) };
    let event = match hook.event_name {
        "BeforeAgent" => StatusEvent { cue: Cue::NewTurn, ..status(AgentStatus::Working) },
        "BeforeTool" | "AfterTool" => status(AgentStatus::Working),
        "AfterAgent" => StatusEvent { message: hook.string("prompt_response"), ..status(AgentStatus::Done) },
        "Notification" if hook.str("notification_type") == Some("ToolPermission") => {
            StatusEvent { message: hook.str("message").map(one_line), ..status(AgentStatus::Blocked) }
        }
        "SessionStart" => lifecycle(&hook, AGENT, now, Lifecycle::Start),
        "SessionEnd" => lifecycle(&hook, AGENT, now, Lifecycle::End),
        "PreCompress" => lifecycle(&hook, AGENT, now, Lifecycle::Compact),
        // Everything else, BeforeModel/AfterModel/BeforeToolSelection included (they fire per
        // model call or chunk), is not a status.
        _ => return None,
    };
    Some(event)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::fixtures::{fixture, fixture_with};
    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn gemini(name: &str) -> StatusEvent {
        normalize_gemini(&fixture(&format!("gemini/{name}.json")), NOW).expect(name)
    }

    #[test]
    fn before_agent_is_a_new_working_turn() {
        let event = gemini("BeforeAgent");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert_eq!(event.cue, Cue::NewTurn);
        assert_eq!(event.agent, "gemini");
    }

    #[test]
    fn before_and_after_tool_are_working() {
        for name in ["BeforeTool", "AfterTool"] {
            let event = gemini(name);
            assert_eq!(event.status, Some(AgentStatus::Working), "{name}");
            assert_eq!(event.tool.as_deref(), Some("run_shell_command"));
        }
    }

    #[test]
    fn after_agent_is_done_with_the_response() {
        let event = gemini("AfterAgent");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.message.as_deref(), Some("Fixed the token refresh logic and added a test."));
    }

    #[test]
    fn notification_tool_permission_is_blocked_with_the_message() {
        let event = gemini("Notification-ToolPermission");
        assert_eq!(event.status, Some(AgentStatus::Blocked));
        assert_eq!(event.message.as_deref(), Some("Allow execution of: npm test?"));
    }

    #[test]
    fn notification_of_other_types_gives_no_event() {
        let raw = fixture_with("gemini/Notification-ToolPermission.json", json!({"notification_type": "Other"}));
        assert_eq!(normalize_gemini(&raw, NOW), None);
    }

    #[test]
    fn session_start_end_and_pre_compress_are_lifecycle_only() {
        let cases =
            [("SessionStart", Lifecycle::Start), ("SessionEnd", Lifecycle::End), ("PreCompress", Lifecycle::Compact)];
        for (name, expected) in cases {
            let event = gemini(name);
            assert_eq!((event.status, event.lifecycle), (None, Some(expected)), "{name}");
        }
    }

    #[test]
    fn per_model_call_events_give_no_event() {
        for name in ["BeforeModel", "AfterModel", "BeforeToolSelection", "Unknown"] {
            let raw = fixture_with("gemini/BeforeAgent.json", json!({"hook_event_name": name}));
            assert_eq!(normalize_gemini(&raw, NOW), None, "{name}");
        }
    }

    #[test]
    fn payload_timestamps_are_ignored_for_the_injected_clock() {
        assert_eq!(gemini("AfterTool").ts, NOW);
    }
}
