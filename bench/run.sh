#!/usr/bin/env bash
# Hook-ingest benchmark (not a test): Switchboard against the Node peer, measured so it cannot mislead.
#
#   bench/run.sh                 # RUNS=3, about 7 minutes on 2 cores
#
# - Each server runs alone: started fresh for its block and stopped after it, so nothing else of
#   ours runs meanwhile; between phases the server is drained (every answer in, its CPU time and
#   its SQLite WAL unchanged for a second), so a write-behind commit is neither missed nor left to
#   run into the next measurement.
# - RUNS runs, each in another order (A B C, B C A, C A B): no server always goes first or last.
# - Per server: saturated requests/s and p50/p99 (wrk, CONNECTIONS keep-alive connections), and the
#   server's CPU time per event (utime+stime of all its threads from /proc/<pid>/stat, drain
#   included) saturated and at fixed offered rates (RATES, events/s) from an open-loop generator
#   (bench/loadgen.rs), which reports the rate it really offered.
# - The machine's other CPU use during every phase ("others", CPU seconds not used by the server
#   or the load generator) is printed: if it is not near zero, the run was not quiet. The script
#   waits (up to QUIET_WAIT seconds) for a quiet machine before it starts.
#
# Writes bench/out/raw.tsv (every phase of every run) and bench/out/results.md (the summary:
# median and min–max over the runs).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
DURATION=${DURATION:-10}          # seconds of each saturated wrk run
CONNECTIONS=${CONNECTIONS:-64}    # wrk connections
RATES=${RATES:-"5000 20000"}      # fixed offered rates, events/s
RATE_SECONDS=${RATE_SECONDS:-10}  # measured seconds at each rate (after RATE_WARMUP)
RATE_WARMUP=${RATE_WARMUP:-2}
RATE_CONNS=${RATE_CONNS:-8}       # the open-loop generator's keep-alive connections
QUIET_LOAD=${QUIET_LOAD:-0.6}     # 1-minute load average under which the machine counts as quiet
QUIET_WAIT=${QUIET_WAIT:-900}     # how long to wait for it before measuring anyway (and saying so)
SERVERS=${SERVERS:-"switchboard switchboard-nopersist node"}
# `baseline` in SERVERS: another build of `switchboard serve` (BASE_BIN), persistence on, to compare;
# `switchboard-1worker`: the same as `switchboard` on a tokio runtime of one worker thread
# (TOKIO_WORKER_THREADS=1; the default is one per core).
BASE_BIN=${BASE_BIN:-}
OUT=bench/out
mkdir -p "$OUT"

# --- tools -------------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
  echo "installing wrk" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi
for tool in wrk node rustc cargo python3; do
  command -v $tool >/dev/null || { echo "bench needs $tool"; exit 1; }
done
TARGET=${CARGO_TARGET_DIR:-target}
if [ -z "${SB_BIN:-}" ]; then
  # The switchboard command without Tauri (src-tauri/cli: the same main.rs and engine as the
  # app's `switchboard` binary), release profile, built as `make static` builds it: profile-guided
  # from the recorded hooks (scripts/pgo.sh), for this machine's target.
  nice -n 19 scripts/pgo.sh >&2
  SB_BIN=$TARGET/$(rustc -vV | sed -n 's/^host: //p')/release/switchboard-static
fi
[ "$OUT/loadgen" -nt bench/loadgen.rs ] || nice -n 19 rustc -O --edition 2021 -o "$OUT/loadgen" bench/loadgen.rs

