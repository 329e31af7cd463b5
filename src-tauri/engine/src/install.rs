//! `switchboard install` (SPEC 5): registers `"<switchboard>" hook <agent>` in each CLI's own
//! settings, or takes it out again, without putting the user's config at risk.
//!
//! What the settings become is planned in `switchboard_core::hook_config`; this module is the IO
//! around that plan:
//! - where each CLI keeps its hooks ([`ConfigDirs`]);
//! - reading and parsing: a file that does not parse is refused with its name and line, and left
//!   byte for byte as it was;
//! - a one-time backup `<file>.switchboard.bak` of the user's original, then an atomic write (a
//!   temporary file in the same folder, fsync, rename) that keeps the file's permissions; a
//!   symlinked settings file is written through the link, so the link stays a link;
//! - `--dry-run`, which plans and reports and writes nothing;
//! - what the user still has to do in the CLI (Codex runs a new hook only once it is trusted);
//! - [`status`], for the Connections panel.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use switchboard_core::hook_config::{self, Edit, EditAction, Notice, ShapeError};

use crate::codex_trust::{self, HookTrust};

pub use switchboard_core::hook_config::{Cli, Version};

/// Where each CLI keeps its configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigDirs {
    /// `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex: PathBuf,
    /// `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
    pub gemini: PathBuf,
}

impl ConfigDirs {
    /// From this process's environment; `None` when `HOME` is unset and some CLI has no override.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// From the environment variables `var` returns (an empty value counts as unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Option<Self> {
        let set = |name: &str| var(name).filter(|value| !value.is_empty()).map(PathBuf::from);
        let home = set("HOME");
        let in_home = |dir: &str| home.as_ref().map(|home| home.join(dir));
        Some(ConfigDirs {
            claude: set("CLAUDE_CONFIG_DIR").or_else(|| in_home(".claude"))?,
            codex: set("CODEX_HOME").or_else(|| in_home(".codex"))?,
            gemini: set("GEMINI_CLI_HOME").map(|home| home.join(".gemini")).or_else(|| in_home(".gemini"))?,
        })
    }

    /// The default folders under `home`, with no overrides.
    pub fn in_home(home: &Path) -> Self {
        ConfigDirs { claude: home.join(".claude"), codex: home.join(".codex"), gemini: home.join(".gemini") }
    }

    pub fn dir(&self, cli: Cli) -> &Path {
        match cli {
            Cli::Claude => &self.claude,
            Cli::Codex => &self.codex,
            Cli::Gemini => &self.gemini,
        }
    }

    /// The file that holds the CLI's hooks: `settings.json`, or Codex's `hooks.json`.
    pub fn settings_file(&self, cli: Cli) -> PathBuf {
        self.dir(cli).join(match cli {
            Cli::Codex => "hooks.json",
            Cli::Claude | Cli::Gemini => "settings.json",
        })
    }
}

#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub clis: Vec<Cli>,
    pub uninstall: bool,
    pub dry_run: bool,
    /// The absolute path of the `switchboard` binary the hooks will run.
    pub command_path: PathBuf,
    pub dirs: ConfigDirs,
    /// The installed Claude Code's release ([`claude_code_version`]), when known: hook events it
    /// predates are left out, because Claude Code skips a settings file with an unknown event
    /// entirely. `None` registers every event.
    pub claude_version: Option<Version>,
}

/// The release of the `claude` on `PATH` (`claude --version`); `None` when there is none, or
/// it does not answer within two seconds.
pub fn claude_code_version() -> Option<Version> {
    version_of(Command::new("claude").arg("--version"), Duration::from_secs(2))
}

fn version_of(command: &mut Command, limit: Duration) -> Option<Version> {
    Version::parse(&version_output(command, limit)?)
}

/// What `command` (a `--version` call) prints, if it exits within `limit`; it is killed otherwise.
pub(crate) fn version_output(command: &mut Command, limit: Duration) -> Option<String> {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    let deadline = Instant::now() + limit;
    while child.try_wait().ok()?.is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut output = String::new();
    child.stdout.take()?.read_to_string(&mut output).ok()?;
    Some(output)
}

/// The events to register for `cli`, given what is known of its release.
fn wanted_events(cli: Cli, claude_version: Option<Version>) -> Vec<&'static str> {
    hook_config::events_for(cli, claude_version.filter(|_| cli == Cli::Claude))
}

/// The CLIs `switchboard install <target>` names: one by its agent id, or `all`.
pub fn clis_named(target: &str) -> Option<Vec<Cli>> {
    match target {
        "all" => Some(Cli::ALL.to_vec()),
        agent => Cli::from_agent(agent).map(|cli| vec![cli]),
    }
}

impl InstallOptions {
    /// For the user's own settings (found through the environment), registering `command_path`.
    /// `None` when `HOME` is unset and some CLI has no override.
    pub fn for_user(clis: Vec<Cli>, uninstall: bool, dry_run: bool, command_path: PathBuf) -> Option<Self> {
        Some(Self {
            clis,
            uninstall,
            dry_run,
            command_path,
            dirs: ConfigDirs::from_env()?,
            claude_version: claude_code_version(),
        })
    }
}

/// Installs (or uninstalls) for each CLI in turn; one CLI's failure does not stop the others.
pub fn install(options: &InstallOptions) -> Vec<InstallOutcome> {
    options
        .clis
        .iter()
        .map(|&cli| {
            let path = options.dirs.settings_file(cli);
            let result = install_one(cli, &path, options);
            InstallOutcome { cli, path, result }
        })
        .collect()
}

