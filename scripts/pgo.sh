#!/usr/bin/env bash
# The `switchboard` command (src-tauri/cli: `serve`, `hook`, `status`) built profile-guided, with
# whole-program optimization (issue 47):
#
#   scripts/pgo.sh [TARGET]    # default: this machine's triple; `make static` passes the musl one
#
# 1. an instrumented build (its own folder, target/pgo/, so no other build's cache is touched);
# 2. that build's `serve` takes every recorded hook payload of tests/fixtures
#    (scripts/pgo-train.py: not the benchmark's load), then stops, writing what it counted;
# 3. the release build, optimized with those counts: target/TARGET/release/switchboard-static.
#
# Always built for an explicit --target, so RUSTFLAGS reach only the CLI's own code, never the
# build scripts or the host's target/release that the app's builds share.
# Needs llvm-profdata (rustup's `llvm-tools`, added when missing). Without it, or with PGO=0,
# the CLI is built the plain way and the script says so. CARGO_PROFILE_RELEASE_* from the
# environment win over the fat LTO and the one codegen unit set here (CI's quick builds).
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=$(rustc -vV | sed -n 's/^host: //p')
TARGET=${1:-$HOST}
TARGET_DIR=${CARGO_TARGET_DIR:-target}
export CARGO_PROFILE_RELEASE_LTO=${CARGO_PROFILE_RELEASE_LTO:-fat}
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-1}
build=(cargo build -p switchboard-cli --release --target "$TARGET")

plain() {
  echo "pgo: $1; building the CLI without a profile" >&2
  "${build[@]}"
  exit 0
}
[ "${PGO:-1}" != 0 ] || plain "PGO=0"
profdata=$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  rustup component add llvm-tools >&2 || true
  [ -x "$profdata" ] || plain "llvm-profdata is missing (rustup component add llvm-tools failed)"
fi

work=$(realpath -m "$TARGET_DIR/pgo")
raw=$work/raw-$TARGET
profile=$work/switchboard-$TARGET.profdata
instrumented=$work/$TARGET/release/switchboard-static
CARGO_TARGET_DIR=$work RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$raw" "${build[@]}"

# Trained again only when the instrumented build is newer than the profile it gave.
if [ ! -s "$profile" ] || [ "$instrumented" -nt "$profile" ]; then
  rm -rf "$raw" && mkdir -p "$raw"
  home=$(mktemp -d)
  trap 'kill "$serve" 2>/dev/null || true; rm -rf "$home"' EXIT
  LLVM_PROFILE_FILE="$raw/serve-%p.profraw" SWITCHBOARD_HOME="$home/state" SWITCHBOARD_NO_NOTIFY=1 \
    "$instrumented" serve --no-notify 2>"$home/serve.log" &
  serve=$!
  for _ in $(seq 300); do [ -s "$home/state/endpoint.json" ] && break; sleep 0.1; done
  [ -s "$home/state/endpoint.json" ] || { cat "$home/serve.log" >&2; echo "pgo: serve did not start" >&2; exit 1; }
  read -r port key < <(python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(e['port'], e['key'])" \
    "$home/state/endpoint.json")
  python3 scripts/pgo-train.py "$port" "$key" >&2
  # A clean stop: the counts are written as the process exits.
  kill -TERM "$serve" && wait "$serve" || true
  ls "$raw"/serve-*.profraw >/dev/null 2>&1 || { echo "pgo: serve wrote no profile" >&2; exit 1; }
  "$profdata" merge -o "$profile" "$raw"
fi
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$profile" "${build[@]}"
# CI (PRUNE=1) builds once: the instrumented build's folder is only disk after this.
[ "${PRUNE:-0}" != 1 ] || rm -rf "${work:?}/$TARGET"
echo "pgo: $TARGET_DIR/$TARGET/release/switchboard-static, optimized with $profile" >&2
