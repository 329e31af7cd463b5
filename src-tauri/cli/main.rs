//! The `switchboard` binary: the headless commands (`hook`, `serve`, `status`, `install`), and
//! the launcher of the desktop app.
//!
//! It deliberately does not link Tauri: `switchboard hook` runs on every tool call of every
//! agent, and loading GTK and WebKit's ~170 shared libraries costs ~90 ms a call here. With no
//! subcommand it replaces itself with `switchboard-app`, the window, which sits beside it.

use std::path::PathBuf;
use std::process::ExitCode;
use switchboard_engine::client::act::Said;

use clap::Parser;
use switchboard_engine::api;
// A field from outside (a title, a command, a box's words) is one line before it is composed.
use switchboard_engine::text::printable_line;

/// The one door to the terminal (issue 45): every byte a command prints — its own words and
/// every field from outside in them — passes the sanitiser (`text::printable`) on its way out;
/// JSON passes `text::json_safe` instead, which keeps its meaning. Nothing here prints otherwise.
mod door {
    use std::io::Write;

    pub fn out(text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(switchboard_engine::text::printable(text).as_bytes());
        let _ = stdout.flush();
    }

    pub fn err(text: &str) {
        let _ = std::io::stderr().lock().write_all(switchboard_engine::text::printable(text).as_bytes());
    }

    /// JSON text on stdout, with the controls serde leaves raw written as `\uXXXX`.
    pub fn json(text: &str) {
        out_raw(&format!("{}\n", switchboard_engine::text::json_safe(text)));
    }

    fn out_raw(text: &str) {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
}

macro_rules! out {
    ($($arg:tt)*) => { door::out(&format!($($arg)*)) };
}
macro_rules! outln {
    ($($arg:tt)*) => { door::out(&format!("{}\n", format_args!($($arg)*))) };
}
macro_rules! errln {
    ($($arg:tt)*) => { door::err(&format!("{}\n", format_args!($($arg)*))) };
}

mod args;

use args::{Cli, Command, RemoteCommand, VerdictArg};

fn main() -> ExitCode {
    // The hook path runs on every tool call of every agent: answer it before anything else, and
    // never fail it (not even on a missing argument).
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|arg| arg == "hook") {
        let agent = args.next().and_then(|a| a.into_string().ok()).unwrap_or_default();
        switchboard_engine::hook::run(&agent);
        return ExitCode::SUCCESS;
    }
    let cli = Cli::parse();
    switchboard_engine::init_tracing();
    let result = match cli.command {
        None => launch_app(),
        Some(Command::Hook { .. }) => Ok(()),
        Some(Command::Serve { no_notify }) => serve(no_notify),
        Some(Command::Status { json }) => status(json),
        Some(Command::Link { serve, resume }) => link(serve, resume),
        Some(Command::Remote(command)) => remote(command),
        Some(Command::Decide { session, verdict }) => decide(&session, verdict),
        Some(Command::Answer { session, answer }) => {
            let text = answer.join(" ");
            match text.trim().parse::<usize>() {
                Ok(option) => act(&session, Said::Option(option)),
                Err(_) => act(&session, Said::Answer(&text)),
            }
        }
        Some(Command::Reply { session, text }) => act(&session, Said::Reply(&text.join(" "))),
        Some(Command::Peek { session, json }) => peek(&session, json),
        Some(Command::New { cli, cwd, worktree, prompt }) => new_agent(cli, cwd, worktree, prompt),
        Some(Command::End { session, yes }) => end_agent(&session, yes),
        Some(Command::Install { target, uninstall, dry_run, verbose }) => install(target, uninstall, dry_run, verbose),
        Some(Command::Doctor { json }) => return doctor(json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            errln!("switchboard: {}", printable_line(&switchboard_engine::error_text(error.as_ref())));
            ExitCode::FAILURE
        }
    }
}

/// Becomes the desktop app (same pid, same arguments and environment).
fn launch_app() -> anyhow::Result<()> {
    let me = std::env::current_exe()?;
    let app = me.with_file_name(format!("switchboard-app{}", std::env::consts::EXE_SUFFIX));
    let error = switchboard_engine::platform::exec(std::process::Command::new(&app).args(std::env::args_os().skip(1)));
    Err(anyhow::anyhow!("cannot start the desktop app {}: {error}", app.display()))
}

