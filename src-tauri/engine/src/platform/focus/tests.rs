use super::*;

#[test]
fn terminal_app_is_named_by_term_program() {
    assert_eq!(TerminalApp::from_term_program("Apple_Terminal"), Some(TerminalApp::AppleTerminal));
    assert_eq!(TerminalApp::from_term_program("iTerm.app"), Some(TerminalApp::ITerm2));
    assert_eq!(TerminalApp::from_term_program("WezTerm"), None);
    assert_eq!(TerminalApp::from_term_program("tmux"), None);
}

#[test]
fn terminal_app_selects_the_tab_with_the_agents_tty() {
    let script = apple_script(TerminalApp::AppleTerminal, "/dev/ttys003").unwrap();
    assert_eq!(
        script,
        "tell application \"Terminal\"\n\
         \trepeat with w in windows\n\
         \t\trepeat with t in tabs of w\n\
         \t\t\tif tty of t is \"/dev/ttys003\" then\n\
         \t\t\t\tset selected of t to true\n\
         \t\t\t\tset index of w to 1\n\
         \t\t\t\tactivate\n\
         \t\t\t\treturn \"found\"\n\
         \t\t\tend if\n\
         \t\tend repeat\n\
         \tend repeat\n\
         end tell\n\
         return \"absent\""
    );
}

#[test]
fn iterm2_selects_the_window_tab_and_session_with_the_agents_tty() {
    let script = apple_script(TerminalApp::ITerm2, "/dev/ttys012").unwrap();
    assert_eq!(
        script,
        "tell application \"iTerm2\"\n\
         \trepeat with w in windows\n\
         \t\trepeat with t in tabs of w\n\
         \t\t\trepeat with s in sessions of t\n\
         \t\t\t\tif tty of s is \"/dev/ttys012\" then\n\
         \t\t\t\t\tselect w\n\
         \t\t\t\t\tselect t\n\
         \t\t\t\t\tselect s\n\
         \t\t\t\t\tactivate\n\
         \t\t\t\t\treturn \"found\"\n\
         \t\t\t\tend if\n\
         \t\t\tend repeat\n\
         \t\tend repeat\n\
         \tend repeat\n\
         end tell\n\
         return \"absent\""
    );
}

#[test]
fn nothing_but_a_plain_device_path_goes_into_a_script() {
    for tty in ["ttys003", "/dev/ttys003\" then do shell script \"rm -rf ~", "/dev/tty s1", "", "/dev/ttys003\n"] {
        assert_eq!(apple_script(TerminalApp::AppleTerminal, tty), None, "{tty:?}");
        assert_eq!(apple_script(TerminalApp::ITerm2, tty), None, "{tty:?}");
    }
}

#[test]
fn off_a_mac_no_terminal_tab_is_looked_for() {
    // Linux: X11 windows are the jump's own; a Mac's terminal named here is not this machine's.
    assert_eq!(focus_tab(Some("Apple_Terminal"), Some("/dev/ttys003")), Ok(false));
    assert_eq!(focus_tab(None, Some("/dev/pts/3")), Ok(false));
}
