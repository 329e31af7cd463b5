//! The command line as clap reads it: every command, its arguments and its help.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

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
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
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
pub enum RemoteCommand {
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
pub enum VerdictArg {
    Allow,
    Deny,
}

fn parse_resume(text: &str) -> Result<(String, u64), String> {
    let (instance, after) = text.split_once(':').ok_or("expected INSTANCE:N")?;
    let after = after.parse().map_err(|_| format!("`{after}` is not an update number"))?;
    Ok((instance.to_owned(), after))
}
