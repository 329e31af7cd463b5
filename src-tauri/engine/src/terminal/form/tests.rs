//! The form read off real screens of Copilot CLI 1.0.102's `ask_user`
//! (`tests/fixtures/screens/copilot-cli-1.0.102/`, captured from its pane).

use super::*;
use switchboard_core::question::QuestionOption;

macro_rules! screen {
    ($name:literal) => {
        include_str!(concat!("../../../../../tests/fixtures/screens/copilot-cli-1.0.102/", $name, ".txt"))
    };
}

fn form() -> ArrowForm {
    switchboard_core::agent("copilot").and_then(|row| row.arrow_form).expect("Copilot's row reads its form")
}

fn question(text: &str, labels: &[&str]) -> Question {
    let options = labels.iter().map(|label| QuestionOption { label: (*label).into(), description: None }).collect();
    Question { header: None, question: text.into(), options, multi_select: false }
}

fn database() -> Question {
    question("Which database should I use?", &["PostgreSQL", "SQLite"])
}

fn moves(screen: &str, question: &Question, n: usize) -> Result<isize, FormError> {
    read(screen, &form()).and_then(|onscreen| onscreen.moves_to(question, n))
}

#[test]
fn the_cursor_and_the_options_are_read_off_the_form_as_drawn() {
    let onscreen = read(screen!("ask-user-cursor-on-first"), &form()).unwrap();
    let lines: Vec<(&str, bool)> = onscreen.lines.iter().map(|line| (line.label.as_str(), line.cursor)).collect();
    assert_eq!(lines, [("PostgreSQL", true), ("SQLite", false), ("Other (type your answer)", false)]);
}

#[test]
fn the_arrows_are_counted_from_wherever_the_cursor_is() {
    let asked = database();
    // As drawn: the cursor on the first option.
    assert_eq!(moves(screen!("ask-user-cursor-on-first"), &asked, 1), Ok(0));
    assert_eq!(moves(screen!("ask-user-cursor-on-first"), &asked, 2), Ok(1));
    // After one ↓ at the terminal: the cursor on the second.
    assert_eq!(moves(screen!("ask-user-cursor-on-second"), &asked, 1), Ok(-1));
    assert_eq!(moves(screen!("ask-user-cursor-on-second"), &asked, 2), Ok(0));
    // On the form's own "Other" line, with its answer box open below the hints.
    assert_eq!(moves(screen!("ask-user-cursor-on-other"), &asked, 1), Ok(-2));
    assert_eq!(moves(screen!("ask-user-cursor-on-other"), &asked, 2), Ok(-1));
}

#[test]
fn no_form_on_screen_is_refused() {
    // Answered: the question is in the history, the composer back at the bottom.
    assert_eq!(moves(screen!("ask-user-answered"), &database(), 1), Err(FormError::NotDrawn(String::new())));
}

#[test]
fn a_form_cut_off_by_the_panes_height_is_refused() {
    let many: Vec<String> = (1..=15).map(|n| format!("Choice number {n}")).collect();
    let many = question("Pick one of many?", &many.iter().map(String::as_str).collect::<Vec<_>>());
    // Its top (the question, the first option and the cursor on it) above the pane's first line.
    assert_eq!(moves(screen!("ask-user-cut-off-cursor-hidden"), &many, 2), Err(FormError::NoCursor(String::new())));
    // The cursor moved into sight, the first option still out of it.
    let cut = moves(screen!("ask-user-cut-off"), &many, 10);
    assert_eq!(cut, Err(FormError::NotShown { pane: String::new(), label: "Choice number 1".into() }));
}

#[test]
fn a_form_that_is_not_this_question_is_refused() {
    let screen = screen!("ask-user-cursor-on-first");
    let other = question("Which editor should I use?", &["PostgreSQL", "SQLite"]);
    assert!(matches!(moves(screen, &other, 2), Err(FormError::OtherQuestion { .. })));
    let unknown = question("Which database should I use?", &["PostgreSQL", "MySQL"]);
    assert_eq!(moves(screen, &unknown, 1), Err(FormError::NotShown { pane: String::new(), label: "MySQL".into() }));
    let reversed = question("Which database should I use?", &["SQLite", "PostgreSQL"]);
    assert_eq!(moves(screen, &reversed, 1), Err(FormError::OutOfOrder(String::new())));
}

#[test]
fn a_label_on_two_lines_is_ambiguous() {
    // The real form, one line edited: "SQLite" drawn twice.
    let twice = screen!("ask-user-cursor-on-first").replace("   Other (type your answer)", "   SQLite");
    let refused = moves(&twice, &database(), 2);
    assert_eq!(refused, Err(FormError::Ambiguous { pane: String::new(), label: "SQLite".into(), lines: 2 }));
}

#[test]
fn a_refusal_names_the_pane_and_says_nothing_was_typed() {
    let said = FormError::NoCursor(String::new()).in_pane("%7").to_string();
    assert!(said.contains("pane %7") && said.contains("nothing was typed"), "{said}");
}
