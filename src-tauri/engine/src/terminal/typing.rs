//! Typing a line into an agent's composer as its CLI takes input (issue 33): the text as literal
//! keys, then — once the TUI has drawn it, and past its paste-burst window — Enter. Text followed
//! at once by Enter reads as a paste to Codex and Gemini CLI, which then swallow the Enter.
//!
//! A composer that already holds the user's unsent draft is never appended to or wiped: the line
//! the typed text lands on is read back before Enter, and when anything but the composer's prompt
//! sits before or after it, exactly the typed characters are erased again (Backspace, once per
//! character) and the reply is refused with the draft quoted. The draft stays as it was.

use std::time::{Duration, Instant};

use switchboard_core::agent::Typing;

use super::{tmux, Pane};

/// How long the TUI may take to draw what was typed.
const DRAW_WITHIN: Duration = Duration::from_secs(4);
/// How much of the text's start is looked for on screen (a TUI may wrap the rest).
const HEAD_CHARS: usize = 16;

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum TypingError {
    #[error("its composer in pane {pane} holds text not sent yet (\"{draft}\"): nothing was sent, your draft is left as it was — send or clear it there first")]
    Draft { pane: String, draft: String },
    #[error("typing into pane {0} failed (tmux did not take the keys)")]
    Failed(String),
    #[error(
        "pane {0} did not show the reply after it was typed, so Enter was not pressed: the text may be in its composer"
    )]
    NotDrawn(String),
}

/// Types `text` (one line, no control characters) into the pane's composer, then Enter.
pub fn type_line(pane: &Pane, text: &str, typing: &Typing) -> Result<(), TypingError> {
    let socket = pane.socket();
    if !tmux::type_literally(socket, &pane.id, text) {
        return Err(TypingError::Failed(pane.id.clone()));
    }
    let started = Instant::now();
    let drawn = loop {
        if let Some(found) = tmux::capture(socket, &pane.id, 0).and_then(|screen| read_back(&screen, text, typing)) {
            break found;
        }
        if started.elapsed() > DRAW_WITHIN {
            return Err(TypingError::NotDrawn(pane.id.clone()));
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    if let Composer::Draft(draft) = drawn {
        tmux::press(socket, &pane.id, "BSpace", text.chars().count());
        return Err(TypingError::Draft { pane: pane.id.clone(), draft });
    }
    std::thread::sleep(Duration::from_millis(typing.enter_after_ms));
    if !tmux::press(socket, &pane.id, "Enter", 1) {
        return Err(TypingError::Failed(pane.id.clone()));
    }
    Ok(())
}

/// How long a question's dialog may take to be drawn and to stop changing before its option is
/// typed anyway (a spinner elsewhere on screen never lets it stand still).
const SETTLE_WITHIN: Duration = Duration::from_secs(3);
/// How long the screen must stay the same, the option on it, before the dialog takes keys.
const SETTLED_FOR: Duration = Duration::from_millis(250);

/// Waits until the pane shows `option` and its screen has stopped changing (issue 46): a key
/// typed the instant a dialog is drawn, before the TUI listens to it, is lost — so the option is
/// typed once, when the dialog stands still, not again when it was not taken. `false` when the
/// screen never settled within [`SETTLE_WITHIN`] (the caller types all the same).
pub fn await_settled(pane: &Pane, option: &str) -> bool {
    let head: String = option.trim().chars().take(HEAD_CHARS).collect();
    let started = Instant::now();
    let mut last: Option<(String, Instant)> = None;
    while started.elapsed() < SETTLE_WITHIN {
        let Some(screen) = tmux::capture(pane.socket(), &pane.id, 0) else { return false };
        let now = Instant::now();
        match &last {
            Some((seen, since)) if *seen == screen => {
                if screen.contains(&head) && now.duration_since(*since) >= SETTLED_FOR {
                    return true;
                }
            }
            _ => last = Some((screen, now)),
        }
        std::thread::sleep(Duration::from_millis(40));
    }
    false
}

/// What the composer's line holds beside the typed text.
#[derive(Debug, PartialEq, Eq)]
pub enum Composer {
    /// The typed text alone, after the composer's prompt.
    Alone,
    /// Something else the user left there.
    Draft(String),
}

/// Finds the typed text on the screen (its start, on the lowest line that shows it: composers sit
/// at the bottom) — or the CLI's placeholder for a long text it took as a paste — and reads what
/// else its line holds; `None` while it is not drawn.
pub fn read_back(screen: &str, text: &str, typing: &Typing) -> Option<Composer> {
    let head: String = text.chars().take(HEAD_CHARS).collect();
    let head = head.trim_end();
    if head.is_empty() {
        return None;
    }
    let found = screen.lines().rev().find(|line| line.contains(head)).map(|line| (line, head));
    let found = found.or_else(|| {
        let pasted = typing.pasted?;
        screen.lines().rev().find(|line| line.contains(pasted)).map(|line| (line, pasted))
    });
    let (line, head) = found?;
    let at = line.rfind(head)?;
    let before = strip_prompt(&line[..at], typing.prompts);
    let after = match line[at..].strip_prefix(text) {
        Some(rest) => strip_border(rest),
        // Wrapped by the TUI, or drawn as a paste: what follows is the text's own.
        None => "",
    };
    let draft = [before, after].iter().filter(|part| !part.is_empty()).copied().collect::<Vec<_>>().join(" … ");
    Some(if draft.is_empty() { Composer::Alone } else { Composer::Draft(draft) })
}

/// A box's border, blank space, or a character that draws nothing (Qwen Code draws its cursor
/// cell as a zero-width space after the text): never a user's draft.
fn is_border(c: char) -> bool {
    c.is_whitespace()
        || matches!(c, '│' | '┃' | '║' | '|' | '╭' | '╮' | '╰' | '╯' | '▌' | '▐')
        || matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}')
}

fn strip_border(text: &str) -> &str {
    text.trim_matches(is_border)
}

/// What sits before the typed text, past the box border and one of the composer's prompts.
fn strip_prompt<'a>(text: &'a str, prompts: &[&str]) -> &'a str {
    let text = strip_border(text);
    prompts.iter().find_map(|prompt| text.strip_prefix(prompt)).map_or(text, strip_border)
}

