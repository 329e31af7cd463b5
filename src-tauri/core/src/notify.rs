//! The notify policy (SPEC 2.3): the one function that decides whether a transition deserves
//! the user's attention.

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