fn state_dir() -> anyhow::Result<PathBuf> {
    Ok(switchboard_engine::Config::from_env()?.state_dir)
}

fn serve(no_notify: bool) -> anyhow::Result<()> {
    let mut config = switchboard_engine::Config::from_env()?;
    config.notify &= !no_notify;
    // One thread owns the hook path (issue 47): the server, the normalizer, the hub and the
    // reducer run on this one, so a hook wakes no other thread on its way into the state; the
    // subscribers take coalesced change sets on their own threads, and blocking work (a
    // snapshot's JSON) goes to the blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(switchboard_engine::instance::serve(config))?;
    Ok(())
}

fn status(json: bool) -> anyhow::Result<()> {
    let (snapshot, raw) = switchboard_engine::client::status::fetch(&state_dir()?)?;
    if json {
        door::json(&String::from_utf8_lossy(&raw));
    } else {
        use switchboard_engine::client::status::{table, terminal_width};
        out!("{}", table(&snapshot, switchboard_engine::clock::now_millis(), terminal_width()));
    }
    Ok(())
}

fn link(serve: bool, resume: Option<(String, u64)>) -> anyhow::Result<()> {
    switchboard_engine::client::link::run(&state_dir()?, serve, resume, std::io::stdin(), std::io::stdout())?;
    Ok(())
}

fn decide(session: &str, verdict: VerdictArg) -> anyhow::Result<()> {
    use switchboard_engine::protocol::Verdict;
    let verdict = match verdict {
        VerdictArg::Allow => Verdict::Allow,
        VerdictArg::Deny => Verdict::Deny,
    };
    let session = switchboard_engine::client::act::decide(&state_dir()?, session, verdict)?;
    let done = if matches!(verdict, Verdict::Allow) { "Allowed" } else { "Denied" };
    outln!(
        "{done}: {}",
        printable_line(session.command.as_deref().or(session.message.as_deref()).unwrap_or("the permission"))
    );
    Ok(())
}

fn act(session: &str, said: Said<'_>) -> anyhow::Result<()> {
    use switchboard_engine::client::act;
    let state = state_dir()?;
    let session = act::find(&state, session)?;
    let title = printable_line(session.title.as_deref().unwrap_or(&session.session_id));
    let cli = act::cli_name(&session.agent);
    if !matches!(said, Said::Answer(_)) {
        // Typed answers wait for the CLI's own word: say so while it comes.
        errln!("Giving it to {title} ({cli}), waiting for {cli} to take it…");
    }
    let given = act::answer_session(&state, &session, said)?;
    let typed = printable_line(&given["typed"].to_string());
    if given["throughHook"] == true {
        outln!("Answered {typed} through {title}'s hook.");
    } else if given["throughDaemon"] == true {
        outln!("{cli} took it: sent {typed} to {title} through its daemon (nothing typed).");
    } else if session.is_local() {
        let pane = printable_line(given["pane"].as_str().unwrap_or("?"));
        outln!("{cli} took it: typed {typed} into {title}'s pane {pane}.");
    } else {
        outln!("{cli} on {} took it: typed {typed} into {title}'s pane there.", printable_line(&session.host));
    }
    Ok(())
}

fn peek(session: &str, json: bool) -> anyhow::Result<()> {
    let peeked = switchboard_engine::client::act::peek(&state_dir()?, session)?;
    if json {
        door::json(&serde_json::to_string_pretty(&peeked)?);
    } else {
        out!("{}", switchboard_engine::client::act::peek_text(&peeked));
    }
    Ok(())
}

fn new_agent(cli: String, cwd: Option<PathBuf>, worktree: Option<String>, prompt: Vec<String>) -> anyhow::Result<()> {
    use switchboard_engine::instance::act::launch::{launch, Launch};
    let prompt = (!prompt.is_empty()).then(|| prompt.join(" "));
    let launched = launch(&Launch { cli: cli.clone(), cwd, worktree, prompt })?;
    outln!("Started {cli} in {} (tmux pane {}).", launched.cwd, launched.pane);
    outln!("Its terminal: {}", launched.attach);
    Ok(())
}

