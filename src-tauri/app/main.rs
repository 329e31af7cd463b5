//! `switchboard-app`: the desktop window. Users start it as `switchboard` (which execs this).

fn main() -> std::process::ExitCode {
    // WebKitGTK's accelerated compositing roughly doubles the web process's memory for a canvas
    // like ours (measured: +125 MiB PSS with 100 sessions, +42 MiB without), and under software
    // rendering it buys nothing. Users can still opt in by setting the variable themselves.
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
        // Nothing in this process draws with GL then, yet GTK opens GLX on the display to choose
        // visuals; with no GPU (a VM, Xvfb) that loads Mesa's software rasterizer and LLVM,
        // 0.1–0.3 s of the window's start (issue 47).
        if std::env::var_os("GDK_GL").is_none() {
            std::env::set_var("GDK_GL", "disable");
        }
    }
    // WebKitGTK's memory-pressure monitor reads /proc/meminfo and the cgroup's files a byte per
    // system call every few seconds (about 400 calls, 3 ms of a quiet machine's CPU each time,
    // measured), all day, for a board that holds a few hundred MiB. The web process still
    // watches its own footprint and frees its caches past its limits.
    if std::env::var_os("WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR").is_none() {
        std::env::set_var("WEBKIT_DISABLE_MEMORY_PRESSURE_MONITOR", "1");
    }
    match switchboard_engine::state_dir::state_dir() {
        Some(state_dir) => switchboard_engine::init_tracing_with_file(&state_dir),
        None => switchboard_engine::init_tracing(),
    }
    // The log's first line, before anything can fail: which build ran, when.
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "the desktop app starts");
    match switchboard::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            let said = switchboard_engine::text::printable_line(&switchboard_engine::error_text(error.as_ref()));
            // Also in the log: started from a menu, the app has no terminal to print to.
            tracing::error!("the desktop app stops: {said}");
            eprintln!("switchboard: {said}");
            std::process::ExitCode::FAILURE
        }
    }
}
