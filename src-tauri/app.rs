//! `switchboard-app`: the desktop window. Users start it as `switchboard` (which execs this).

fn main() -> std::process::ExitCode {
    switchboard_engine::init_tracing();
    match switchboard::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
