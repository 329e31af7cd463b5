//! Claude Code (`/hook/claude`), docs/model.md §1.1 as corrected by what Claude Code 2.1.332
//! sends (§8).

use crate::json::Value;

mod transcript;

use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, Background, Start, TitleSource, Transcript, Typing};
use crate::agent::setup::{DirVar, Setup, Switch, Version};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "claude";
/// Claude's question picker: a tool call that is really a question to the user.
const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// Events Claude Code fires that say nothing about whether the agent needs the user: they fire
/// inside a turn (PostToolBatch, MessageDisplay — MessageDisplay even after Stop), describe the
/// environment, or are decided without the user. Listed so that every event the pinned CLI knows
/// is either mapped or deliberately ignored (a test walks the CLI's own list).
pub const IGNORED: &[&str] = &[
    "PostToolBatch",
    "MessageDisplay",
    "PermissionDenied",
    "Setup",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCreated",
    "TaskCompleted",
    "TeammateIdle",
    "UserPromptExpansion",
    "PreModelSwitch",
    "PostModelSwitch",
    "DirectoryAdded",
    "PreSkillShellCommand",
];

/// The events the installer registers for: exactly those this normalizer reads, so Switchboard
/// sees every event its table uses and pays for no other.
pub const HOOK_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "Elicitation",
    "ElicitationResult",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
];

/// Claude Code, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Claude Code",
    short_name: "Claude",
    letter: 'C',
    held_note: Some("its own prompt stays on screen meanwhile"),
    start: Some(Start { program: "claude", prompt_flag: None }),
    normalize: normalize_claude,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // It takes `hookSpecificOutput.decision.behavior` = allow | deny (checked by the real-CLI harness).
    decision_event: Some("PermissionRequest"),
    // Claude Code 2.1.332 reads AskUserQuestion's `updatedInput.answers` from an allowing
    // PermissionRequest hook; its own dialog is drawn ~0.4 s later all the same, and an answer
    // given there wins (the hook's later answer is ignored).
    answers_in_hook: true,
    resume: Some("claude --resume {id}"),
    // Checked against `claude --bg` of 2.1.332: its hooks fire as a terminal session's do.
    background: Some(Background { list: &["agents", "--json"], attach: "claude attach {id}" }),
    title: TitleSource::Transcript,
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: transcript::settles },
    typing: Typing { prompts: &["❯", ">"], enter_after_ms: 50, pasted: Some("[Pasted text"), options_by_digit: true },
    setup: Some(Setup {
        dir: ".claude",
        dir_var: Some(DirVar::Folder("CLAUDE_CONFIG_DIR")),
        file: "settings.json",
        program: "claude",
        install_hint: "npm install -g @anthropic-ai/claude-code",
        every_tool: &["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"],
        all_off: Some(Switch {
            path: &["disableAllHooks"],
            off: true,
            message: "`disableAllHooks` is true in these settings: Claude Code runs no hook, Switchboard's included, \
                      until you set it to false",
            fix: "set \"disableAllHooks\": false in {file}",
        }),
        // Claude Code refuses a settings file with an unknown hook event as a whole ("Invalid key
        // in record"). Changelog 2.1.78 (anthropics/claude-code#35620).
        introduced: &[("StopFailure", Version(2, 1, 78))],
        next_step: "new Claude Code sessions report to Switchboard; in a session already running, open /hooks to \
                    accept the change (or restart it)",
        ..Setup::BASE
    }),
    ..Agent::BASE
};

