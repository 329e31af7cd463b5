#!/usr/bin/env bash
# The Debian package as a user gets it: install it as the README says (`make install`, which
# installs the built .deb through apt), check what it puts on the system, start the installed app under a private X
# server and D-Bus session bus, see that it answers, then remove the package again.
#
# Run by `make test-package` after `make package`; DEB=path/to/switchboard.deb to test another.
set -euo pipefail

cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

# The bundler names the file after the product name: Switchboard_<version>_<arch>.deb.
deb=${DEB:-$(ls -t target/release/bundle/deb/*.deb 2>/dev/null | head -1)}
[ -n "$deb" ] && [ -f "$deb" ] || { echo "no .deb: run \`make package\` first" >&2; exit 1; }
deb=$(readlink -f "$deb")

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
# Installed, or half-way (unpacked, not configured): anything dpkg -r has to take away.
present() {
  dpkg-query -W -f='${Status}' switchboard 2>/dev/null \
    | grep -Eq ' (installed|unpacked|half-installed|half-configured|triggers-awaited|triggers-pending)$'
}

# The package's own view of itself, before it touches the system.
step "contents of $(basename "$deb")"
contents=$(dpkg-deb -c "$deb")
for path in usr/bin/switchboard usr/bin/switchboard-app 'usr/share/applications/[^/]*\.desktop'; do
  grep -Eq " (\./)?$path\$" <<<"$contents" || fail "$path is not in the package"
done
grep -Eq ' (\./)?usr/share/icons/hicolor/.*/apps/switchboard\.png$' <<<"$contents" || fail "no icon in the package"
depends=$(dpkg-deb -f "$deb" Depends)
for dep in libwebkit2gtk-4.1-0 libgtk-3-0 libayatana-appindicator3-1; do
  grep -qw -- "$dep" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = switchboard ] || fail "package name: $(dpkg-deb -f "$deb" Package)"

if present; then
  # Left by an interrupted run on a CI machine; on a developer's machine it is theirs to remove.
  [ "${CI:-}" = true ] || fail "a switchboard package is installed already; remove it first (dpkg -r switchboard)"
  $SUDO dpkg -r switchboard >/dev/null
fi

work=$(mktemp -d)
app_pid=""
cleanup() {
  status=$?
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  if present; then
    step "removing the package"
    $SUDO dpkg -r switchboard >/dev/null
  fi
  if [ "$status" != 0 ] && [ -f "$work/app.log" ]; then
    echo "---- the installed app's log ----" >&2
    tail -40 "$work/app.log" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

step "installing"
if [ -z "${DEB:-}" ]; then
  # As the README says to: `make install` (the package is built already: only its install runs).
  make -s install-package
elif ! $SUDO dpkg -i "$deb"; then
  # Dependencies missing: apt brings them and finishes the configuration.
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -f -y --no-install-recommends
fi
dpkg-query -W -f='${Status}' switchboard | grep -q 'ok installed' || fail "the package did not install"

step "what it put on the system"
# The system's PATH, not the developer's (where ~/.cargo/bin may hold another switchboard).
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
for file in /usr/bin/switchboard /usr/bin/switchboard-app; do
  [ -x "$file" ] || fail "$file is missing or not executable"
done
[ "$(command -v switchboard)" = /usr/bin/switchboard ] || fail "switchboard on PATH is $(command -v switchboard)"
desktop=$(ls /usr/share/applications/*.desktop | xargs grep -l '^Exec=switchboard$' | head -1)
[ -n "$desktop" ] || fail "no desktop entry in /usr/share/applications runs switchboard"
grep -q '^Icon=switchboard$' "$desktop" || fail "$desktop has no Icon=switchboard"
grep -q '^StartupWMClass=switchboard-app$' "$desktop" || fail "$desktop: StartupWMClass is not the window's class"
ls /usr/share/icons/hicolor/*/apps/switchboard.png >/dev/null || fail "no icon installed"
echo "ok: /usr/bin/switchboard, /usr/bin/switchboard-app, $desktop"

# The installed CLI works headless.
/usr/bin/switchboard --help >/dev/null || fail "switchboard --help"

step "starting the installed app under Xvfb with a private D-Bus"
export HOME="$work/home" SWITCHBOARD_HOME="$work/state" SWITCHBOARD_NO_NOTIFY=1 RUST_LOG=info
mkdir -p "$HOME"
# As the desktop entry does: `switchboard` with no subcommand execs the `switchboard-app` beside it.
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- bash -c '
  switchboard >"$0/app.log" 2>&1 &
  for _ in $(seq 300); do [ -s "$SWITCHBOARD_HOME/endpoint.json" ] && break; sleep 0.1; done
  [ -s "$SWITCHBOARD_HOME/endpoint.json" ] || { echo "FAIL: endpoint.json never appeared" >&2; exit 1; }
  pid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"pid\"])" "$SWITCHBOARD_HOME/endpoint.json")
  exe=$(readlink -f "/proc/$pid/exe")
  [ "$exe" = /usr/bin/switchboard-app ] || { echo "FAIL: the running app is $exe" >&2; exit 1; }
  switchboard status || { echo "FAIL: switchboard status" >&2; exit 1; }
  # A hook through the installed forwarder reaches the installed app.
  echo "{\"sessionId\": \"package-test\", \"title\": \"from the package test\", \"status\": \"blocked\"}" \
    | switchboard hook custom
  for _ in $(seq 50); do
    switchboard status --json | grep -q "\"package-test\"" && break; sleep 0.1
  done
  switchboard status | tee "$0/status.txt"
  grep -q "from the package test" "$0/status.txt" || { echo "FAIL: the hook never showed in status" >&2; exit 1; }
  # The tray icon was built: the appindicator library the package depends on loaded.
  if grep -rqs "no tray icon" "$0/app.log" "$SWITCHBOARD_HOME"; then
    echo "FAIL: the installed app has no tray icon" >&2; exit 1
  fi
  # The window maps when GTK gets to it, which may be after the hook server answers: wait for it.
  window=""
  for _ in $(seq 300); do
    window=$(xdotool search --onlyvisible --pid "$pid" --name "^Switchboard$" 2>/dev/null | head -1)
    [ -n "$window" ] && break; sleep 0.1
  done
  [ -n "$window" ] || { echo "FAIL: no visible Switchboard window" >&2; exit 1; }
  kill "$pid"
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
' "$work"
echo "ok: the installed app started, answered \`switchboard status\` and took a hook"

step "removing"
$SUDO dpkg -r switchboard >/dev/null
[ ! -e /usr/bin/switchboard ] && [ ! -e /usr/bin/switchboard-app ] || fail "the binaries are still there after dpkg -r"
echo "PASS: tests/package.sh"