/// What happened to one CLI's settings. Its `Display` is the message for the user.
#[derive(Debug)]
pub struct InstallOutcome {
    pub cli: Cli,
    /// The settings file, as the CLI names it (it may be a symlink).
    pub path: PathBuf,
    pub result: Result<InstallReport, InstallError>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InstallReport {
    pub uninstall: bool,
    pub dry_run: bool,
    /// The file actually written: `path` itself, or the target of the link `path` is.
    pub target: PathBuf,
    /// What changed (or would change, on a dry run); empty when the file was already right.
    pub edits: Vec<Edit>,
    /// The file did not exist before.
    pub created: bool,
    /// The copy of the previous file this run made, if it made one (only the first run does).
    pub backup: Option<PathBuf>,
    /// Settings that will keep the CLI from running the hook even so.
    pub warnings: Vec<String>,
}

impl InstallReport {
    pub fn changed(&self) -> bool {
        !self.edits.is_empty()
    }

    pub fn count(&self, action: EditAction) -> usize {
        self.edits.iter().filter(|edit| edit.action == action).count()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{} is not valid JSON (line {line}, column {column}: {reason}); Switchboard left it unchanged. \
         Fix it, then install again",
        path.display()
    )]
    Unparsable { path: PathBuf, line: usize, column: usize, reason: String },
    #[error(
        "{} has comments, which Switchboard cannot keep when it rewrites the file, so it left the file unchanged. \
         Remove the comments (or add the hooks by hand), then install again",
        path.display()
    )]
    HasComments { path: PathBuf },
    #[error("{}: {problem}, so Switchboard has no safe place for its hook there and left the file unchanged", path.display())]
    Shape { path: PathBuf, problem: ShapeError },
    #[error("{} is read-only, so Switchboard left it unchanged; make it writable, then install again", path.display())]
    ReadOnly { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("the switchboard binary's path {} is not an absolute UTF-8 path", path.display())]
    CommandPath { path: PathBuf },
}

impl InstallError {
    /// A stable name for the UI's `{kind, message}`.
    pub fn kind(&self) -> &'static str {
        match self {
            InstallError::Unparsable { .. } => "unparsable",
            InstallError::HasComments { .. } => "hasComments",
            InstallError::Shape { .. } => "shape",
            InstallError::ReadOnly { .. } => "readOnly",
            InstallError::Io { .. } => "io",
            InstallError::CommandPath { .. } => "commandPath",
        }
    }
}

fn install_one(cli: Cli, path: &Path, options: &InstallOptions) -> Result<InstallReport, InstallError> {
    let target = resolve_links(path)?;
    let original = read_original(&target)?;
    let settings = parse_settings(cli, &target, original.as_ref().map(|original| original.bytes.as_slice()))?;
    let events = wanted_events(cli, options.claude_version);
    let plan = if options.uninstall {
        hook_config::plan_uninstall(&settings, cli)
    } else {
        hook_config::plan_install(&settings, cli, program(&options.command_path)?, &events)
    }
    .map_err(|problem| InstallError::Shape { path: target.clone(), problem })?;

    let warnings = if options.uninstall {
        Vec::new()
    } else {
        let mut warnings = warnings(cli, &plan.settings, &options.dirs);
        warnings.extend(left_out(cli, &events, options.claude_version));
        warnings
    };
    let mut report = InstallReport {
        uninstall: options.uninstall,
        dry_run: options.dry_run,
        target: target.clone(),
        edits: plan.edits,
        created: original.is_none(),
        backup: None,
        warnings,
    };
    if report.changed() && !options.dry_run {
        let bytes = render(&plan.settings, original.as_ref().map(|original| original.bytes.as_slice()));
        report.backup = write_settings(path, &target, original.as_ref(), &bytes)?;
    }
    Ok(report)
}

fn program(command_path: &Path) -> Result<&str, InstallError> {
    command_path
        .to_str()
        .filter(|_| command_path.is_absolute())
        .ok_or_else(|| InstallError::CommandPath { path: command_path.to_owned() })
}

/// The file a settings path names, through any symlinks (relative targets resolve against the
/// link's folder). A dangling link gives its target, which install then creates.
fn resolve_links(path: &Path) -> Result<PathBuf, InstallError> {
    let mut path = path.to_owned();
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = fs::read_link(&path).map_err(|error| io_error("read the link", &path, error))?;
                path = path.parent().map_or_else(|| target.clone(), |dir| dir.join(&target));
            }
            _ => return Ok(path),
        }
    }
    Err(io_error("follow", &path, io::Error::other("too many levels of symbolic links")))
}

struct Original {
    bytes: Vec<u8>,
    metadata: Metadata,
}

fn read_original(target: &Path) -> Result<Option<Original>, InstallError> {
    match fs::read(target) {
        Ok(bytes) => {
            let metadata = fs::metadata(target).map_err(|error| io_error("read", target, error))?;
            Ok(Some(Original { bytes, metadata }))
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error("read", target, error)),
    }
}

/// The settings in `bytes`; a missing or blank file is empty settings.
fn parse_settings(cli: Cli, path: &Path, bytes: Option<&[u8]>) -> Result<Value, InstallError> {
    let Some(bytes) = bytes.filter(|bytes| !bytes.iter().all(u8::is_ascii_whitespace)) else { return Ok(json!({})) };
    serde_json::from_slice(bytes).map_err(|error| {
        // Gemini CLI reads its settings through strip-json-comments; rewriting would lose them.
        if cli == Cli::Gemini && serde_json::from_slice::<Value>(&without_comments(bytes)).is_ok() {
            return InstallError::HasComments { path: path.to_owned() };
        }
        let message = error.to_string();
        let reason = message.rsplit_once(" at line ").map_or(message.as_str(), |(reason, _)| reason).to_owned();
        InstallError::Unparsable { path: path.to_owned(), line: error.line(), column: error.column(), reason }
    })
}