pub fn normalize_claude(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = hook.event(AGENT_ID, now);
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        "UserPromptSubmit" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "PreToolUse" if hook.tool_name() == Some(ASK_USER_QUESTION) => question(&hook, base),
        "PreToolUse" | "PostToolUse" | "PreCompact" => status(AgentStatus::Working),
        "PostToolUseFailure" if hook.flag("is_interrupt") => {
            StatusEvent { interrupted: true, ..status(AgentStatus::Done) }
        }
        "PostToolUseFailure" => status(AgentStatus::Working),
        // `/compact` ends with no Stop (docs/model.md §8): a finished manual compaction settles the
        // session it set working. An automatic one happens inside a turn, which goes on.
        "PostCompact" if hook.str("trigger") == Some("manual") => StatusEvent {
            interrupted: true,
            cue: Cue::IdleRescue,
            message: Some("Conversation compacted".to_owned()),
            ..status(AgentStatus::Done)
        },
        "Notification" => notification(&hook, base)?,
        "PermissionRequest" if hook.tool_name() == Some(ASK_USER_QUESTION) => question(&hook, base),
        "PermissionRequest" => permission_request(&hook, base),
        // An MCP server asks the user to fill in a form.
        "Elicitation" => StatusEvent {
            awaiting_input: true,
            question: hook.str("message").map(one_line),
            ..status(AgentStatus::Waiting)
        },
        "ElicitationResult" => status(AgentStatus::Working),
        "Stop" => hook.stop(status(AgentStatus::Done)),
        "StopFailure" => StatusEvent {
            errored: true,
            message: Some(failure_text(hook.str("error"), hook.str("last_assistant_message"))),
            ..status(AgentStatus::Done)
        },
        "SubagentStart" => subagent(&hook, base),
        "SubagentStop" => StatusEvent {
            status: Some(AgentStatus::Done),
            message: hook.string("last_assistant_message"),
            ..subagent(&hook, base)
        },
        "SessionStart" => {
            StatusEvent { title: hook.string("session_title"), ..lifecycle(&hook, AGENT_ID, now, Lifecycle::Start) }
        }
        "SessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(hook.with_agent_id(event))
}

/// StopFailure as a sentence: Claude sends a bare code (`rate_limit`, `server_error`,
/// `unknown`, …) and the error it showed as `last_assistant_message`.
pub fn failure_text(code: Option<&str>, shown: Option<&str>) -> String {
    let sentence = match code.unwrap_or("unknown") {
        "rate_limit" => "Rate limit reached",
        "server_error" => "The API had a server error",
        "overloaded" | "overloaded_error" => "The API is overloaded",
        "authentication_failed" => "The API key was refused",
        "billing_error" => "The API account has a billing problem",
        "invalid_request" => "The API refused the request",
        "max_output_tokens" => "The answer hit the output limit",
        "unknown" => "The request failed",
        other => return shown.map(one_line).unwrap_or_else(|| format!("The turn failed ({other})")),
    };
    let detail = shown.map(|text| one_line(text.trim_start_matches("API Error:").trim())).filter(|t| !t.is_empty());
    match detail {
        Some(detail) if detail.to_lowercase().contains(&sentence.to_lowercase()) => detail,
        Some(detail) => format!("{sentence}: {detail}"),
        None => sentence.to_owned(),
    }
}

/// `AskUserQuestion`, by PreToolUse or by its PermissionRequest: the user has a question.
fn question(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Waiting),
        awaiting_input: true,
        question: hook.first_question(),
        questions: hook.questions(),
        ..base
    }
}

pub(super) fn permission_request(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Blocked),
        message: hook.tool_input_summary(),
        command: hook.tool_input_text(),
        edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
        ..base
    }
}

fn subagent(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent { kind: SessionKind::Subagent, subagent_id: hook.string("agent_id"), ..base }
}

/// Notification, by `notification_type` (a closed set: unknown types give no event).
fn notification(hook: &Hook, base: StatusEvent) -> Option<StatusEvent> {
    let message = hook.str("message").map(one_line);
    let (status, cue) = match hook.fields.get("notification_type") {
        None | Some(Value::Null) => (AgentStatus::Waiting, Cue::IdleReminder),
        Some(Value::String(kind)) => match &**kind {
            "permission_prompt" => (AgentStatus::Blocked, Cue::PermissionNotice),
            "elicitation_dialog" | "elicitation_url_dialog" | "agent_needs_input" => (AgentStatus::Waiting, Cue::Plain),
            "idle_prompt" => {
                return Some(StatusEvent {
                    interrupted: true,
                    cue: Cue::IdleRescue,
                    message,
                    status: Some(AgentStatus::Done),
                    ..base
                })
            }
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(StatusEvent { status: Some(status), cue, message, ..base })
}

#[cfg(test)]
mod tests;
