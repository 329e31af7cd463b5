//! The notify policy (docs/model.md §2.3): the one function that decides whether a transition
//! deserves the user's attention.

use crate::status::AgentStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotifyContext {
    pub known_session: bool,
    pub window_focused: bool,
}

/// True only for a known session, an unfocused window, a terminal `next`, and a real change
/// (`prev` is `None` for a session's first status, so a first terminal event notifies).
pub fn should_notify(prev: Option<AgentStatus>, next: AgentStatus, ctx: NotifyContext) -> bool {
    ctx.known_session && !ctx.window_focused && next.is_terminal() && prev != Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentStatus::*;

    const UNFOCUSED: NotifyContext = NotifyContext { known_session: true, window_focused: false };

    #[test]
    fn a_change_into_a_terminal_status_notifies_when_unfocused() {
        assert!(should_notify(Some(Working), Done, UNFOCUSED));
        assert!(should_notify(Some(Working), Blocked, UNFOCUSED));
        assert!(should_notify(Some(Blocked), Waiting, UNFOCUSED));
    }

    #[test]
    fn a_first_event_that_is_already_terminal_notifies() {
        assert!(should_notify(None, Waiting, UNFOCUSED));
    }

    #[test]
    fn a_repeat_of_the_same_terminal_status_is_suppressed() {
        assert!(!should_notify(Some(Done), Done, UNFOCUSED));
        assert!(!should_notify(Some(Blocked), Blocked, UNFOCUSED));
    }

    #[test]
    fn working_transitions_never_notify() {
        assert!(!should_notify(Some(Done), Working, UNFOCUSED));
        assert!(!should_notify(None, Working, UNFOCUSED));
    }

    #[test]
    fn a_focused_window_suppresses_notifications() {
        let focused = NotifyContext { window_focused: true, ..UNFOCUSED };
        assert!(!should_notify(Some(Working), Done, focused));
    }

    #[test]
    fn an_unknown_session_never_notifies() {
        let unknown = NotifyContext { known_session: false, ..UNFOCUSED };
        assert!(!should_notify(Some(Working), Blocked, unknown));
    }
}

/// Whether a notification's body shows the permission's whole command (whitespace collapsed as
/// the body collapses it): only then may the notification offer Allow (issue 33.3).
pub fn body_shows_command(session: &crate::session::Session, body: &str) -> bool {
    match &session.command {
        Some(command) => body.contains(&command.split_whitespace().collect::<Vec<_>>().join(" ")),
        None => !body.ends_with('…'),
    }
}

/// The words of an OS notification for a session that needs the user (docs/model.md §4): the title names
/// the session and the reason, the body says what exactly, whitespace-collapsed and clipped.
pub fn notification_text(session: &crate::session::Session) -> Option<NotificationText> {
    const BODY_CHARS: usize = 180;
    let name = session.title.clone().unwrap_or_else(|| crate::view::short_id(&session.session_id));
    let detail = match session.status? {
        AgentStatus::Working => return None,
        AgentStatus::Blocked => match (&session.tool, &session.message) {
            (Some(tool), Some(message)) => format!("{tool}: {message}"),
            (Some(tool), None) => tool.clone(),
            (None, message) => message.clone().unwrap_or_default(),
        },
        AgentStatus::Waiting => session.question.clone().or_else(|| session.message.clone()).unwrap_or_default(),
        AgentStatus::Done => session.message.clone().unwrap_or_default(),
    };
    // An interrupted turn never notifies (docs/model.md §2.1, rule 5); its words are the
    // plain "finished".
    let reason = if session.interrupted && !session.errored { "finished" } else { crate::view::reason(session)? };
    Some(NotificationText { summary: format!("{name} — {reason}"), body: crate::view::clip(&detail, BODY_CHARS) })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotificationText {
    pub summary: String,
    pub body: String,
}

#[cfg(test)]
mod text_tests {
    use super::*;
    use crate::reducer::Reducer;
    use serde_json::json;

    fn session(body: serde_json::Value) -> crate::session::Session {
        let mut reducer = Reducer::new();
        let event = crate::agent::normalize("custom", &body, 1).unwrap();
        reducer.apply(&event, false).unwrap().session
    }

    #[test]
    fn a_blocked_session_says_needs_permission_with_the_command() {
        let s = session(
            json!({"sessionId": "s", "status": "blocked", "title": "auth-refactor", "tool": "Bash", "message": "rm -rf dist"}),
        );
        let text = notification_text(&s).unwrap();
        assert_eq!(text.summary, "auth-refactor — needs permission");
        assert_eq!(text.body, "Bash: rm -rf dist");
    }

    #[test]
    fn a_question_finished_and_failed_turn_each_say_why() {
        let q = session(json!({"sessionId": "s", "cwd": "/src/api", "question": "Deploy  to\nprod?"}));
        assert_eq!(
            notification_text(&q).unwrap(),
            NotificationText { summary: "api — has a question".into(), body: "Deploy to prod?".into() }
        );
        let done = session(json!({"sessionId": "s", "status": "done", "title": "t", "message": "All green"}));
        assert_eq!(notification_text(&done).unwrap().summary, "t — finished");
        let failed = session(
            json!({"sessionId": "s", "status": "done", "errored": true, "title": "t", "message": "rate_limit"}),
        );
        assert_eq!(notification_text(&failed).unwrap().summary, "t — failed");
    }

    #[test]
    fn allow_is_offered_only_when_the_body_shows_the_whole_command() {
        let mut session = session(json!({"sessionId": "s", "status": "blocked", "tool": "Bash"}));
        session.command = Some("rm -rf build".into());
        session.message = Some("rm -rf build".into());
        let body = notification_text(&session).unwrap().body;
        assert!(body_shows_command(&session, &body), "{body}");
        let long = format!("rm -rf build && {} && psql -c \"DROP TABLE users\"", "echo step ".repeat(30));
        session.command = Some(long.clone());
        session.message = Some(long);
        let body = notification_text(&session).unwrap().body;
        assert!(!body_shows_command(&session, &body), "its dangerous end is clipped off: {body}");
    }

    #[test]
    fn the_body_is_clipped_to_180_characters() {
        let s = session(json!({"sessionId": "s", "status": "done", "message": "word ".repeat(20_000)}));
        let text = notification_text(&s).unwrap();
        assert_eq!(text.body.chars().count(), 180);
        assert!(text.body.ends_with('…'));
    }

    #[test]
    fn working_has_no_notification_text() {
        assert_eq!(notification_text(&session(json!({"sessionId": "s", "status": "working"}))), None);
    }
}
