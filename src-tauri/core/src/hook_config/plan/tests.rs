use super::super::events_for;
use super::super::testing::{cli, install, PROGRAM};
use super::super::Version;
use super::*;

fn ours_in(settings: &Value, cli: Cli, event: &str) -> usize {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|group| group["hooks"].as_array())
        .flatten()
        .filter(|handler| is_ours(handler, cli))
        .count()
}

#[test]
fn fresh_settings_get_one_hook_per_event_with_the_cli_s_units() {
    let claude = install(&json!({}), cli("claude"));
    assert_eq!(claude.count(EditAction::Add), cli("claude").events().len());
    assert_eq!(
        claude.settings["hooks"]["PreToolUse"],
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": hook_command(PROGRAM, cli("claude")), "timeout": 3}]}])
    );
    assert_eq!(
        claude.settings["hooks"]["Stop"],
        json!([{"hooks": [{"type": "command", "command": hook_command(PROGRAM, cli("claude")), "timeout": 3}]}])
    );
    // The permission hook may be held for an answer from the board (issue 14): the CLI must
    // not kill it before the longest hold the settings allow.
    assert_eq!(claude.settings["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"], 130);
    // An install from before that is brought up to date.
    let mut older = claude.settings.clone();
    older["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"] = json!(3);
    let again = install(&older, cli("claude"));
    assert_eq!(again.count(EditAction::Update), 1);
    assert_eq!(again.settings, claude.settings);

    let codex = install(&json!({}), cli("codex"));
    assert_eq!(codex.settings.as_object().unwrap().keys().collect::<Vec<_>>(), ["hooks"]);
    assert_eq!(codex.settings["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"], 130);
    assert_eq!(
        codex.settings["hooks"]["PreToolUse"],
        json!([{"hooks": [{"type": "command", "command": hook_command(PROGRAM, cli("codex")), "timeout": 3}]}])
    );
    assert_eq!(codex.settings["hooks"].as_object().unwrap().keys().cloned().collect::<Vec<_>>(), cli("codex").events());

    let gemini = install(&json!({}), cli("gemini"));
    assert_eq!(
        gemini.settings["hooks"]["BeforeTool"],
        json!([{"matcher": "*", "hooks": [{
            "name": "switchboard", "type": "command", "command": hook_command(PROGRAM, cli("gemini")), "timeout": 3000
        }]}])
    );
    assert_eq!(gemini.settings["hooksConfig"], json!({"enabled": true}));
    for (cli, plan) in [(cli("claude"), &claude), (cli("codex"), &codex), (cli("gemini"), &gemini)] {
        for event in cli.events() {
            assert_eq!(ours_in(&plan.settings, cli, event), 1, "{cli:?} {event}");
        }
        let text = serde_json::to_string(&plan.settings).unwrap();
        assert!(!text.contains("async"), "{cli:?}");
    }
}

#[test]
fn installing_twice_changes_nothing_the_second_time() {
    for cli in Cli::all() {
        let once = install(&json!({"model": "x"}), cli);
        let twice = install(&once.settings, cli);
        assert!(!twice.changes(), "{cli:?}: {:?}", twice.edits);
        assert_eq!(twice.settings, once.settings);
    }
}

#[test]
fn user_keys_and_hooks_keep_their_content_and_order() {
    let settings = json!({
        "model": "opus",
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 30}]}
            ],
            "Custom": "left alone"
        },
        "permissions": {"allow": ["Bash(ls)"]}
    });
    let plan = install(&settings, cli("claude"));
    let root = plan.settings.as_object().unwrap();
    assert_eq!(root.keys().collect::<Vec<_>>(), ["model", "hooks", "permissions"]);
    let hooks = root["hooks"].as_object().unwrap();
    assert_eq!(hooks.keys().take(3).collect::<Vec<_>>(), ["Stop", "PreToolUse", "Custom"]);
    assert_eq!(hooks["Stop"][0], settings["hooks"]["Stop"][0]);
    assert_eq!(hooks["PreToolUse"][0], settings["hooks"]["PreToolUse"][0]);
    assert_eq!(hooks["Stop"].as_array().unwrap().len(), 2, "ours goes after the user's group");
    assert_eq!(hooks["Custom"], "left alone");
    assert_eq!(root["permissions"], settings["permissions"]);
}

#[test]
fn a_moved_binary_is_updated_in_place_and_duplicates_collapse() {
    let old = r#""/old/place/switchboard" hook claude"#;
    let settings = json!({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": old, "timeout": 60, "async": true}]},
        {"hooks": [{"type": "command", "command": "/old/place/switchboard hook claude"}]}
    ]}});
    let plan = install(&settings, cli("claude"));
    assert_eq!(
        plan.settings["hooks"]["Stop"],
        json!([{"hooks": [
            {"type": "command", "command": "say done"},
            {"type": "command", "command": hook_command(PROGRAM, cli("claude")), "timeout": 3}
        ]}])
    );
    assert_eq!(plan.count(EditAction::Update), 1);
    assert_eq!(plan.count(EditAction::Remove), 1);
}

