use super::*;
use switchboard_core::question::{Question, QuestionOption};

fn asking(agent: &str) -> Session {
    let option = |label: &str| QuestionOption { label: label.into(), description: None };
    let event = switchboard_core::normalize("custom", &serde_json::json!({"sessionId": "s", "status": "waiting"}), 1);
    let mut session = switchboard_core::Reducer::new().apply(&event.unwrap(), false).unwrap().session;
    session.agent = agent.into();
    session.status = Some(AgentStatus::Waiting);
    session.awaiting_input = true;
    session.questions = vec![Question {
        header: None,
        question: "Which database?".into(),
        options: vec![option("PostgreSQL"), option("SQLite")],
        multi_select: false,
    }];
    session
}

#[test]
fn a_reply_is_one_line_without_escape_sequences() {
    assert_eq!(one_line("  fix\u{1b}[31m it\r\n\n now  ").as_deref(), Some("fix it now"));
    assert_eq!(one_line("\u{1b}]0;title\u{7}\n \t"), None, "nothing printable is no reply");
}

#[test]
fn an_option_is_its_digit_or_the_arrows_on_a_form_the_row_can_read() {
    assert!(matches!(keys_for(&asking("qwen"), &Answer::Option(2)), Ok(Keys::Digit(d)) if d == "2"));
    let copilot = switchboard_core::agent("copilot").and_then(|row| row.arrow_form.as_ref());
    let Ok(Keys::Arrows(form, 2)) = keys_for(&asking("copilot"), &Answer::Option(2)) else {
        panic!("Copilot CLI's option 2 is not picked with the arrows")
    };
    assert_eq!(Some(form), copilot);
    assert!(matches!(keys_for(&asking("copilot"), &Answer::Option(3)), Err(AnswerError::NoSuchOption(2, 3))));
}

#[test]
fn a_form_that_picks_by_arrows_with_no_way_to_read_it_is_refused() {
    use switchboard_core::agent::{Agent, Typing};
    let unread: &'static Agent = Box::leak(Box::new(Agent {
        name: "Arrow CLI",
        typing: Typing { prompts: &[], enter_after_ms: 0, pasted: None, options_by_digit: false },
        ..Agent::BASE
    }));
    let Err(refused) = option_keys(Some(unread), 2, 2) else { panic!("typed where the form cannot be read") };
    assert_eq!(refused, AnswerError::OptionsByArrows("Arrow CLI"));
    assert!(refused.to_string().contains("answer it in its terminal"), "{refused}");
}

#[test]
fn a_session_its_cli_runs_in_the_background_is_refused_with_the_command_that_opens_it() {
    let mut session = asking("claude");
    session.background = Some("claude attach 8215c735".into());
    let refused = tied_pane(&session).unwrap_err();
    assert!(matches!(&refused, AnswerError::Background(attach) if attach == "claude attach 8215c735"));
    assert!(refused.to_string().contains("no terminal of its own: `claude attach 8215c735` opens it in one"));
    let jumped = crate::instance::act::jump::jump(&session);
    assert_eq!(jumped, crate::instance::act::jump::Jump::Resume { command: "claude attach 8215c735".into() });
}
