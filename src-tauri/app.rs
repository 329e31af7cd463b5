//! `switchboard-app`: the desktop window. Users start it as `switchboard` (which execs this).

fn main() -> std::process::ExitCode {
    match switchboard_engine::state_dir::state_dir() {
        Some(state_dir) => switchboard_engine::init_tracing_with_file(&state_dir),
        None => switchboard_engine::init_tracing(),
    }
    match switchboard::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