/// `bytes` with `//` and `/* */` comments outside strings blanked out.
pub(crate) fn without_comments(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            out.push(byte);
            if byte == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 1;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if bytes[i..].starts_with(b"/*") {
            let end = bytes[i + 2..].windows(2).position(|pair| pair == b"*/").map_or(bytes.len(), |at| i + 2 + at + 2);
            out.push(b' ');
            i = end;
            continue;
        } else {
            in_string = byte == b'"';
            out.push(byte);
        }
        i += 1;
    }
    out
}

/// The settings as pretty JSON, indented the way the original was (two spaces when unknown).
fn render(settings: &Value, original: Option<&[u8]>) -> Vec<u8> {
    let indent = original.and_then(indent_of).unwrap_or_else(|| b"  ".to_vec());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    settings.serialize(&mut serializer).expect("a JSON value always serializes");
    out.push(b'\n');
    out
}

fn indent_of(text: &[u8]) -> Option<Vec<u8>> {
    text.split(|byte| *byte == b'\n').skip(1).find_map(|line| {
        let indent = line.iter().take_while(|byte| matches!(byte, b' ' | b'\t')).count();
        (indent > 0 && indent < line.len()).then(|| line[..indent].to_vec())
    })
}

/// Backs up the original (first run only), then replaces `target` atomically. Returns the
/// backup it made.
fn write_settings(
    path: &Path,
    target: &Path,
    original: Option<&Original>,
    bytes: &[u8],
) -> Result<Option<PathBuf>, InstallError> {
    // The permission bits are checked, not just tried: root could write a file its owner made
    // read-only, and a rename would even replace it.
    if original.is_some_and(|original| original.metadata.permissions().readonly()) {
        return Err(InstallError::ReadOnly { path: target.to_owned() });
    }
    let dir = folder_of(target);
    match fs::metadata(dir) {
        Ok(metadata) if metadata.permissions().readonly() => {
            return Err(InstallError::ReadOnly { path: dir.to_owned() });
        }
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(|error| io_error("create the folder", dir, error))?;
        }
        Err(error) => return Err(io_error("read", dir, error)),
    }
    let backup = match original {
        Some(original) => back_up(path, original)?,
        None => None,
    };
    replace_atomically(target, bytes, original.map(|original| &original.metadata))?;
    Ok(backup)
}

fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// `<path>.switchboard.bak`, beside the settings file as the user names it. Made once: the
/// first original is the one worth keeping.
fn back_up(path: &Path, original: &Original) -> Result<Option<PathBuf>, InstallError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".switchboard.bak");
    let backup = PathBuf::from(name);
    if fs::symlink_metadata(&backup).is_ok() {
        return Ok(None);
    }
    let write = || -> io::Result<()> {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&backup)?;
        // Settings can hold secrets: restrict the copy before it holds anything.
        file.set_permissions(original.metadata.permissions())?;
        file.write_all(&original.bytes)?;
        file.sync_all()
    };
    match write() {
        Ok(()) => Ok(Some(backup)),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(None),
        Err(error) => {
            let _ = fs::remove_file(&backup);
            Err(io_error("back up to", &backup, error))
        }
    }
}

