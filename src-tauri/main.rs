//! The `switchboard` binary: the headless commands (`hook`, `serve`, `status`, `install`), and
//! the launcher of the desktop app.
//!
//! It deliberately does not link Tauri: `switchboard hook` runs on every tool call of every
//! agent, and loading GTK and WebKit's ~170 shared libraries costs ~90 ms a call here. With no
//! subcommand it replaces itself with `switchboard-app`, the window, which sits beside it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use switchboard_engine::api;

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
        /// The CLI that sent it: claude, codex, gemini or custom
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
        #[arg(value_enum, default_value_t = Target::All)]
        target: Target,
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
    /// updates. Needs `serve` or the app running here; exits 1 if none is, or when it stops.
    Link,
    /// Check that each agent CLI is connected and that an event gets through; exits 1 if not
    Doctor {
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    Claude,
    Codex,
    Gemini,
    All,
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
        Some(Command::Link) => link(),
        Some(Command::Install { target, uninstall, dry_run, verbose }) => install(target, uninstall, dry_run, verbose),
        Some(Command::Doctor { json }) => return doctor(json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: {}", switchboard_engine::error_text(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// Becomes the desktop app (same pid, same arguments and environment).
fn launch_app() -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let me = std::env::current_exe()?;
    let app = me.with_file_name("switchboard-app");
    let error = std::process::Command::new(&app).args(std::env::args_os().skip(1)).exec();
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
        println!("{}", String::from_utf8_lossy(&raw));
    } else {
        use switchboard_engine::client::status::{table, terminal_width};
        print!("{}", table(&snapshot, switchboard_engine::clock::now_millis(), terminal_width()));
    }
    Ok(())
}

fn link() -> anyhow::Result<()> {
    switchboard_engine::client::link::run(&state_dir()?, std::io::stdin(), std::io::stdout())?;
    Ok(())
}

fn install(target: Target, uninstall: bool, dry_run: bool, verbose: bool) -> anyhow::Result<()> {
    let name = target.to_possible_value().map(|value| value.get_name().to_owned()).unwrap_or_default();
    let outcomes = api::install(&name, uninstall, dry_run, api::hook_command(false)?)?;
    for outcome in &outcomes {
        if verbose {
            println!("{}", outcome.in_full());
        } else {
            println!("{outcome}");
        }
    }
    let changes = outcomes.iter().any(|outcome| outcome.result.as_ref().is_ok_and(|report| report.changed()));
    if dry_run && !verbose && changes {
        println!("(Add --verbose to see every entry in full.)");
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
            eprintln!("switchboard: {}", switchboard_engine::error_text(error.as_ref()));
            return ExitCode::FAILURE;
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        print!("{report}");
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