#[test]
fn install_drops_our_hook_from_events_we_no_longer_register() {
    let settings = json!({"hooks": {
        "Setup": [{"hooks": [{"type": "command", "command": "/x/switchboard hook claude"}]}],
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": "mine"}]}]
    }});
    let plan = install(&settings, cli("claude"));
    let hooks = plan.settings["hooks"].as_object().unwrap();
    assert!(!hooks.contains_key("Setup"));
    assert_eq!(hooks["WorktreeCreate"], settings["hooks"]["WorktreeCreate"]);
}

#[test]
fn uninstall_removes_only_our_entries_and_what_it_emptied() {
    for cli in Cli::all() {
        let event = cli.events()[0];
        let mine = json!({"hooks": [{"type": "command", "command": "mine.sh"}]});
        let user = json!({"theme": "dark", "hooks": {event: [mine.clone()]}});
        let installed = install(&user, cli).settings;
        let plan = plan_uninstall(&installed, cli).unwrap();
        assert_eq!(plan.count(EditAction::Remove), cli.events().len(), "{cli:?}");
        let mut expected = user.clone();
        if cli.setup().switch_on.is_some() {
            // Enabling hooks is left as it is: the user's own hooks may need it.
            expected["hooksConfig"] = json!({"enabled": true});
        }
        if let Layout::Flat { version } = cli.setup().layout {
            // The file's version stays while hooks of the user's remain in it.
            expected["version"] = json!(version);
        }
        assert_eq!(plan.settings, expected, "{cli:?}");
        assert!(!plan_uninstall(&plan.settings, cli).unwrap().changes());
    }
}

#[test]
fn uninstall_keeps_a_group_that_still_holds_user_hooks() {
    let settings = json!({"hooks": {"Stop": [{"matcher": "", "hooks": [
        {"type": "command", "command": "/x/switchboard hook claude"},
        {"type": "command", "command": "mine.sh"}
    ]}]}});
    let plan = plan_uninstall(&settings, cli("claude")).unwrap();
    assert_eq!(
        plan.settings,
        json!({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "mine.sh"}]}]}})
    );
}

#[test]
fn uninstall_leaves_hooks_for_another_agent() {
    let codex_entry = json!({"hooks": [{"type": "command", "command": "/x/switchboard hook codex"}]});
    let mut settings = install(&json!({}), cli("claude")).settings;
    settings["hooks"]["Stop"].as_array_mut().unwrap().push(codex_entry.clone());
    let plan = plan_uninstall(&settings, cli("claude")).unwrap();
    assert_eq!(plan.settings, json!({"hooks": {"Stop": [codex_entry]}}));
}

#[test]
fn settings_without_room_for_a_hook_are_refused() {
    let cases =
        [(json!([]), ""), (json!({"hooks": []}), "hooks"), (json!({"hooks": {"Stop": {"hooks": []}}}), "hooks.Stop")];
    for (settings, at) in cases {
        assert_eq!(plan_install(&settings, cli("claude"), PROGRAM, cli("claude").events()).unwrap_err().at, at);
    }
    let error =
        plan_install(&json!({"hooksConfig": true}), cli("gemini"), PROGRAM, cli("gemini").events()).unwrap_err();
    assert_eq!(error.to_string(), "`hooksConfig` is not an object");
    assert!(plan_uninstall(&json!("x"), cli("codex")).is_err());
}

#[test]
fn edits_read_as_a_dry_run_would_print_them() {
    let plan = install(&json!({}), cli("gemini"));
    let last = plan.edits.last().unwrap().to_string();
    assert_eq!(last, "+ hooksConfig.enabled: true");
    assert!(plan.edits[0].to_string().starts_with("+ hooks.BeforeAgent: {\"hooks\":"));
    let command = hook_command(PROGRAM, cli("gemini"));
    assert_eq!((plan.edits[0].event(), plan.edits[0].command()), (Some("BeforeAgent"), Some(command.as_str())));
    assert_eq!((plan.edits.last().unwrap().event(), plan.edits.last().unwrap().command()), (None, None));
    let removed = plan_uninstall(&plan.settings, cli("gemini")).unwrap();
    assert_eq!(removed.edits[0].command(), Some(command.as_str()), "a removed handler's command");
}

#[test]
fn installing_for_an_older_claude_code_takes_out_an_event_a_newer_one_had() {
    let old = events_for(cli("claude"), Some(Version(2, 1, 77)));
    let newer = install(&json!({}), cli("claude")).settings;
    let plan = plan_install(&newer, cli("claude"), PROGRAM, &old).unwrap();
    assert!(!plan.settings["hooks"].as_object().unwrap().contains_key("StopFailure"));
    assert_eq!(
        plan.edits,
        [Edit::hook(EditAction::Remove, "StopFailure", newer["hooks"]["StopFailure"][0]["hooks"][0].clone())]
    );
}