/// Writes `target` atomically, keeping the permissions of the file it replaces.
fn replace_atomically(target: &Path, bytes: &[u8], permissions_of: Option<&Metadata>) -> Result<(), InstallError> {
    crate::files::write_atomic(target, bytes, permissions_of.map(Metadata::permissions))
        .map_err(|error| io_error("write", target, error))
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> InstallError {
    let denied = matches!(source.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem);
    if denied && !action.starts_with("read") {
        InstallError::ReadOnly { path: path.to_owned() }
    } else {
        InstallError::Io { action, path: path.to_owned(), source }
    }
}

/// What in the settings (or, for Codex, in `config.toml`) will keep the CLI from running our
/// hook.
fn warnings(cli: Cli, settings: &Value, dirs: &ConfigDirs) -> Vec<String> {
    let mut warnings: Vec<String> = hook_config::notices(settings, cli).iter().map(ToString::to_string).collect();
    if cli == Cli::Codex {
        warnings.extend(codex_hooks_switched_off(&dirs.codex));
    }
    warnings
}

/// Says which events an older release kept out, and why.
fn left_out(cli: Cli, events: &[&str], version: Option<Version>) -> Option<String> {
    let missing: Vec<&str> = cli.events().iter().copied().filter(|event| !events.contains(event)).collect();
    let version = version.filter(|_| !missing.is_empty())?;
    let name = cli.name();
    Some(format!(
        "{name} {version} predates the {} hook event, so Switchboard left it out ({name} would skip the whole \
         settings file for an event it does not know); install again after updating {name}",
        missing.join(", ")
    ))
}

/// Codex runs hooks unless `[features] hooks = false` (or the older `codex_hooks = false`) is
/// set in `config.toml`. Switchboard reports that choice rather than overriding it.
fn codex_hooks_switched_off(codex_dir: &Path) -> Option<String> {
    codex_switch_off(codex_dir).map(|warning| warning.message)
}

fn codex_switch_off(codex_dir: &Path) -> Option<Warning> {
    let config = codex_dir.join("config.toml");
    let table: toml::Table = fs::read_to_string(&config).ok()?.parse().ok()?;
    let features = table.get("features")?.as_table()?;
    let key = ["hooks", "codex_hooks"]
        .into_iter()
        .find(|key| features.get(*key).and_then(toml::Value::as_bool) == Some(false))?;
    Some(Warning {
        message: format!(
            "`[features] {key} = false` in {}: Codex runs no hook, Switchboard's included, until you remove it",
            config.display()
        ),
        fix: format!("delete `{key} = false` under [features] in {}", config.display()),
    })
}

/// [`warnings`], each with what undoes it.
fn status_warnings(cli: Cli, settings: &Value, dirs: &ConfigDirs) -> Vec<Warning> {
    let file = dirs.settings_file(cli);
    let mut warnings: Vec<Warning> = hook_config::notices(settings, cli)
        .into_iter()
        .map(|notice| {
            let fix = match notice {
                Notice::ClaudeHooksDisabled => format!("set \"disableAllHooks\": false in {}", file.display()),
                Notice::GeminiHooksDisabled => {
                    format!("set \"hooksConfig\": {{\"enabled\": true}} in {}", file.display())
                }
                Notice::GeminiHookDisabled => "run /hooks enable switchboard in Gemini CLI".to_owned(),
            };
            Warning { message: notice.to_string(), fix }
        })
        .collect();
    if cli == Cli::Codex {
        warnings.extend(codex_switch_off(&dirs.codex));
    }
    warnings
}

/// What the user still has to do in the CLI after a change, for the hooks to run.
fn next_step(cli: Cli, report: &InstallReport) -> Option<&'static str> {
    if report.uninstall || !report.changed() {
        return None;
    }
    Some(match cli {
        Cli::Claude => {
            "new Claude Code sessions report to Switchboard; in a session already running, open /hooks to accept \
             the change (or restart it)"
        }
        Cli::Codex => {
            "Codex runs a new or changed hook only after you trust it: start Codex and choose to trust the hooks \
             when it says they need review, or run /hooks and trust Switchboard's"
        }
        Cli::Gemini => "new Gemini CLI sessions report to Switchboard; restart the ones already running",
    })
}

impl fmt::Display for InstallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.cli.name();
        let report = match &self.result {
            Ok(report) => report,
            Err(error) => return write!(f, "{name}: {error}"),
        };
        let path = self.path.display();
        if !report.changed() {
            return if report.uninstall {
                write!(f, "{name}: no Switchboard hook in {path}; nothing to remove")
            } else {
                write!(f, "{name}: already connected in {path}; nothing to change")?;
                report.warnings.iter().try_for_each(|warning| write!(f, "\n  Warning: {warning}"))
            };
        }

        let link = if report.target == self.path {
            String::new()
        } else {
            format!(" (through the link, in {})", report.target.display())
        };

        if report.dry_run {
            write!(f, "{name}: would {} in {path}{link} — dry run, nothing written:", summary(report, false))?;
            for edit in &report.edits {
                write!(f, "\n  {edit}")?;
            }
        } else {
            let new = if report.created { " (new file)" } else { "" };
            write!(f, "{name}: {} in {path}{new}{link}", summary(report, true))?;
            if let Some(backup) = &report.backup {
                write!(f, "\n  Your previous file is saved as {}", backup.display())?;
            }
        }
        for warning in &report.warnings {
            write!(f, "\n  Warning: {warning}")?;
        }
        if let Some(step) = next_step(self.cli, report) {
            write!(f, "\n  Next: {step}")?;
        }
        Ok(())
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The change in words: "add the Switchboard hook for 13 events, …", or "added …" once `done`.
fn summary(report: &InstallReport, done: bool) -> String {
    let verb = |present: &'static str, past: &'static str| if done { past } else { present };
    let count = |action| report.count(action);
    let mut clauses = Vec::new();
    if report.uninstall {
        let events = plural(count(EditAction::Remove), "event");
        clauses.push(format!("{} the Switchboard hook from {events}", verb("remove", "removed")));
    } else {
        if count(EditAction::Add) > 0 {
            let events = plural(count(EditAction::Add), "event");
            clauses.push(format!("{} the Switchboard hook for {events}", verb("add", "added")));
        }
        if count(EditAction::Update) > 0 {
            let hooks = plural(count(EditAction::Update), "hook");
            clauses.push(format!("{} {hooks} at this switchboard binary", verb("point", "pointed")));
        }
        if count(EditAction::Remove) > 0 {
            let hooks = plural(count(EditAction::Remove), "hook");
            clauses.push(format!("{} {hooks} no longer used", verb("remove", "removed")));
        }
        if count(EditAction::Set) > 0 {
            clauses.push(format!("{} hooks on (hooksConfig.enabled = true)", verb("turn", "turned")));
        }
    }
    clauses.join(", ")
}

/// One CLI's connection, for the Connections panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CliStatus {
    pub cli: Cli,
    pub config_dir: PathBuf,
    /// The CLI's config folder exists: it has been used on this machine.
    pub found: bool,
    pub settings_file: PathBuf,
    pub hooks: HooksState,
    /// Settings that keep the CLI from running the hook even when it is installed.
    pub warnings: Vec<Warning>,
    /// Codex only, once our hooks are in `hooks.json`: which of them Codex trusts to run.
    pub trust: Option<HookTrust>,
    /// What the user may have to do in the CLI for installed hooks to run.
    pub next_step: Option<String>,
}

