#!/usr/bin/env bash
# Build the UI, serve it with a fake Tauri runtime and take screenshots with headless Chromium.
#   bash scripts/screenshot.sh [outdir]      (default: ui/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-screenshots}"
mkdir -p "$out"
npm run build --silent >/dev/null
port=4179
node scripts/serve-with-fake.mjs "$port" >/dev/null &
server=$!
trap 'kill "$server"' EXIT
sleep 0.5
shot() { # name url [extra chromium flags…]
  local name=$1 url=$2
  shift 2
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
    --hide-scrollbars --window-size=1280,800 --force-prefers-reduced-motion --virtual-time-budget=3000 \
    --screenshot="$PWD/$out/$name.png" "$@" "$url" 2>/dev/null
  echo "$out/$name.png"
}
shot canvas-light "http://127.0.0.1:$port/"
shot canvas-dark "http://127.0.0.1:$port/" --force-dark-mode --blink-settings=preferredColorScheme=0
shot empty-light "http://127.0.0.1:$port/?empty"
shot empty-dark "http://127.0.0.1:$port/?empty" --force-dark-mode --blink-settings=preferredColorScheme=0
shot details-light "http://127.0.0.1:$port/?focus=c1a2b3c4-blocked"
shot details-dark "http://127.0.0.1:$port/?focus=c1a2b3c4-blocked" --force-dark-mode --blink-settings=preferredColorScheme=0
shot older-light "http://127.0.0.1:$port/?pick=0ld0ld02-archived"
shot older-dark "http://127.0.0.1:$port/?pick=0ld0ld02-archived" --force-dark-mode --blink-settings=preferredColorScheme=0
shot all-older-light "http://127.0.0.1:$port/?allolder"
shot arrive-light "http://127.0.0.1:$port/?arrive"
