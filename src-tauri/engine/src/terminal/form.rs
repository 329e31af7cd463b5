//! A question form that picks with ↑/↓ from wherever its cursor is (issue 48: Copilot CLI's
//! `ask_user`), answered from the board: its screen is read to find the cursor's line and the
//! wanted option's line, the arrows between them are pressed, and Enter only once the screen
//! shows the cursor on that option. A form that cannot be read for certain — not drawn, cut
//! off, an option on no line or on two — is refused before any key is pressed.
//!
//! How the form is read is its CLI's row ([`ArrowForm`]): the option lines sit just above its
//! line of key hints, blank lines between; the cursor's line starts with the cursor mark, the
//! others are indented to the same column. The form may add lines of its own ("Other (type your
//! answer)"): the arrows are counted between option lines, not screen rows.

use std::time::{Duration, Instant};

use switchboard_core::agent::ArrowForm;
use switchboard_core::question::Question;

use super::{tmux, typing, Pane};

/// How long the form may take to draw the cursor where the arrows moved it.
const MOVED_WITHIN: Duration = Duration::from_secs(3);
/// How much of the question's start is looked for above the options (the form may wrap it).
const HEAD_CHARS: usize = 16;

/// Why an option was not picked on the form.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum FormError {
    #[error("its question form is not on screen in pane {0} (not drawn yet, or closed): nothing was typed")]
    NotDrawn(String),
    #[error("its question form's cursor is not on screen in pane {0} (the form is cut off by the pane's height): nothing was typed; answer it in its terminal (Jump)")]
    NoCursor(String),
    #[error("the form in pane {pane} does not show this question (\"{question}\"): it may be cut off or another form, so nothing was typed; answer it in its terminal (Jump)")]
    OtherQuestion { pane: String, question: String },
    #[error("option \"{label}\" is not on its form's screen in pane {pane} (cut off, or drawn over several lines): nothing was typed; answer it in its terminal (Jump)")]
    NotShown { pane: String, label: String },
    #[error("option \"{label}\" is on {lines} lines of its form in pane {pane}: which one is meant cannot be told, so nothing was typed; answer it in its terminal (Jump)")]
    Ambiguous { pane: String, label: String, lines: usize },
    #[error("its form in pane {0} does not list the question's options one after another as asked: nothing was typed; answer it in its terminal (Jump)")]
    OutOfOrder(String),
    #[error("typing into pane {0} failed (tmux did not take the keys)")]
    Failed(String),
    #[error("the arrows were pressed in pane {pane} but its form's cursor did not reach \"{label}\", so Enter was not pressed: nothing was chosen; answer it in its terminal (Jump)")]
    NotMoved { pane: String, label: String },
}

/// One option line of the form on screen: its label, and whether the cursor is on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub label: String,
    pub cursor: bool,
}

/// The form's lines as the screen shows them, top to bottom, and the text above them.
#[derive(Debug, PartialEq, Eq)]
pub struct Onscreen {
    pub lines: Vec<Line>,
    above: Vec<String>,
}