/// A setting that keeps the CLI from running Switchboard's hook, and how to undo it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub message: String,
    pub fix: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum HooksState {
    /// Every event has our hook; `current` is false when some run another switchboard binary
    /// than this one (it moved): install again to repoint them.
    Installed {
        current: bool,
    },
    /// Some events lack our hook: install again to complete it.
    Partial {
        missing: Vec<String>,
    },
    NotInstalled,
    /// The settings file cannot be read or parsed.
    Unreadable {
        message: String,
    },
}

/// Whether each CLI is on this machine and connected to this `switchboard` binary.
/// `claude_version` as in [`InstallOptions`].
pub fn status(dirs: &ConfigDirs, command_path: &Path, claude_version: Option<Version>) -> Vec<CliStatus> {
    Cli::ALL
        .into_iter()
        .map(|cli| {
            let settings_file = dirs.settings_file(cli);
            let settings = resolve_links(&settings_file).and_then(|target| {
                let original = read_original(&target)?;
                parse_settings(cli, &target, original.as_ref().map(|original| original.bytes.as_slice()))
            });
            let (hooks, warnings, trust) = match settings {
                Ok(settings) => {
                    let events = wanted_events(cli, claude_version);
                    let hooks = hooks_state(cli, &settings, command_path, &events);
                    let installed = matches!(hooks, HooksState::Installed { .. } | HooksState::Partial { .. });
                    let trust = (cli == Cli::Codex && installed)
                        .then(|| codex_trust::hook_trust(&dirs.codex, &settings_file, &settings));
                    (hooks, status_warnings(cli, &settings, dirs), trust)
                }
                Err(error) => (HooksState::Unreadable { message: error.to_string() }, Vec::new(), None),
            };
            let next_step = trust.as_ref().filter(|trust| !trust.complete()).map(|_| {
                "start Codex and choose \"Trust all and continue\" when it says hooks need review (or trust \
                 Switchboard's hooks in /hooks)"
                    .to_owned()
            });
            CliStatus {
                cli,
                config_dir: dirs.dir(cli).to_owned(),
                found: dirs.dir(cli).is_dir(),
                settings_file,
                hooks,
                warnings,
                trust,
                next_step,
            }
        })
        .collect()
}

