//! The `switchboard` binary: the headless commands (`hook`, `serve`, `status`, `install`), and
//! the launcher of the desktop app.
//!
//! It deliberately does not link Tauri: `switchboard hook` runs on every tool call of every
//! agent, and loading GTK and WebKit's ~170 shared libraries costs ~90 ms a call here. With no
//! subcommand it replaces itself with `switchboard-app`, the window, which sits beside it.

use std::path::PathBuf;
use std::process::ExitCode;
use switchboard_engine::client::act::Said;

use clap::{Parser, Subcommand, ValueEnum};
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

#[derive(Parser)]
#[command(
    name = "switchboard",
    version,
    about = "See every AI coding agent on your machine, and which one needs you",
    long_about = "See every AI coding agent on your machine, and which one needs you.\n\n\
        With no command, `switchboard` opens the desktop app (a second launch brings its window forward).",
    after_help = "Examples:\n  \
        switchboard                  open the app\n  \
        switchboard install          connect the agent CLIs found on this machine\n  \
        switchboard doctor           check that each CLI is connected and an event gets through\n  \
        switchboard status           the sessions, those that need you first\n  \
        switchboard serve            the same without a window (SSH boxes, tmux)\n  \
        switchboard link             this machine's sessions on stdin/stdout, for another machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the hook server and reducer without a window (SSH boxes, tmux, tests)
    Serve {
        /// Do not raise OS notifications
        #[arg(long)]
        no_notify: bool,
    },
    /// Forward one hook event from stdin to the running instance (what the CLIs run)
    Hook {
        /// The CLI that sent it: its id, as `install` wrote it, or custom
        agent: String,
    },
    /// Show the sessions of the running instance
    Status {
        /// Print the JSON snapshot instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Register Switchboard's hooks in the CLIs' settings
    Install {
        /// A CLI's id (a wrong one lists them all), or all
        #[arg(default_value = "all", value_parser = install_target)]
        target: String,
        /// Remove Switchboard's hooks instead
        #[arg(long)]
        uninstall: bool,
        /// Print the change in brief and write nothing
        #[arg(long)]
        dry_run: bool,
        /// Also list every hook entry in full, as it goes (or, with --dry-run, would go) into the file
        #[arg(long, short)]
        verbose: bool,
    },
    /// Stream this machine's sessions on stdin/stdout, for a Switchboard following it over a pipe
    /// (`ssh devbox switchboard link`): newline-delimited JSON frames, a snapshot then numbered
    /// updates. Needs `serve` or the app running here (or `--serve`); exits 1 if none is, or when
    /// it stops.
    Link {
        /// Start `switchboard serve` here first if no instance runs (what a following board asks)
        #[arg(long)]
        serve: bool,
        /// Start after update N of instance run I (`I:N`, from a hello and the last update applied)
        #[arg(long, value_name = "INSTANCE:N", value_parser = parse_resume)]
        resume: Option<(String, u64)>,
    },
    /// Follow the agents of other machines on this board, over a command you trust
    #[command(subcommand)]
    Remote(RemoteCommand),
    /// Allow or deny the permission a session holds for Switchboard
    Decide {
        /// The session: its id, or the start of it that `status` shows
        session: String,
        #[arg(value_enum)]
        verdict: VerdictArg,
    },
    /// Answer the question on a session's screen: option N, or in words (through the CLI's hook
    /// when it holds the question for the board, else typed into its own tmux pane)
    Answer {
        session: String,
        /// The option's number, as `peek` lists them — or the answer in words
        #[arg(required = true, num_args = 1..)]
        answer: Vec<String>,
    },
    /// Send a done or waiting agent its next prompt (typed into its own tmux pane)
    Reply {
        session: String,
        /// The prompt; several words are joined with spaces
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
    /// Start an agent CLI in Switchboard's own tmux server (`tmux -L switchboard`): its node
    /// appears with its first event, and it outlives the app
    New {
        /// The CLI's id (a wrong one lists them all)
        #[arg(value_parser = startable_cli)]
        cli: String,
        /// The folder it works in (default: this one)
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Work in a new git worktree beside the repository, on this branch
        #[arg(long)]
        worktree: Option<String>,
        /// Its first prompt
        #[arg(last = true, num_args = 0..)]
        prompt: Vec<String>,
    },
    /// End a session's agent: SIGTERM to its own process group (the CLI and its tools), nothing else
    End {
        session: String,
        /// Do not ask first
        #[arg(long, short)]
        yes: bool,
    },
    /// What a session is doing and asks (with numbered options), and its screen when in tmux
    Peek {
        session: String,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Check that each agent CLI is connected and that an event gets through; exits 1 if not
    Doctor {
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum RemoteCommand {
    /// Follow a machine: `switchboard remote add devbox -- ssh devbox` (or `docker exec -i box`,
    /// `kubectl exec -i pod --`, any command that gives a pipe to a shell there)
    Add {
        /// The name its sessions show under
        name: String,
        /// The command that reaches it; `sh -s` is appended
        #[arg(last = true, required = true, num_args = 1..)]
        command: Vec<String>,
    },
    /// The remotes: connected, connecting or unreachable since when; sessions; last update
    List {
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Stop following a remote; its sessions leave the board
    Remove { name: String },
    /// Put this version of Switchboard on the remote (a static build, any Linux) when it is
    /// missing or another build, then connect the agent CLIs found there
    Install { name: String },
}

/// A CLI `switchboard new` starts: the table says which.
fn startable_cli(name: &str) -> Result<String, String> {
    let startable = switchboard_engine::instance::act::launch::startable();
    startable.contains(&name).then(|| name.to_owned()).ok_or_else(|| format!("one of {}", startable.join(", ")))
}

/// A CLI the installer connects (the table says which), or `all`.
fn install_target(name: &str) -> Result<String, String> {
    let known = switchboard_engine::setup::install::clis_named(name).is_some();
    known.then(|| name.to_owned()).ok_or_else(|| {
        let all: Vec<&str> = switchboard_engine::setup::install::Cli::all().map(|cli| cli.agent()).collect();
        format!("one of {}, or all", all.join(", "))
    })
}

#[derive(Clone, Copy, ValueEnum)]
enum VerdictArg {
    Allow,
    Deny,
}

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
    let runtime = tokio::runtime::Runtime::new()?;
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

fn parse_resume(text: &str) -> Result<(String, u64), String> {
    let (instance, after) = text.split_once(':').ok_or("expected INSTANCE:N")?;
    let after = after.parse().map_err(|_| format!("`{after}` is not an update number"))?;
    Ok((instance.to_owned(), after))
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
            let binary = manage::binary_to_send()?;
            let installed = manage::install(&spec, &binary)?;
            if installed.copied {
                outln!("Copied {} to {}:{}.", binary.display(), name, installed.path);
            } else {
                outln!("{name} has this build already ({}).", installed.path);
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