# --- helpers -----------------------------------------------------------------------------------
# utime+stime of every thread of a process, in clock ticks (USER_HZ: 100).
ticks() { local s; s=$(cat "/proc/$1/stat") || return 1; s=${s##*) }; set -- $s; echo $(( ${12} + ${13} )); }
# cutime+cstime: CPU of this shell's reaped children (wrk).
child_ticks() { local s; s=$(cat /proc/$$/stat); s=${s##*) }; set -- $s; echo $(( ${14} + ${15} )); }
# busy ticks of the whole machine
busy_ticks() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
busy_procs() {
  pgrep -fa 'make test|cargo|rustc|tauri-driver|WebKitWebDriver' | grep -v -e binary_backend -e "^$$ " || true
}
wait_quiet() {
  local waited=0
  while :; do
    local load procs
    load=$(cut -d' ' -f1 /proc/loadavg)
    procs=$(busy_procs)
    if [ -z "$procs" ] && awk -v l="$load" -v q="$QUIET_LOAD" 'BEGIN {exit !(l < q)}'; then
      echo "machine quiet: load $load" >&2; QUIET="yes (load $load at the start)"; return
    fi
    if [ "$waited" -ge "$QUIET_WAIT" ]; then
      echo "WARNING: machine not quiet after ${QUIET_WAIT}s (load $load; $(echo "$procs" | wc -l) build processes): measuring anyway" >&2
      QUIET="NO (load $load at the start, build processes running): these numbers are not clean"; return
    fi
    echo "waiting for a quiet machine: load $load, $(echo -n "$procs" | grep -c . || true) build processes" >&2
    sleep 30; waited=$((waited + 30))
  done
}
# Until the server's CPU time (and the WAL, if any) has not moved for a second.
drain() { # pid [wal]
  local last="" now stable=0 i
  for i in $(seq 600); do
    now="$(ticks "$1") $( [ -n "${2:-}" ] && stat -c %s "$2" 2>/dev/null || echo 0)"
    if [ "$now" = "$last" ]; then stable=$((stable + 1)); [ $stable -ge 10 ] && return; else stable=0; last=$now; fi
    sleep 0.1
  done
}

SPID="" ; STATE=""
start_server() { # name -> SPID PORT HOOK WAL
  STATE=$(mktemp -d)
  WAL=""
  case $1 in
    switchboard|switchboard-nopersist|baseline|switchboard-1worker)
      local np="" bin=$SB_BIN workers=""; [ "$1" = switchboard-nopersist ] && np=1; [ "$1" = baseline ] && bin=$BASE_BIN
      [ "$1" = switchboard-1worker ] && workers=1
      env SWITCHBOARD_HOME="$STATE/home" SWITCHBOARD_NO_PERSIST=$np SWITCHBOARD_NO_NOTIFY=1 \
        ${workers:+TOKIO_WORKER_THREADS=$workers} "$bin" serve --no-notify 2>/dev/null &
      SPID=$!
      for _ in $(seq 200); do [ -s "$STATE/home/endpoint.json" ] && break; sleep 0.05; done
      PORT=$(python3 -c "import json; print(json.load(open('$STATE/home/endpoint.json'))['port'])")
      local key; key=$(python3 -c "import json; print(json.load(open('$STATE/home/endpoint.json'))['key'])")
      HOOK="/hook/claude?key=$key"
      if [ -z "$np" ]; then WAL=$STATE/home/switchboard.db-wal; fi
      ;;
    node)
      node bench/node-peer.js k > "$STATE/port" &
      SPID=$!
      for _ in $(seq 200); do [ -s "$STATE/port" ] && break; sleep 0.05; done
      PORT=$(cat "$STATE/port"); HOOK="/hook/claude?key=k"
      ;;
  esac
}
stop_server() {
  [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null || true
  SPID=""; rm -rf "$STATE"
}
trap stop_server EXIT

RAW=$OUT/raw.tsv
printf 'run\tposition\tserver\tphase\treq_s\tp50_ms\tp99_ms\tachieved_rate\tcpu_us_per_event\tserver_cores\tothers_cpu_s\tlost\n' > "$RAW"

saturated() { # run position name
  # A short warm-up (Node's JIT, Switchboard's 1,000 sessions created), then drained.
  HOOK_PATH=$HOOK wrk -t2 -c"$CONNECTIONS" -d2s -s bench/post.lua "http://127.0.0.1:$PORT" >/dev/null
  drain "$SPID" "$WAL"
  local c0 b0 w0 c1 b1 w1 out="$OUT/wrk-$2-$3.txt"
  c0=$(ticks "$SPID"); b0=$(busy_ticks); w0=$(child_ticks)
  HOOK_PATH=$HOOK wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s bench/post.lua "http://127.0.0.1:$PORT" > "$out"
  drain "$SPID" "$WAL"
  c1=$(ticks "$SPID"); b1=$(busy_ticks); w1=$(child_ticks)
  local reqs rps p50 p99
  reqs=$(awk '/requests in/ {print $1}' "$out")
  rps=$(awk '/Requests\/sec/ {print $2}' "$out")
  p50=$(awk '$1=="50%" {print $2}' "$out" | python3 -c "import sys; v=sys.stdin.read().strip(); print(float(v[:-2]) if v.endswith('ms') else float(v[:-2])/1000 if v.endswith('us') else float(v[:-1])*1000)")
  p99=$(awk '$1=="99%" {print $2}' "$out" | python3 -c "import sys; v=sys.stdin.read().strip(); print(float(v[:-2]) if v.endswith('ms') else float(v[:-2])/1000 if v.endswith('us') else float(v[:-1])*1000)")
  local per cores others
  per=$(awk -v c=$((c1 - c0)) -v n="$reqs" 'BEGIN {printf "%.1f", c * 10000 / n}')
  cores=$(awk -v c=$((c1 - c0)) -v d="$DURATION" 'BEGIN {printf "%.3f", c / 100 / d}')
  others=$(awk -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v w=$((w1 - w0)) 'BEGIN {printf "%.2f", (b - c - w) / 100}')
  printf '%s\t%s\t%s\tsaturated\t%s\t%s\t%s\t-\t%s\t%s\t%s\t-\n' "$1" "$2" "$3" "$rps" "$p50" "$p99" "$per" "$cores" "$others" >> "$RAW"
  echo "  saturated: $rps req/s, p50 $p50 ms, p99 $p99 ms, $per µs CPU/event, server $cores cores, others ${others}s" >&2
}

fixed_rate() { # run position name rate
  local line
  line=$("$OUT/loadgen" --port "$PORT" --path "$HOOK" --rate "$4" --seconds "$RATE_SECONDS" --warmup "$RATE_WARMUP" \
    --conns "$RATE_CONNS" --pid "$SPID" ${WAL:+--wal "$WAL"})
  echo "$line" > "$OUT/loadgen-$2-$3-$4.txt"
  local get; get() { echo "$line" | tr ' ' '\n' | awk -F= -v k="$1" '$1==k {print $2}'; }
  printf '%s\t%s\t%s\trate %s\t-\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(get p50_ms)" "$(get p99_ms)" \
    "$(get achieved_rate)" "$(get cpu_us_per_event)" "$(get server_cores)" "$(get others_cpu_s)" "$(get lost)" >> "$RAW"
  echo "  rate $4: $line" >&2
}

# --- the runs ------------------------------------------------------------------------------------
wait_quiet
read -ra LIST <<< "$SERVERS"
started=$(date +%s)
for run in $(seq "$RUNS"); do
  shift_by=$(( (run - 1) % ${#LIST[@]} ))
  order=("${LIST[@]:$shift_by}" "${LIST[@]:0:$shift_by}")
  echo "run $run: ${order[*]}" >&2
  position=0
  for name in "${order[@]}"; do
    position=$((position + 1))
    echo " $name" >&2
    start_server "$name"
    saturated "$run" "$position" "$name"
    for rate in $RATES; do fixed_rate "$run" "$position" "$name" "$rate"; done
    stop_server
  done
done
took=$(( $(date +%s) - started ))

# --- the summary ---------------------------------------------------------------------------------
{
  echo "## Hook ingest: Switchboard against the Node peer"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), Linux $(uname -r);" \
    "$(free -g | awk '/Mem:/ {print $2}') GiB. Switchboard: \`switchboard serve\` (release profile, thin LTO," \
    "$(rustc --version | cut -d' ' -f2)); Node $(node --version); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)."
  echo "Quiet: $QUIET. $RUNS runs in rotated order, each server alone; $took s in all."
  echo
  python3 - "$RAW" "$RUNS" "$DURATION" "$CONNECTIONS" "$RATE_SECONDS" "$RATE_CONNS" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
runs, duration, conns, rate_secs, rate_conns = sys.argv[2:]
servers = list(dict.fromkeys(r["server"] for r in rows))
phases = list(dict.fromkeys(r["phase"] for r in rows))

def cell(values, fmt="{:,.0f}"):
    values = [float(v) for v in values if v not in ("-", "", "nan")]
    if not values:
        return "—"
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med * 100 if med else 0
    return f"{fmt.format(med)} ({fmt.format(min(values))}–{fmt.format(max(values))}, ±{spread / 2:.0f} %)"

def pick(server, phase, key):
    return [r[key] for r in rows if r["server"] == server and r["phase"] == phase]

dirty = [r for r in rows if r["others_cpu_s"] not in ("-", "") and float(r["others_cpu_s"]) > 1.0]
if dirty:
    print(f"**Not quiet during {len(dirty)} of {len(rows)} phases**: other processes used more than 1 CPU second "
          "while they ran (the \"others\" column); their numbers are not clean.")
else:
    print(f"Quiet during every phase: other processes used at most 1 CPU second in each.")
print()
print(f"Saturated: wrk -t2 -c{conns} -d{duration}s, bench/post.lua (1,000 sessions, every event a status change). "
      "Median over the runs (min–max, ± half the spread as % of the median).")
print()
print("| server | requests/s | p50 ms | p99 ms | CPU µs/event | others' CPU s |")
print("|---|---|---|---|---|---|")
for s in servers:
    print(f"| {s} | {cell(pick(s, 'saturated', 'req_s'))} | {cell(pick(s, 'saturated', 'p50_ms'), '{:.2f}')} "
          f"| {cell(pick(s, 'saturated', 'p99_ms'), '{:.2f}')} | {cell(pick(s, 'saturated', 'cpu_us_per_event'), '{:.1f}')} "
          f"| {cell(pick(s, 'saturated', 'others_cpu_s'), '{:.2f}')} |")
print()
print(f"Fixed offered rate (bench/loadgen.rs, open loop, {rate_conns} keep-alive connections, {rate_secs} s measured "
      "after a warm-up; CPU counted until the server is drained; latency from when each request was due):")
print()
print("| server | rate | achieved/s | CPU µs/event | server cores | p50 ms | p99 ms | lost | others' CPU s |")
print("|---|---|---|---|---|---|---|---|---|")
for p in phases:
    if not p.startswith("rate"):
        continue
    for s in servers:
        lost = sum(int(v) for v in pick(s, p, "lost") if v not in ("-", ""))
        print(f"| {s} | {p[5:]} | {cell(pick(s, p, 'achieved_rate'))} | {cell(pick(s, p, 'cpu_us_per_event'), '{:.1f}')} "
              f"| {cell(pick(s, p, 'server_cores'), '{:.3f}')} | {cell(pick(s, p, 'p50_ms'), '{:.2f}')} "
              f"| {cell(pick(s, p, 'p99_ms'), '{:.2f}')} | {lost} | {cell(pick(s, p, 'others_cpu_s'), '{:.2f}')} |")
print()

def median(server, phase, key):
    values = [float(v) for v in pick(server, phase, key) if v not in ("-", "", "nan")]
    return statistics.median(values) if values else None

# The one line: Switchboard against the peer, what issue 47 judges (CPU per event at each fixed
# rate, saturated throughput, p99 at the highest rate). A ratio, never a pass or a fail.
if "switchboard" in servers and "node" in servers:
    parts = []
    for p in [p for p in phases if p.startswith("rate")]:
        sb, node = median("switchboard", p, "cpu_us_per_event"), median("node", p, "cpu_us_per_event")
        if sb and node:
            parts.append(f"CPU/event at {p[5:]}/s {sb:.1f} vs {node:.1f} µs ({sb / node:.2f}×)")
    sb, node = median("switchboard", "saturated", "req_s"), median("node", "saturated", "req_s")
    if sb and node:
        parts.append(f"saturated {sb:,.0f} vs {node:,.0f} req/s ({sb / node:.2f}×)")
    top = [p for p in phases if p.startswith("rate")][-1:]
    for p in top:
        sb, node = median("switchboard", p, "p99_ms"), median("node", p, "p99_ms")
        if sb is not None and node is not None:
            parts.append(f"p99 at {p[5:]}/s {sb:.2f} vs {node:.2f} ms")
    print("**Summary (Switchboard vs the Node peer)**: " + "; ".join(parts) + ".")
    print()
print("Every run (bench/out/raw.tsv):")
print()
print("| run | pos | server | phase | req/s | p50 ms | p99 ms | achieved/s | CPU µs/event | cores | others s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r[k] for k in ["run", "position", "server", "phase", "req_s", "p50_ms", "p99_ms",
                                          "achieved_rate", "cpu_us_per_event", "server_cores", "others_cpu_s"]) + " |")
PY
} | tee "$OUT/results.md"