fn hooks_state(cli: Cli, settings: &Value, command_path: &Path, events: &[&'static str]) -> HooksState {
    let installed = hook_config::installed(settings, cli, events);
    if installed.events.is_empty() {
        return HooksState::NotInstalled;
    }
    if !installed.missing.is_empty() {
        return HooksState::Partial { missing: installed.missing.iter().map(|event| event.to_string()).collect() };
    }
    let current = program(command_path).map(|program| hook_config::hook_command(program, cli));
    HooksState::Installed { current: current.is_ok_and(|command| installed.commands == [command]) }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    const PROGRAM: &str = "/opt/Switchboard/bin/switchboard";

    struct Home {
        _dir: tempfile::TempDir,
        dirs: ConfigDirs,
    }

    fn home() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let dirs = ConfigDirs::in_home(dir.path());
        Home { _dir: dir, dirs }
    }

    fn options(home: &Home, cli: Cli) -> InstallOptions {
        InstallOptions {
            clis: vec![cli],
            uninstall: false,
            dry_run: false,
            command_path: PROGRAM.into(),
            dirs: home.dirs.clone(),
            claude_version: None,
        }
    }

    fn run(options: &InstallOptions) -> InstallOutcome {
        install(options).pop().unwrap()
    }

    fn installed(home: &Home, cli: Cli) -> InstallOutcome {
        run(&options(home, cli))
    }

    fn uninstalled(home: &Home, cli: Cli) -> InstallOutcome {
        run(&InstallOptions { uninstall: true, ..options(home, cli) })
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn json_at(path: &Path) -> Value {
        serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// Everything in a folder, to show that a refused install left no stray file behind.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    /// A settings file a user already has: an event the CLI uses, other keys, a 4-space indent.
    fn user_settings(cli: Cli) -> (&'static str, String) {
        let event = cli.events()[1];
        let value = json!({
            "theme": "dark",
            "hooks": {event: [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]},
            "zzz": [1, 2],
        });
        let mut text = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut text, formatter)).unwrap();
        (event, String::from_utf8(text).unwrap())
    }

    #[test]
    fn a_fresh_home_gets_one_hook_per_event_in_a_new_file() {
        for cli in Cli::ALL {
            let home = home();
            let outcome = installed(&home, cli);
            let report = outcome.result.as_ref().unwrap();
            assert!(report.created && report.backup.is_none(), "{cli:?}");
            assert_eq!(report.count(EditAction::Add), cli.events().len());
            assert_eq!(outcome.path, home.dirs.settings_file(cli));
            let found = hook_config::installed(&json_at(&outcome.path), cli, cli.events());
            assert!(found.missing.is_empty(), "{cli:?}: {found:?}");
            assert_eq!(found.commands, [hook_config::hook_command(PROGRAM, cli)]);
            let message = outcome.to_string();
            assert!(
                message.contains(&format!("added the Switchboard hook for {} events", cli.events().len())),
                "{message}"
            );
            assert!(message.contains("(new file)"), "{message}");
        }
    }

    #[test]
    fn existing_settings_and_user_hooks_keep_their_order_and_indent() {
        for cli in Cli::ALL {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let (event, text) = user_settings(cli);
            write(&path, &text);
            let before: Value = serde_json::from_str(&text).unwrap();

            installed(&home, cli).result.unwrap();
            let after = json_at(&path);
            let keys: Vec<_> = after.as_object().unwrap().keys().cloned().collect();
            let expected: &[&str] =
                if cli == Cli::Gemini { &["theme", "hooks", "zzz", "hooksConfig"] } else { &["theme", "hooks", "zzz"] };
            assert_eq!(keys, expected, "{cli:?}");
            assert_eq!(after["hooks"].as_object().unwrap().keys().next().unwrap(), event);
            assert_eq!(after["hooks"][event][0], before["hooks"][event][0], "the user's group stays first");
            assert_eq!(after["zzz"], json!([1, 2]));
            let written = fs::read_to_string(&path).unwrap();
            assert!(written.starts_with("{\n    \"theme\": \"dark\",\n    \"hooks\": {\n        \""), "{written}");
        }
    }

    #[test]
    fn installing_twice_is_installing_once() {
        for cli in Cli::ALL {
            let home = home();
            installed(&home, cli).result.unwrap();
            let path = home.dirs.settings_file(cli);
            let first = fs::read(&path).unwrap();
            let again = installed(&home, cli);
            assert!(!again.result.as_ref().unwrap().changed(), "{cli:?}");
            assert_eq!(fs::read(&path).unwrap(), first);
            assert!(again.to_string().contains("already connected"), "{again}");
        }
    }

    #[test]
    fn uninstall_leaves_the_user_s_settings_as_they_were() {
        for cli in Cli::ALL {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let (_, text) = user_settings(cli);
            write(&path, &text);
            installed(&home, cli).result.unwrap();
            let outcome = uninstalled(&home, cli);
            assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Remove), cli.events().len());
            assert!(outcome.to_string().contains("removed the Switchboard hook from"), "{outcome}");

            let mut expected: Value = serde_json::from_str(&text).unwrap();
            if cli == Cli::Gemini {
                expected["hooksConfig"] = json!({"enabled": true});
            }
            assert_eq!(json_at(&path), expected, "{cli:?}");
            let backup = fs::read_to_string(format!("{}.switchboard.bak", path.display())).unwrap();
            assert_eq!(backup, text, "the backup is the user's original");
            assert!(uninstalled(&home, cli).to_string().contains("nothing to remove"));
        }
    }

    #[test]
    fn uninstall_with_no_settings_file_creates_nothing() {
        let home = home();
        let outcome = uninstalled(&home, Cli::Claude);
        assert!(!outcome.result.unwrap().changed());
        assert!(!home.dirs.claude.exists());
    }

    #[test]
    fn broken_json_is_refused_by_name_and_line_and_left_byte_for_byte() {
        for cli in Cli::ALL {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let text = "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
            write(&path, text);
            let outcome = installed(&home, cli);
            let error = outcome.result.as_ref().unwrap_err();
            assert!(matches!(error, InstallError::Unparsable { line: 3, .. }), "{error:?}");
            let message = outcome.to_string();
            assert!(message.contains(&path.display().to_string()) && message.contains("line 3"), "{message}");
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
            assert_eq!(listing(path.parent().unwrap()), [path.file_name().unwrap().to_string_lossy()]);
        }
    }

    #[test]
    fn gemini_settings_with_comments_are_refused_not_stripped() {
        let home = home();
        let path = home.dirs.settings_file(Cli::Gemini);
        let text = "{\n  // my theme\n  \"ui\": {\"theme\": \"a//b\"} /* end */\n}\n";
        write(&path, text);
        let error = installed(&home, Cli::Gemini).result.unwrap_err();
        assert!(matches!(error, InstallError::HasComments { .. }), "{error:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        // Claude Code reads strict JSON, so there the same file is simply invalid.
        write(&home.dirs.settings_file(Cli::Claude), text);
        assert!(matches!(installed(&home, Cli::Claude).result, Err(InstallError::Unparsable { line: 2, .. })));
    }

    #[test]
    fn settings_with_no_place_for_a_hook_are_refused() {
        let home = home();
        let path = home.dirs.settings_file(Cli::Claude);
        write(&path, "{\"hooks\": []}");
        let error = installed(&home, Cli::Claude).result.unwrap_err();
        assert_eq!(error.kind(), "shape");
        assert!(error.to_string().contains("`hooks` is not an object"), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\": []}");
    }

    #[test]
    fn a_symlinked_settings_file_is_edited_through_the_link() {
        let home = home();
        let dotfiles = tempfile::tempdir().unwrap();
        let real = dotfiles.path().join("claude-settings.json");
        fs::write(&real, "{\"model\": \"opus\"}\n").unwrap();
        let link = home.dirs.settings_file(Cli::Claude);
        fs::create_dir_all(&home.dirs.claude).unwrap();
        symlink(&real, &link).unwrap();

        let outcome = installed(&home, Cli::Claude);
        assert_eq!(outcome.result.as_ref().unwrap().target, real);
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(fs::read_link(&link).unwrap(), real);
        let settings = json_at(&real);
        assert_eq!(settings["model"], "opus");
        assert!(hook_config::installed(&settings, Cli::Claude, Cli::Claude.events()).missing.is_empty());
        assert!(outcome.to_string().contains("through the link"), "{outcome}");
        // The backup sits beside the name the user knows, not in the dotfiles folder.
        assert!(Path::new(&format!("{}.switchboard.bak", link.display())).is_file());
        assert_eq!(listing(dotfiles.path()), ["claude-settings.json"]);
    }

    #[test]
    fn a_relative_symlink_resolves_against_its_folder() {
        let home = home();
        fs::create_dir_all(home.dirs.codex.join("real")).unwrap();
        symlink("real/hooks.json", home.dirs.settings_file(Cli::Codex)).unwrap();
        installed(&home, Cli::Codex).result.unwrap();
        assert!(home.dirs.codex.join("real/hooks.json").is_file(), "a dangling link's target is created");
    }

    #[test]
    fn a_read_only_file_is_refused_with_a_clear_error() {
        let home = home();
        let path = home.dirs.settings_file(Cli::Claude);
        write(&path, "{}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let outcome = installed(&home, Cli::Claude);
        assert!(
            matches!(outcome.result, Err(InstallError::ReadOnly { ref path }) if path == &home.dirs.settings_file(Cli::Claude))
        );
        let message = outcome.to_string();
        assert!(message.starts_with("Claude Code: ") && message.contains("is read-only"), "{message}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
        assert_eq!(listing(&home.dirs.claude), ["settings.json"], "no backup, no temporary file");
    }

    #[test]
    fn a_read_only_folder_is_refused_with_a_clear_error() {
        let home = home();
        let path = home.dirs.settings_file(Cli::Gemini);
        write(&path, "{}");
        fs::set_permissions(&home.dirs.gemini, fs::Permissions::from_mode(0o555)).unwrap();
        let result = installed(&home, Cli::Gemini).result;
        fs::set_permissions(&home.dirs.gemini, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(result, Err(InstallError::ReadOnly { ref path }) if path == &home.dirs.gemini), "{result:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
    }

    #[test]
    fn a_dry_run_reports_the_change_and_writes_nothing() {
        let home = home();
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, Cli::Claude) });
        assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Add), Cli::Claude.events().len());
        assert!(!home.dirs.claude.exists(), "not even the folder");
        let message = outcome.to_string();
        assert!(message.contains("dry run, nothing written"), "{message}");
        assert!(message.contains("\n  + hooks.PreToolUse: {\"matcher\":\"*\""), "{message}");

        let path = home.dirs.settings_file(Cli::Codex);
        write(&path, "{\"hooks\":{}}");
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, Cli::Codex) });
        assert!(outcome.result.unwrap().changed());
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\":{}}");
        assert_eq!(listing(&home.dirs.codex), ["hooks.json"]);
    }

    #[test]
    fn permissions_are_kept_and_the_backup_is_made_once() {
        let home = home();
        let path = home.dirs.settings_file(Cli::Claude);
        write(&path, "{\"env\": {\"TOKEN\": \"secret\"}}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let backup = PathBuf::from(format!("{}.switchboard.bak", path.display()));

        let first = installed(&home, Cli::Claude);
        assert_eq!(first.result.as_ref().unwrap().backup.as_ref(), Some(&backup));
        assert!(first.to_string().contains("previous file is saved as"), "{first}");
        assert_eq!((mode(&path), mode(&backup)), (0o600, 0o600));

        // The binary moves: the hooks are repointed, and the first backup is kept as it was.
        let moved =
            run(&InstallOptions { command_path: "/usr/local/bin/switchboard".into(), ..options(&home, Cli::Claude) });
        let report = moved.result.as_ref().unwrap();
        assert_eq!(report.count(EditAction::Update), Cli::Claude.events().len());
        assert_eq!(report.backup, None);
        assert!(
            moved
                .to_string()
                .contains(&format!("pointed {} hooks at this switchboard binary", Cli::Claude.events().len())),
            "{moved}"
        );
        assert_eq!(fs::read_to_string(&backup).unwrap(), "{\"env\": {\"TOKEN\": \"secret\"}}");
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn codex_asks_for_the_trust_review_and_reports_hooks_switched_off() {
        let home = home();
        write(&home.dirs.codex.join("config.toml"), "model = \"o4\"\n[features]\nhooks = false\n");
        let outcome = installed(&home, Cli::Codex);
        let message = outcome.to_string();
        assert!(message.contains("Next: Codex runs a new or changed hook only after you trust it"), "{message}");
        assert!(message.contains("Warning: `[features] hooks = false`"), "{message}");
        assert_eq!(fs::read_to_string(home.dirs.codex.join("config.toml")).unwrap().lines().count(), 3);
        assert!(!installed(&home, Cli::Codex).to_string().contains("Next:"), "nothing new to trust");
    }

    #[test]
    fn gemini_reports_hooks_it_turned_on_and_a_user_s_choice_to_keep_them_off() {
        let fresh = home();
        let message = installed(&fresh, Cli::Gemini).to_string();
        assert!(message.contains("turned hooks on (hooksConfig.enabled = true)"), "{message}");
        let switched_off = home();
        write(&switched_off.dirs.settings_file(Cli::Gemini), "{\"hooksConfig\": {\"enabled\": false}}");
        let message = installed(&switched_off, Cli::Gemini).to_string();
        assert!(!message.contains("turned hooks on"), "{message}");
        assert!(message.contains("Warning: `hooksConfig.enabled` is false"), "{message}");
    }

    #[test]
    fn the_command_path_must_be_absolute() {
        let home = home();
        let outcome = run(&InstallOptions { command_path: "switchboard".into(), ..options(&home, Cli::Claude) });
        assert_eq!(outcome.result.unwrap_err().kind(), "commandPath");
        assert!(!home.dirs.claude.exists());
    }

    #[test]
    fn one_cli_failing_does_not_stop_the_others() {
        let home = home();
        write(&home.dirs.settings_file(Cli::Claude), "nope");
        let outcomes = install(&InstallOptions { clis: Cli::ALL.to_vec(), ..options(&home, Cli::Claude) });
        let ok: Vec<bool> = outcomes.iter().map(|outcome| outcome.result.is_ok()).collect();
        assert_eq!(ok, [false, true, true]);
    }

    #[test]
    fn config_dirs_follow_each_cli_s_environment_variables() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| OsString::from(value))
        };
        let defaults = ConfigDirs::from_vars(vars(&[("HOME", "/home/u"), ("CODEX_HOME", "")])).unwrap();
        assert_eq!(defaults, ConfigDirs::in_home(Path::new("/home/u")));
        assert_eq!(defaults.settings_file(Cli::Codex), Path::new("/home/u/.codex/hooks.json"));
        let custom = ConfigDirs::from_vars(vars(&[
            ("HOME", "/home/u"),
            ("CLAUDE_CONFIG_DIR", "/cfg/claude"),
            ("CODEX_HOME", "/cfg/codex"),
            ("GEMINI_CLI_HOME", "/cfg"),
        ]))
        .unwrap();
        assert_eq!(custom.settings_file(Cli::Claude), Path::new("/cfg/claude/settings.json"));
        assert_eq!(custom.settings_file(Cli::Codex), Path::new("/cfg/codex/hooks.json"));
        assert_eq!(custom.settings_file(Cli::Gemini), Path::new("/cfg/.gemini/settings.json"));
        assert_eq!(ConfigDirs::from_vars(vars(&[("CODEX_HOME", "/cfg/codex")])), None);
    }

    #[test]
    fn status_tells_found_installed_moved_and_unreadable_apart() {
        let home = home();
        fs::create_dir_all(&home.dirs.claude).unwrap();
        installed(&home, Cli::Codex).result.unwrap();
        write(&home.dirs.settings_file(Cli::Gemini), "{oops");

        let statuses = status(&home.dirs, Path::new(PROGRAM), None);
        let [claude, codex, gemini] = statuses.as_slice() else { panic!("{statuses:?}") };
        assert!(claude.found && claude.hooks == HooksState::NotInstalled);
        assert_eq!(codex.hooks, HooksState::Installed { current: true });
        assert!(codex.next_step.is_some(), "Codex has not trusted the new hooks yet");
        let trust = codex.trust.as_ref().unwrap();
        assert_eq!((trust.trusted.len(), trust.untrusted.len()), (0, Cli::Codex.events().len()));
        assert_eq!((claude.trust.as_ref(), gemini.trust.as_ref()), (None, None));
        assert!(matches!(&gemini.hooks, HooksState::Unreadable { message } if message.contains("line 1")));

        let moved = status(&home.dirs, Path::new("/elsewhere/switchboard"), None);
        assert_eq!(moved[1].hooks, HooksState::Installed { current: false });

        let json = serde_json::to_value(&statuses[1]).unwrap();
        assert_eq!(json["cli"], "codex");
        assert_eq!(json["hooks"], json!({"state": "installed", "current": true}));
        assert!(json.get("settingsFile").is_some());
    }

    #[test]
    fn status_lists_the_events_a_partial_install_lacks() {
        let home = home();
        let command = hook_config::hook_command(PROGRAM, Cli::Claude);
        let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}});
        write(&home.dirs.settings_file(Cli::Claude), &settings.to_string());
        let HooksState::Partial { missing } = &status(&home.dirs, Path::new(PROGRAM), None)[0].hooks else { panic!() };
        assert_eq!(missing.len(), Cli::Claude.events().len() - 1);
        assert!(!missing.contains(&"Stop".to_owned()));
    }

    #[test]
    fn comments_are_blanked_outside_strings_only() {
        let text = br#"{"a": "http://x/*y*/", /* b */ "c": 1 // d
}"#;
        let value: Value = serde_json::from_slice(&without_comments(text)).unwrap();
        assert_eq!(value, json!({"a": "http://x/*y*/", "c": 1}));
    }
    #[test]
    fn an_older_claude_code_is_not_given_an_event_it_would_reject_the_file_for() {
        let home = home();
        let old = Some(Version(2, 1, 70));
        let outcome = run(&InstallOptions { claude_version: old, ..options(&home, Cli::Claude) });
        let settings = json_at(&home.dirs.settings_file(Cli::Claude));
        assert!(!settings["hooks"].as_object().unwrap().contains_key("StopFailure"));
        assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Add), Cli::Claude.events().len() - 1);
        let message = outcome.to_string();
        assert!(message.contains("Claude Code 2.1.70 predates the StopFailure hook event"), "{message}");
        assert_eq!(status(&home.dirs, Path::new(PROGRAM), old)[0].hooks, HooksState::Installed { current: true });

        // After an update of Claude Code, installing again adds it.
        let newer = run(&InstallOptions { claude_version: Some(Version(2, 1, 90)), ..options(&home, Cli::Claude) });
        assert_eq!(newer.result.unwrap().count(EditAction::Add), 1);
    }

    #[test]
    fn a_cli_version_is_read_from_its_output_within_a_time_limit() {
        let echo = version_of(Command::new("sh").args(["-c", "echo '2.1.78 (Claude Code)'"]), Duration::from_secs(5));
        assert_eq!(echo, Some(Version(2, 1, 78)));
        let started = Instant::now();
        assert_eq!(version_of(Command::new("sh").args(["-c", "sleep 5"]), Duration::from_millis(100)), None);
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(version_of(&mut Command::new("/nonexistent/claude"), Duration::from_secs(1)), None);
    }
}
