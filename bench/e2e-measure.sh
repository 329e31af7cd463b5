#!/usr/bin/env bash
# The #[ignore]d measurements in tests/e2e/measure.rs, run against the real app in a real web view
# under a private X server and session bus: hook POST → badge latency (p50/p99 over 200 events),
# idle PSS (empty vs 100 sessions), threads per unclicked notification, and the scale run
# (`measure_scale`: the app started with 0/100/300/1,000 sessions — first paint, frame rate under
# 50 status changes/s, PSS). Prints the numbers; needs what `make test-e2e` needs.
#
#   bench/e2e-measure.sh                        every measurement, debug build of the app
#   RELEASE=1 bench/e2e-measure.sh measure_scale  only the scale run, release build of the app
#
# Arguments are test-name filters (default: every `measure_` test).
set -euo pipefail
cd "$(dirname "$0")/.."
npm --prefix ui run build >/dev/null
if [ "${RELEASE:-0}" = 1 ]; then
  # The UI is embedded at compile time: built above, then the app.
  cargo build --release --bin switchboard-app
  export SWITCHBOARD_E2E_APP="$PWD/target/release/switchboard-app"
fi
exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
  cargo test --test e2e -- --ignored --nocapture --test-threads=1 "${@:-measure_}"
