//! Switchboard's engine: everything with IO but no window, in rooms that show its processes —
//! the `hook` forwarder, the running instance, setting up, and the clients of an instance — over
//! what they share (`protocol`, `endpoint`, `clock`, …). No Tauri here, so the headless commands
//! and their tests need no web view. No room imports another's internals: the forwarder and the
//! instance meet only in `protocol`.

// Shared by every process: what crosses between them, and the ground they stand on.
pub mod clock;
pub mod config;
pub mod endpoint;
pub mod files;
/// The desktop app's daily log file, which never follows a link (issue 45).
pub mod log_file;
/// The one room that names an operating system (issue 38).
pub mod platform;
pub mod process;
pub mod protocol;
/// Hook events the instance could not take in time, kept until it can (issue 45).
pub mod spool;
pub mod state_dir;
/// Text from outside made safe to print (issue 34).
pub mod text;

/// The use cases both shells (the command line and the app) call.
pub mod api;
#[cfg(test)]
mod bindings;

// The rooms, one per process or job (docs/ARCHITECTURE.md):
/// Talking to a running instance from another process: HTTP over loopback, `status`, `link`.
pub mod client;
/// The `hook` forwarder: a short-lived process on every tool call of every agent.
pub mod hook;
/// The running instance (`serve` and the app): hub, hook server, store, watchers, notifier.
pub mod instance;
/// Other machines' agents on this board, over the user's own pipes (issue 23).
pub mod remote;
/// Setting up: the installer, `doctor`, Codex's trust entries.
pub mod setup;
/// The one door to an agent's terminal: tmux, the tie, typing, the screen (issue 33).
pub mod terminal;

/// Every process that links the engine (the app, `serve`, the forwarder, the tests) allocates
/// with mimalloc: a hook's path allocates for its request, its event and the session it changes,
/// and the system allocators spent a tenth of that path's CPU doing it (issue 47).
///
/// Tuned before its first allocation: with its defaults it commits its arenas eagerly and keeps
/// freed pages for a while, and `serve` under a flood of new session ids rose to 112–129 MiB
/// (64 MiB is the bound); arenas committed as used and pages returned at once keep it at ~58.
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

struct Allocator;

static TUNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Allocator {
    #[inline]
    fn tune() {
        use std::sync::atomic::Ordering::Relaxed;
        if !TUNED.load(Relaxed) {
            TUNED.store(true, Relaxed);
            // mimalloc 3's `mi_option_e`: `arena_eager_commit` is 4, `purge_delay` 15.
            // SAFETY: sets two options; allocates nothing, callable before any allocation.
            unsafe {
                libmimalloc_sys::mi_option_set(4, 0);
                libmimalloc_sys::mi_option_set(15, 0);
            }
        }
    }
}

/// What mimalloc's plain `mi_malloc` already aligns to, as C's `malloc` does (`max_align_t`): a
/// block of 16 bytes or more sits on 16, a smaller one on its own size.
const MALLOC_ALIGN: usize = 16;

/// Whether the plain calls serve `align` for `size` bytes. mimalloc's aligned calls take a slow
/// path for any block over 1 KiB whose size is not a power of two: over-allocation and an offset,
/// for an alignment that plain `mi_malloc` gives anyway (1.9 % of the hook thread's samples at
/// saturation went there; issue 47).
#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= MALLOC_ALIGN && align <= size
}

// SAFETY: every call goes to mimalloc, which upholds `GlobalAlloc`'s contract: the plain calls
// only where their alignment suffices (`plain`), the aligned ones otherwise.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::tune();
        if plain(layout.align(), layout.size()) {
            return libmimalloc_sys::mi_malloc(layout.size()).cast();
        }
        libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::tune();
        if plain(layout.align(), layout.size()) {
            return libmimalloc_sys::mi_zalloc(layout.size()).cast();
        }
        libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        libmimalloc_sys::mi_free(ptr.cast());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            return libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast();
        }
        libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
    }
}

pub use config::Config;
pub use instance::hub::{Hub, Input, Inputs, Update};
pub use instance::server::HookServer;
pub use instance::{serve, Instance, ServeError};

/// An error and its causes on one line, each cause said once: a message that already quotes its
/// source (`cannot write x: Permission denied`) is not followed by the same words again.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let words = error.to_string();
        if !text.contains(&words) {
            text = format!("{text}: {words}");
        }
        cause = error.source();
    }
    text
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: Switchboard's own info and up), in colour
/// only on a terminal: stderr redirected to a file (a systemd unit, `serve 2>log`) gets plain text.
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .fmt_fields(log_fields())
        .with_ansi(stderr_is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

/// How a log line writes its message and fields: through the one sanitiser (issue 45), each on
/// one line, so a box's error or a session's title in a log line cannot reach the terminal (or
/// the log file's reader) as an escape sequence. The formatter's own colours are added after.
fn log_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + Send + Sync + 'static {
    use tracing_subscriber::field::MakeExt;
    tracing_subscriber::fmt::format::debug_fn(|writer, field, value| {
        let text = text::printable_line(&format!("{value:?}"));
        if field.name() == "message" {
            write!(writer, "{text}")
        } else {
            write!(writer, "{field}={text}")
        }
    })
    .delimited(" ")
}

fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The most a day's log file takes (issue 34: a box repeating huge errors once grew it by a
/// gigabyte in seconds); past it the day's further lines are dropped, and that is said once.
const LOG_BYTES_PER_DAY: u64 = 16 * 1024 * 1024;

/// A writer that keeps to [`LOG_BYTES_PER_DAY`] per day (UTC) in front of the daily file.
struct CappedLog {
    file: log_file::DailyFile,
    /// The day (days since 1970) and the bytes written on it.
    today: std::sync::Mutex<(u64, u64)>,
}

struct CappedLine<'a>(&'a CappedLog);

impl std::io::Write for CappedLine<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let day = clock::now_millis() / 86_400_000;
        let mut today = self.0.today.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if today.0 != day {
            *today = (day, 0);
        }
        let written = today.1;
        today.1 = written.saturating_add(buf.len() as u64);
        drop(today);
        if written + buf.len() as u64 <= LOG_BYTES_PER_DAY {
            self.0.file.write_on(day, buf)?;
            return Ok(buf.len());
        }
        if written <= LOG_BYTES_PER_DAY {
            let note = b"switchboard: today's log reached its size limit; further lines today are dropped\n";
            let _ = self.0.file.write_on(day, note);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for CappedLog {
    type Writer = CappedLine<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        CappedLine(self)
    }
}

/// The desktop app also keeps a daily log file in `<state dir>/logs` (the last 7 days, at most
/// [`LOG_BYTES_PER_DAY`] each), since nobody watches its stderr. The state directory is made
/// private first (issue 45): nothing is written in a home another user could plant links in.
pub fn init_tracing_with_file(state_dir: &std::path::Path) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let file = state_dir::make_private(state_dir).and_then(|()| log_file::DailyFile::new(&state_dir.join("logs")));
    let stderr = tracing_subscriber::fmt::layer()
        .fmt_fields(log_fields())
        .with_ansi(stderr_is_terminal())
        .with_writer(std::io::stderr);
    let registry = tracing_subscriber::registry().with(log_filter()).with(stderr);
    let _ = match file {
        Ok(file) => {
            let capped = CappedLog { file, today: std::sync::Mutex::new((0, 0)) };
            let layer = tracing_subscriber::fmt::layer().fmt_fields(log_fields()).with_ansi(false).with_writer(capped);
            registry.with(layer).try_init()
        }
        Err(error) => {
            let init = registry.try_init();
            tracing::warn!(%error, "no log file in {}", state_dir.display());
            init
        }
    };
}

fn log_filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,switchboard=info,switchboard_engine=info"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_days_log_keeps_to_its_size_limit_and_says_so_once() {
        use std::io::Write;
        use tracing_subscriber::fmt::MakeWriter;
        let dir = tempfile::tempdir().unwrap();
        let file = super::log_file::DailyFile::new(dir.path()).unwrap();
        let capped = super::CappedLog { file, today: std::sync::Mutex::new((0, 0)) };
        let line = [b'x'; 1023].iter().copied().chain(std::iter::once(b'\n')).collect::<Vec<u8>>();
        for _ in 0..(super::LOG_BYTES_PER_DAY / 1024 + 2_000) {
            capped.make_writer().write_all(&line).unwrap();
        }
        drop(capped);
        let size: u64 = std::fs::read_dir(dir.path()).unwrap().flatten().map(|f| f.metadata().unwrap().len()).sum();
        assert!(size <= super::LOG_BYTES_PER_DAY + 200, "{size} bytes");
        let text =
            std::fs::read_to_string(std::fs::read_dir(dir.path()).unwrap().flatten().next().unwrap().path()).unwrap();
        assert_eq!(text.matches("size limit").count(), 1);
    }

    /// Issue 45: what a log line carries from outside reaches the log without its escapes.
    #[test]
    fn a_log_lines_message_and_fields_pass_the_sanitiser() {
        #[derive(Clone, Default)]
        struct Lines(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(super::log_fields())
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let said = "gone\x1b]52;c;AAAA\x07\x1b[2J\u{202e}\nfake line";
        tracing::subscriber::with_default(subscriber, || tracing::warn!(box_said = said, "the box said {said}"));
        let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'), "{text:?}");
        assert!(text.contains("the box said gone fake line") && text.contains("box_said="), "{text}");
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot write /x: {source}")]
    struct Quoting {
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot start")]
    struct Silent {
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let denied = || std::io::Error::from_raw_os_error(libc::EACCES);
        let text = super::error_text(&Quoting { source: denied() });
        assert_eq!(text.matches("Permission denied").count(), 1, "{text}");
        assert_eq!(super::error_text(&Silent { source: denied() }), "cannot start: Permission denied (os error 13)");
    }
}
