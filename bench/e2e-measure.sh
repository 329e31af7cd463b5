#!/usr/bin/env bash
# Hook POST → badge latency (p50/p99 over 200 events) and idle PSS (empty vs 100 sessions) of the
# real app in a real web view: the #[ignore]d measurements in tests/e2e/measure.rs, run under a
# private X server and session bus. Prints the numbers; needs what `make test-e2e` needs.
set -euo pipefail
cd "$(dirname "$0")/.."
npm --prefix ui run build >/dev/null
exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
  cargo test --test e2e -- --ignored --nocapture --test-threads=1 measure_ "$@"