/// Reads the form off `screen`: its lowest line of key hints, the option lines just above it.
/// `Err` says what cannot be read (pane id blank: the caller fills it in).
pub fn read(screen: &str, form: &ArrowForm) -> Result<Onscreen, FormError> {
    let rows: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let hints = rows.iter().rposition(|row| row.contains(form.hints)).ok_or(FormError::NotDrawn(String::new()))?;
    let mut end = hints;
    while end > 0 && rows[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && !rows[start - 1].trim().is_empty() {
        start -= 1;
    }
    let block = &rows[start..end];
    // The cursor's line gives the column every option's label starts at.
    let column = block
        .iter()
        .rev()
        .find_map(|row| {
            let indent = row.len() - row.trim_start().len();
            let label = row.trim_start().strip_prefix(form.cursor)?;
            let gap = label.len() - label.trim_start().len();
            Some(row[..indent].chars().count() + form.cursor.chars().count() + gap)
        })
        .ok_or(FormError::NoCursor(String::new()))?;
    // From the bottom up, the option lines: the cursor's, or indented to its label's column.
    // The first line that is neither (the field's title, the question) ends the list.
    let mut lines = Vec::new();
    let mut top = end;
    for (at, row) in block.iter().enumerate().rev() {
        let label = match row.trim_start().strip_prefix(form.cursor) {
            Some(label) => Line { label: label.trim().to_owned(), cursor: true },
            None => {
                let indent = row.chars().take_while(|c| c.is_whitespace()).count();
                if indent < column {
                    break;
                }
                // Deeper: the rest of a wrapped label, a description — part of the line above.
                if indent > column {
                    top = start + at;
                    continue;
                }
                Line { label: row.trim().to_owned(), cursor: false }
            }
        };
        lines.push(label);
        top = start + at;
    }
    lines.reverse();
    let above = rows[..top].iter().rev().take_while(|row| !row.trim_start().starts_with('─'));
    Ok(Onscreen { lines, above: above.map(|row| row.to_string()).collect() })
}

impl Onscreen {
    /// How many lines the cursor must move to reach option `n` (from 1) of `question`: down
    /// when positive. Only when the form shows each of the question's options on exactly one
    /// line, in order, one after another, the question above them, and the cursor on one line.
    pub fn moves_to(&self, question: &Question, n: usize) -> Result<isize, FormError> {
        let pane = String::new();
        let mut found = Vec::with_capacity(question.options.len());
        for option in &question.options {
            let label = option.label.trim();
            let at: Vec<usize> = (0..self.lines.len()).filter(|&i| self.lines[i].label == label).collect();
            match at.as_slice() {
                [one] => found.push(*one),
                [] => return Err(FormError::NotShown { pane, label: label.to_owned() }),
                many => return Err(FormError::Ambiguous { pane, label: label.to_owned(), lines: many.len() }),
            }
        }
        if found.windows(2).any(|pair| pair[1] != pair[0] + 1) {
            return Err(FormError::OutOfOrder(pane));
        }
        let head: String = question.question.trim().chars().take(HEAD_CHARS).collect();
        if !self.above.iter().any(|row| row.contains(head.trim())) {
            let question = question.question.clone();
            return Err(FormError::OtherQuestion { pane, question });
        }
        let cursors: Vec<usize> = (0..self.lines.len()).filter(|&i| self.lines[i].cursor).collect();
        let [cursor] = cursors.as_slice() else { return Err(FormError::NoCursor(pane)) };
        let target = *found.get(n.wrapping_sub(1)).ok_or(FormError::OutOfOrder(pane))?;
        Ok(target as isize - *cursor as isize)
    }
}

/// The moves from the cursor to option `n` on the pane's screen now, the pane named in a refusal.
fn moves_on(pane: &Pane, form: &ArrowForm, question: &Question, n: usize) -> Result<isize, FormError> {
    let screen = tmux::capture(pane.socket(), &pane.id, 0).ok_or_else(|| FormError::Failed(pane.id.clone()))?;
    read(&screen, form).and_then(|onscreen| onscreen.moves_to(question, n)).map_err(|error| error.in_pane(&pane.id))
}

impl FormError {
    fn in_pane(self, id: &str) -> Self {
        let pane = id.to_owned();
        match self {
            Self::NotDrawn(_) => Self::NotDrawn(pane),
            Self::NoCursor(_) => Self::NoCursor(pane),
            Self::OtherQuestion { question, .. } => Self::OtherQuestion { pane, question },
            Self::NotShown { label, .. } => Self::NotShown { pane, label },
            Self::Ambiguous { label, lines, .. } => Self::Ambiguous { pane, label, lines },
            Self::OutOfOrder(_) => Self::OutOfOrder(pane),
            Self::Failed(_) => Self::Failed(pane),
            Self::NotMoved { label, .. } => Self::NotMoved { pane, label },
        }
    }
}

/// Picks option `n` (from 1) of `question` on the pane's form: once the form stands still, the
/// arrows from its cursor to the option, then — once the cursor is seen there — Enter. The keys
/// as a user would read them (`↓ ↓ Enter`), or why nothing was chosen.
pub fn pick(pane: &Pane, form: &ArrowForm, question: &Question, n: usize) -> Result<String, FormError> {
    let label = question.options.get(n.wrapping_sub(1)).map_or("", |option| option.label.as_str());
    typing::await_settled(pane, label);
    let moves = moves_on(pane, form, question, n)?;
    let (key, mark) = if moves < 0 { ("Up", "↑") } else { ("Down", "↓") };
    let steps = moves.unsigned_abs();
    if steps > 0 && !tmux::press(pane.socket(), &pane.id, key, steps) {
        return Err(FormError::Failed(pane.id.clone()));
    }
    let started = Instant::now();
    while moves_on(pane, form, question, n) != Ok(0) {
        if started.elapsed() > MOVED_WITHIN {
            return Err(FormError::NotMoved { pane: pane.id.clone(), label: label.to_owned() });
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    if !tmux::press(pane.socket(), &pane.id, "Enter", 1) {
        return Err(FormError::Failed(pane.id.clone()));
    }
    Ok(std::iter::repeat_n(mark, steps).chain(["Enter"]).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests;