fn end_agent(name: &str, yes: bool) -> anyhow::Result<()> {
    use std::io::{BufRead, IsTerminal, Write};
    let state = state_dir()?;
    let session = switchboard_engine::client::act::find(&state, name)?;
    let title = printable_line(session.title.as_deref().unwrap_or(&session.session_id));
    let pid = session.process.as_ref().map_or("unknown".into(), |p| p.pid.to_string());
    if !yes {
        if !std::io::stdin().is_terminal() {
            anyhow::bail!("ending an agent needs a yes: add --yes");
        }
        out!("End {} ({title}, pid {pid}) and the tools it runs? [y/N] ", printable_line(&session.agent));
        std::io::stdout().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            outln!("Left running.");
            return Ok(());
        }
    }
    switchboard_engine::client::act::end(&state, &session)?;
    outln!("Sent SIGTERM to {} ({title}, pid {pid}).", printable_line(&session.agent));
    Ok(())
}

fn remote(command: RemoteCommand) -> anyhow::Result<()> {
    use switchboard_engine::remote::manage;
    let state = state_dir()?;
    match command {
        RemoteCommand::Add { name, command } => {
            let spec = manage::add(&state, &name, command)?;
            outln!("Following {} through `{} sh -s`.", spec.name, spec.command.join(" "));
            outln!("If Switchboard is not on it yet: switchboard remote install {}", spec.name);
        }
        RemoteCommand::List { json } => {
            let remotes = manage::list(&state);
            if json {
                door::json(&serde_json::to_string_pretty(&remotes)?);
            } else {
                out!("{}", manage::table(&remotes, switchboard_engine::clock::now_millis()));
            }
        }
        RemoteCommand::Remove { name } => {
            manage::remove(&state, &name)?;
            outln!("No longer following {name}.");
        }
        RemoteCommand::Install { name } => {
            let spec = switchboard_engine::instance::settings::Settings::load(&state)
                .remotes
                .into_iter()
                .find(|remote| remote.name == name)
                .ok_or_else(|| {
                    anyhow::anyhow!("no remote is named `{name}` (add it: switchboard remote add {name} -- ssh HOST)")
                })?;
            let installed = manage::install(&spec)?;
            if installed.copied {
                outln!(
                    "{name} runs {}: copied {} to {name}:{}.",
                    installed.platform,
                    installed.binary.display(),
                    installed.path
                );
            } else {
                outln!("{name} runs {} and has this build already ({}).", installed.platform, installed.path);
            }
            out!("{}", installed.output);
        }
    }
    Ok(())
}

fn install(name: String, uninstall: bool, dry_run: bool, verbose: bool) -> anyhow::Result<()> {
    let outcomes = api::install(&name, uninstall, dry_run, api::hook_command(false)?)?;
    for outcome in &outcomes {
        if verbose {
            outln!("{}", outcome.in_full());
        } else {
            outln!("{outcome}");
        }
    }
    let changes = outcomes.iter().any(|outcome| outcome.result.as_ref().is_ok_and(|report| report.changed()));
    if dry_run && !verbose && changes {
        outln!("(Add --verbose to see every entry in full.)");
    }
    let failed = outcomes.iter().filter(|outcome| outcome.result.is_err()).count();
    if failed > 0 {
        anyhow::bail!("{failed} of {} CLIs could not be set up; see above", outcomes.len());
    }
    Ok(())
}

/// Prints the report; exit code 0 only when every check passed.
fn doctor(json: bool) -> ExitCode {
    let report = (|| -> anyhow::Result<_> {
        let state = state_dir()?;
        // The test session is removed again through the running instance's API.
        let remove = |session_id: &str| {
            api::remove_through_instance(&state, session_id);
        };
        Ok(api::doctor(api::hook_command(false)?, state.clone(), std::env::current_dir().ok(), remove)?)
    })();
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            errln!("switchboard: {}", printable_line(&switchboard_engine::error_text(error.as_ref())));
            return ExitCode::FAILURE;
        }
    };
    if json {
        door::json(&serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        out!("{report}");
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
