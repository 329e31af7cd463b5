#!/usr/bin/env bash
# Instructions per hook, counted (not timed): `switchboard serve` under callgrind takes a warm-up,
# then its counters are zeroed, N hooks are posted at 1,000/s (bench/loadgen.rs: 1,000 sessions,
# every event a status change), and the counters are dumped two seconds later, so the store's
# commits are in. Every thread of the process is counted, user space only.
#
# Why: on a VM two timed runs of one build differ by ±10 %, so a change worth 3 % cannot be seen
# in CPU time; the instruction count of the same run repeats to within 1 %. It does not see the
# kernel (about half of a hook's CPU) or cache misses: it says whether user-space work went down,
# bench/run.sh says what that is worth.
#
# Usage: bench/instructions.sh [BIN] [N]   (default: what scripts/pgo.sh builds for this machine, 3000)
# Needs valgrind (`apt-get install valgrind`) and bench/out/loadgen (bench/run.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/$(rustc -vV | sed -n "s/^host: //p")/release/switchboard-static}
N=${2:-3000}
LOADGEN=bench/out/loadgen
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
[ -x "$LOADGEN" ] || { mkdir -p bench/out; rustc -O --edition 2021 -o "$LOADGEN" bench/loadgen.rs; }

state=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$state"' EXIT
SWITCHBOARD_HOME="$state/home" SWITCHBOARD_NO_NOTIFY=1 valgrind --tool=callgrind \
  --callgrind-out-file="$state/callgrind.%p" "$BIN" serve --no-notify >/dev/null 2>"$state/valgrind.log" &
pid=$!
for _ in $(seq 600); do [ -s "$state/home/endpoint.json" ] && break; sleep 0.1; done
[ -s "$state/home/endpoint.json" ] || { echo "serve did not start under valgrind" >&2; cat "$state/valgrind.log" >&2; exit 1; }
read -r port key < <(python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(e['port'], e['key'])" "$state/home/endpoint.json")
hook=(--port "$port" --path "/hook/claude?key=$key" --warmup 0 --conns 8)

"$LOADGEN" "${hook[@]}" --rate 500 --seconds 1 >/dev/null
sleep 2
callgrind_control --zero "$pid" >/dev/null 2>&1
"$LOADGEN" "${hook[@]}" --rate 1000 --seconds $((N / 1000)) | grep -o 'answered_total=[0-9]* lost=[0-9]*'
sleep 2
callgrind_control --dump "$pid" >/dev/null 2>&1
sleep 1
total=$(grep -h '^summary:' "$state"/callgrind.*.1 | awk '{print $2}')
python3 -c "import sys; t, n = int(sys.argv[1]), int(sys.argv[2]); print(f'instructions={t} hooks={n} per_hook={t / n:,.0f}')" "$total" "$N"