#[cfg(test)]
mod tests {
    /// A pane on a tmux server of the test's own, running `script`.
    struct Tmux {
        socket: tempfile::TempDir,
        pane: Pane,
    }

    impl Tmux {
        fn run(script: &str) -> Self {
            let socket = tempfile::tempdir().unwrap();
            let path = socket.path().join("tmux");
            let started = std::process::Command::new("tmux")
                .arg("-S")
                .arg(&path)
                .args([
                    "-f",
                    "/dev/null",
                    "new-session",
                    "-d",
                    "-x",
                    "80",
                    "-y",
                    "20",
                    "-P",
                    "-F",
                    "#{pane_id}",
                    "sh",
                    "-c",
                ])
                .arg(script)
                .output()
                .expect("tmux (package tmux)");
            let id = String::from_utf8_lossy(&started.stdout).trim().to_owned();
            assert!(id.starts_with('%'), "{started:?}");
            Self { pane: Pane { id, socket: Some(path) }, socket }
        }
    }

    impl Drop for Tmux {
        fn drop(&mut self) {
            let _ = std::process::Command::new("tmux")
                .arg("-S")
                .arg(self.socket.path().join("tmux"))
                .arg("kill-server")
                .status();
        }
    }

    /// Issue 46: the option is typed once the dialog stands still with the option on it — not
    /// while it is being drawn, and never again.
    #[test]
    fn an_option_waits_for_its_dialog_to_be_drawn_and_still() {
        let dialog = Tmux::run("sleep 0.6; printf 'Which color?\\n  1. Red\\n  2. Blue\\n'; sleep 60");
        assert!(await_settled(&dialog.pane, "Blue"));
        let screen = tmux::capture(dialog.pane.socket(), &dialog.pane.id, 0).unwrap();
        assert!(screen.contains("2. Blue"), "typed only once the option is on screen: {screen}");
        // A screen that never stands still: given up on (the option is typed all the same).
        let busy = Tmux::run("while true; do date +%N; sleep 0.05; done");
        assert!(!await_settled(&busy.pane, "Blue"));
    }

    use super::*;

    const TYPING: Typing =
        Typing {
            prompts: &[">", "›", "❯"], enter_after_ms: 0, pasted: Some("[Pasted text"), options_by_digit: true
        };

    #[test]
    fn the_typed_text_alone_after_the_prompt_is_ready_to_send() {
        let screen = "│ > earlier: say hello              │\n\n› say hello\n\n  ? for shortcuts\n";
        assert_eq!(read_back(screen, "say hello", &TYPING), Some(Composer::Alone));
        let boxed = "╭──────╮\n│ > fix the tests   │\n╰──────╯";
        assert_eq!(read_back(boxed, "fix the tests", &TYPING), Some(Composer::Alone));
        assert_eq!(read_back("> \n", "fix the tests", &TYPING), None, "not drawn yet");
    }

    #[test]
    fn a_draft_before_or_after_the_typed_text_is_found() {
        let screen = "› draft words say hello\n  ? for shortcuts";
        assert_eq!(read_back(screen, "say hello", &TYPING), Some(Composer::Draft("draft words".into())));
        let after = "│ > say hellodraft words │";
        assert_eq!(read_back(after, "say hello", &TYPING), Some(Composer::Draft("draft words".into())));
    }

    #[test]
    fn a_long_text_wrapped_by_the_tui_is_found_by_its_start() {
        let text = "please run the whole test suite and then summarise what failed";
        let screen = "> please run the whole test suite and th\n  en summarise what failed\n";
        assert_eq!(read_back(screen, text, &TYPING), Some(Composer::Alone));
        let pasted = "❯\u{a0}[Pasted text #2 +12 lines]\n  ⏸ manual mode on";
        assert_eq!(read_back(pasted, text, &TYPING), Some(Composer::Alone), "a long text drawn as a paste");
        let merged = "❯\u{a0}draft [Pasted text #2 +12 lines]";
        assert_eq!(read_back(merged, text, &TYPING), Some(Composer::Draft("draft".into())));
    }

    #[test]
    fn claude_codex_and_gemini_composers_as_drawn() {
        // As captured from the real CLIs (Claude's prompt is followed by a no-break space).
        assert_eq!(read_back("❯\u{a0}say hello\n", "say hello", &TYPING), Some(Composer::Alone));
        assert_eq!(read_back("› say hello\n\n", "say hello", &TYPING), Some(Composer::Alone));
        assert_eq!(read_back(" > say hello\n", "say hello", &TYPING), Some(Composer::Alone));
        // Gemini's multi-line draft: the typed text lands on its last line.
        let gemini = " > first line\n   second say hello\n";
        assert_eq!(read_back(gemini, "say hello", &TYPING), Some(Composer::Draft("second".into())));
        // Qwen Code's cursor cell, a zero-width space after the text, is not a draft.
        assert_eq!(read_back(">   say hello\u{200b}\n", "say hello", &TYPING), Some(Composer::Alone));
        // Shell mode (`!`) is never a place to type a reply into.
        assert_eq!(read_back("!\u{a0}say hello", "say hello", &TYPING), Some(Composer::Draft("!".into())));
    }
}
