#!/usr/bin/env bash
# Ingest and forwarder benchmarks (not tests): numbers to compare, from one run on one machine.
#   bench/run.sh            # DURATION=10 CONNECTIONS=64 by default
# Prints a markdown table and writes it to bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
mkdir -p bench/out
for tool in wrk hyperfine curl node; do
  command -v $tool >/dev/null || { echo "bench needs $tool (apt-get install wrk hyperfine curl)"; exit 1; }
done
cargo build --release --bin switchboard >/dev/null 2>&1 || cargo build --release --bin switchboard
BIN=target/release/switchboard
HOME_DIR=$(mktemp -d)
BODY=tests/fixtures/claude/PreToolUse-Bash.json
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$HOME_DIR" "${NO_PERSIST_HOME:-}"; }
trap cleanup EXIT
echo "(wrk posts alternate working/blocked events for 1,000 sessions; see bench/post.lua)" >&2

SWITCHBOARD_HOME=$HOME_DIR $BIN serve --no-notify 2>/dev/null & pids+=($!)
for _ in $(seq 100); do [ -s "$HOME_DIR/endpoint.json" ] && break; sleep 0.05; done
PORT=$(python3 -c "import json,sys; print(json.load(open('$HOME_DIR/endpoint.json'))['port'])")
KEY=$(python3 -c "import json,sys; print(json.load(open('$HOME_DIR/endpoint.json'))['key'])")

NO_PERSIST_HOME=$(mktemp -d)
SWITCHBOARD_HOME=$NO_PERSIST_HOME SWITCHBOARD_NO_PERSIST=1 $BIN serve --no-notify 2>/dev/null & pids+=($!)
for _ in $(seq 100); do [ -s "$NO_PERSIST_HOME/endpoint.json" ] && break; sleep 0.05; done
NP_PORT=$(python3 -c "import json,sys; print(json.load(open('$NO_PERSIST_HOME/endpoint.json'))['port'])")
NP_KEY=$(python3 -c "import json,sys; print(json.load(open('$NO_PERSIST_HOME/endpoint.json'))['key'])")

node bench/node-peer.js "$KEY" > "$HOME_DIR/node-port" & pids+=($!)
for _ in $(seq 100); do [ -s "$HOME_DIR/node-port" ] && break; sleep 0.05; done
NODE_PORT=$(cat "$HOME_DIR/node-port")

ingest() { # name port [connections threads] [key]
  local out="bench/out/wrk-$2-${3:-$CONNECTIONS}.txt" rps p50 p99
  HOOK_PATH="/hook/claude?key=${5:-$KEY}" wrk -t"${4:-2}" -c"${3:-$CONNECTIONS}" -d"${DURATION}s" --latency \
    -s bench/post.lua "http://127.0.0.1:$2" > "$out"
  rps=$(awk '/Requests\/sec/ {print $2}' "$out")
  p50=$(awk '$1=="50%" {print $2}' "$out")
  p99=$(awk '$1=="99%" {print $2}' "$out")
  echo "| $1 | $rps | $p50 | $p99 |"
}

{
  echo "## Ingest: POST /hook/claude, keep-alive, $CONNECTIONS connections, ${DURATION}s (wrk -t2)"
  echo
  echo "| server | requests/s | p50 | p99 |"
  echo "|---|---|---|---|"
  ingest "switchboard (SQLite persistence on)" "$PORT"
  ingest "switchboard (SWITCHBOARD_NO_PERSIST=1)" "$NP_PORT" "$CONNECTIONS" 2 "$NP_KEY"
  ingest node-http "$NODE_PORT"
  echo
  echo "Light load, one connection (the ack latency an agent actually sees):"
  echo
  echo "| server | requests/s | p50 | p99 |"
  echo "|---|---|---|---|"
  ingest switchboard-1conn "$PORT" 1 1
  ingest node-http-1conn "$NODE_PORT" 1 1
  echo
  echo "## Forwarder: one hook event, wall time per call (hyperfine, 200 runs)"
  echo
  # Through sh (hyperfine subtracts the shell's own start-up), stdin from the payload file.
  EMPTY=$(mktemp -d)
  hyperfine --warmup 20 --runs 200 --export-json "$HOME_DIR/fwd.json" \
    -n "switchboard hook claude" "SWITCHBOARD_HOME=$HOME_DIR $BIN hook claude < $BODY" \
    -n "curl -s --data-binary @-" "curl -s -o /dev/null --data-binary @- 'http://127.0.0.1:$PORT/hook/claude?key=$KEY' < $BODY" \
    -n "switchboard hook claude, no instance running" "SWITCHBOARD_HOME=$EMPTY $BIN hook claude < $BODY" >/dev/null 2>&1
  python3 - "$HOME_DIR/fwd.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
print("| command | median | mean | p90 |")
print("|---|---|---|---|")
for r in results:
    times = sorted(r["times"])
    p90 = times[int(len(times) * 0.9)]
    print(f"| `{r['command']}` "
          f"| {r['median']*1000:.2f} ms | {r['mean']*1000:.2f} ms | {p90*1000:.2f} ms |")
PY
  rmdir "$EMPTY"
  echo
  echo "Sessions in the persisting instance's snapshot after the run: $(SWITCHBOARD_HOME=$HOME_DIR $BIN status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["sessions"]))')"
} | tee bench/out/results.md
