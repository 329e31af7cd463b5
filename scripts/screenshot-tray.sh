#!/usr/bin/env bash
# docs/screenshot-tray.png: the tray menu of the real app, open over its window, with a dozen
# demo sessions (scripts/demo-sessions.py: some blocked, some with a question).
#
#   scripts/screenshot-tray.sh [out.png]      (APP=path/to/switchboard-app to skip the build)
#
# How it works without a desktop: a private X server (Xvfb) and a private session bus. No
# StatusNotifierWatcher is on that bus, so libayatana-appindicator falls back to an XEmbed
# GtkStatusIcon, which tint2's system tray (Debian package `tint2`) hosts. A left click on the
# icon (xdotool) opens the menu; `import` (ImageMagick) takes the screen, cropped to the panel's
# right end and the menu.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/screenshot-tray.png}

if [ "${1:-}" = --inner ]; then
  # ---- inside dbus-run-session, with DISPLAY and WORK set ----
  OUT=$2
  log() { echo "screenshot-tray: $*" >&2; }
  pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

  # The panel: a 30 px bar along the top, the tray at its right end.
  cat >"$WORK/tint2rc" <<'EOF'
rounded = 0
border_width = 0
background_color = #23272e 100
border_color = #000000 0

panel_items = FS
panel_size = 100% 30
panel_position = top center horizontal
panel_layer = top
panel_background_id = 1
panel_dock = 0
wm_menu = 0
strut_policy = none
systray_padding = 10 4 8
systray_background_id = 0
systray_icon_size = 20
systray_monitor = 1
EOF
  tint2 -c "$WORK/tint2rc" >"$WORK/tint2.log" 2>&1 &
  pids+=($!)

  export SWITCHBOARD_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data
  export SWITCHBOARD_NO_NOTIFY=1 CODEX_HOME=$WORK/codex
  "$APP" >"$WORK/app.log" 2>&1 &
  pids+=($!)
  app=${pids[-1]}

  wait_for() { # seconds, description, command…
    local limit=$1 what=$2
    shift 2
    for _ in $(seq $((limit * 10))); do
      if "$@" >/dev/null 2>&1; then return 0; fi
      sleep 0.1
    done
    log "gave up waiting for $what"
    tail -n 20 "$WORK/app.log" "$WORK/tint2.log" >&2 || true
    exit 1
  }
  wait_for 30 "the app's endpoint" test -s "$SWITCHBOARD_HOME/endpoint.json"
  wait_for 30 "the app's window" xdotool search --onlyvisible --pid "$app" --name '^Switchboard$'
  window=$(xdotool search --onlyvisible --pid "$app" --name '^Switchboard$' | head -1)
  # No window manager: move the window below the panel ourselves.
  xdotool windowmove "$window" 80 30

  # The status icon embedded in tint2's tray (tint2 waits a few seconds for a window manager).
  icon_window() {
    local panel
    panel=$(xwininfo -root -children | awk '/"tint2": \("tint2"/ { print $1; exit }')
    [ -n "$panel" ] && xwininfo -tree -id "$panel" | awk '/"tray-icon tray app main"/ { print $1; exit }'
  }
  has_icon() { [ -n "$(icon_window)" ]; }
  wait_for 40 "the tray icon in tint2" has_icon
  icon=$(icon_window)

  python3 scripts/demo-sessions.py >&2
  sleep 2 # the menu is rebuilt at most 4×/s; the canvas settles

  geometry() { # window → "x y width height" (absolute)
    xwininfo -id "$1" | awk '/Absolute upper-left X/ {x=$NF} /Absolute upper-left Y/ {y=$NF}
      /Width:/ {w=$NF} /Height:/ {h=$NF} END {print x, y, w, h}'
  }
  read -r ix iy iw ih < <(geometry "$icon")
  log "tray icon at ${ix},${iy} (${iw}x${ih})"
  xdotool mousemove $((ix + iw / 2)) $((iy + ih / 2)) click 1

  # The menu: a new top-level window of the app's, taller than a few lines.
  menu_window() {
    xwininfo -root -children | awk '/"switchboard-app": \("switchboard-app"/ {
      split($(NF - 1), g, /[x+]/); if (g[2] > 100 && g[1] > 150 && g[1] < 800) { print $1; exit } }'
  }
  has_menu() { [ -n "$(menu_window)" ]; }
  wait_for 10 "the tray menu" has_menu
  sleep 0.5
  read -r mx my mw mh < <(geometry "$(menu_window)")
  log "menu at ${mx},${my} (${mw}x${mh})"
  # Hover the first session so the menu shows its highlight, as under a real pointer.
  xdotool mousemove $((mx + mw / 2)) $((my + 45))
  sleep 0.5
  import -window root "$WORK/screen.png"
  # From some of the canvas left of the menu to the screen's right edge, from the top to below the menu.
  left=$((mx - 300 < 0 ? 0 : mx - 300))
  width=$((1280 - left))
  height=$((my + mh + 110 > 800 ? 800 : my + mh + 110))
  convert "$WORK/screen.png" -crop "${width}x${height}+${left}+0" +repage "$OUT"
  log "wrote $OUT (${width}x${height})"
  exit 0
fi

# ---- outside: check the tools, build, start a private X server, then the rest on a private bus ----
missing=()
for tool in Xvfb:xvfb tint2:tint2 xdotool:xdotool import:imagemagick xwininfo:x11-utils dbus-run-session:dbus; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ -z "${APP:-}" ]; then
  npm --prefix ui run build >/dev/null
  cargo build --bin switchboard-app
  APP=$PWD/target/debug/switchboard-app
fi
WORK=$(mktemp -d)
trap 'kill "$xvfb" 2>/dev/null || true; rm -rf "$WORK"' EXIT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$WORK/display" 2>"$WORK/xvfb.log" &
xvfb=$!
for _ in $(seq 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
export DISPLAY=:$(cat "$WORK/display") WORK APP
dbus-run-session -- "$PWD/scripts/screenshot-tray.sh" --inner "$OUT"
