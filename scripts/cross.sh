#!/usr/bin/env bash
# Builds the switchboard CLI for Windows and macOS from Linux, checks the core, engine and CLI
# crates for both, and runs the Windows CLI's whole-process smoke tests under Wine (issue 38).
#
#   scripts/cross.sh                 # setup, lint, build, wine
#   STEPS="lint" scripts/cross.sh    # lint only (no linking)
#
# Steps (each timed, the times listed at the end):
#   setup   rustup targets; mingw-w64 and wine (Debian), zig and cargo-zigbuild (PyPI) if missing
#   lint    cargo clippy -D warnings of every crate — core, engine, CLI and the app (issue 50) —
#           for x86_64-pc-windows-gnu, x86_64-apple-darwin and aarch64-apple-darwin (macOS
#           through cargo-zigbuild, whose zig compiles the C the app's crates bundle). The app
#           crate embeds ui/dist: build the web view first (`make ui`).
#   build   the CLI binary for x86_64-pc-windows-gnu (mingw-w64) and both macOS targets (zig
#           links them: the macOS code needs nothing from the SDK but libSystem); the desktop
#           app's .exe for Windows
#   wine    the Windows CLI under Wine: install --dry-run against a Windows-shaped profile,
#           serve, hook, status --json; the Windows app, which without WebView2 must stop with
#           a clear message
#
# Environment: CARGO_TARGET_DIR (default ./target), PROFILE (cargo profile, default dev),
# JOBS (cargo -j), PRUNE=1 (remove each target's build folder once it is done).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
PROFILE="${PROFILE:-dev}"
STEPS="${STEPS:-setup lint build wine}"
JOBS_ARG=()
[ -n "${JOBS:-}" ] && JOBS_ARG=(-j "$JOBS")
WINDOWS=x86_64-pc-windows-gnu
MACS=(x86_64-apple-darwin aarch64-apple-darwin)
CRATES=(-p switchboard-core -p switchboard-engine -p switchboard-cli -p switchboard)
TIMES=()

timed() {
    local name=$1 start=$SECONDS
    shift
    echo "== $name"
    "$@"
    TIMES+=("$(printf '%-42s %5d s' "$name" $((SECONDS - start)))")
}

wants() { [[ " $STEPS " == *" $1 "* ]]; }

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
# zig and cargo-zigbuild from PyPI, in a virtual environment of their own (Debian's Python does
# not take packages system-wide), kept between runs.
ZIG_VENV="${ZIG_VENV:-$HOME/.cache/switchboard-cross/venv}"
[ -x "$ZIG_VENV/bin/cargo-zigbuild" ] && export PATH="$ZIG_VENV/bin:$PATH"

setup() {
    rustup target add "$WINDOWS" "${MACS[@]}"
    local missing=()
    command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
    command -v wine >/dev/null || missing+=(wine wine64)
    python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
    if [ ${#missing[@]} -gt 0 ]; then
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ! command -v cargo-zigbuild >/dev/null; then
        python3 -m venv "$ZIG_VENV"
        "$ZIG_VENV/bin/pip" install -q ziglang cargo-zigbuild
        export PATH="$ZIG_VENV/bin:$PATH"
    fi
}

lint_windows() { cargo clippy "${JOBS_ARG[@]}" --target "$WINDOWS" "${CRATES[@]}" -- -D warnings; }
lint_mac() { cargo-zigbuild clippy "${JOBS_ARG[@]}" --target "$1" "${CRATES[@]}" -- -D warnings; }
build_windows() { cargo build "${JOBS_ARG[@]}" --profile "$PROFILE" --target "$WINDOWS" -p switchboard-cli; }
# The desktop app for Windows (issue 50): linked by mingw-w64; it loads WebView2Loader.dll, which
# webview2-com-sys leaves beside it, and needs the WebView2 runtime, which Wine does not have.
build_windows_app() { cargo build "${JOBS_ARG[@]}" --profile "$PROFILE" --target "$WINDOWS" -p switchboard --bin switchboard-app; }
build_mac() { cargo-zigbuild zigbuild "${JOBS_ARG[@]}" --profile "$PROFILE" --target "$1" -p switchboard-cli; }

profile_dir() { if [ "$PROFILE" = dev ]; then echo debug; else echo "$PROFILE"; fi; }

# The Windows CLI under Wine, in a prefix of its own: the profile (C:\users\<name>) is the only
# home it has (HOME unset), as on Windows.
wine_smoke() {
    local work
    work=$(mktemp -d)
    # Installed under the name the CLIs' settings know it by.
    mkdir -p "$work/bin"
    cp "$CARGO_TARGET_DIR/$WINDOWS/$(profile_dir)/switchboard-static.exe" "$work/bin/switchboard.exe"
    local exe="$work/bin/switchboard.exe"
    # Wine 8 (Debian 12) has no bcryptprimitives.dll, whose ProcessPrng Rust's std (1.78+) calls
    # for random bytes: a shim beside the exe supplies it from RtlGenRandom. Wine only; a real
    # Windows has the DLL.
    cat >"$work/bcryptprimitives.c" <<'C'
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
C
    x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bin/bcryptprimitives.dll" "$work/bcryptprimitives.c" -ladvapi32
    export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
    wineboot --init >/dev/null 2>&1 || true
    local sb=(env -u HOME -u XDG_DATA_HOME -u XDG_CONFIG_HOME SWITCHBOARD_NO_NOTIFY=1 wine "$exe")
    local fail=0
    ok() { echo "   ok: $1"; }
    bad() { echo "   FAILED: $1"; fail=1; }

    local version
    version=$("${sb[@]}" --version 2>&1 | tr -d '\r') && ok "--version: $version" || bad "--version: $version"

    # install --dry-run: the CLIs' folders in the Windows profile, the command with the .exe.
    local dry
    dry=$("${sb[@]}" install claude --dry-run --verbose 2>&1 | tr -d '\r') || true
    if grep -q 'C:\\users\\[^\\]*\\.claude\\settings.json' <<<"$dry" \
        && grep -q '"command":"[A-Z]:/[^" ]*/bin/switchboard.exe hook claude"' <<<"$dry"; then
        ok "install --dry-run: C:\\users\\<name>\\.claude\\settings.json, command $(grep -o '[A-Z]:/[^" ]*exe hook claude' <<<"$dry" | head -1)"
    else
        bad "install --dry-run"; echo "$dry" | head -40
    fi

    # serve, then hook, then status --json: the event arrives over loopback.
    "${sb[@]}" serve --no-notify >"$work/serve.log" 2>&1 &
    local serve=$!
    local up=""
    for _ in $(seq 1 100); do
        if "${sb[@]}" status --json >"$work/status.json" 2>/dev/null; then up=1; break; fi
        sleep 0.3
    done
    [ -n "$up" ] && ok "serve answers status --json" || { bad "serve did not answer"; cat "$work/serve.log"; }
    "${sb[@]}" hook codex <tests/fixtures/codex/PermissionRequest.json >"$work/hook.out" 2>&1 \
        && ok "hook exits 0" || bad "hook exited non-zero: $(cat "$work/hook.out")"
    local seen=""
    for _ in $(seq 1 50); do
        "${sb[@]}" status --json 2>/dev/null | tr -d '\r' >"$work/status.json" || true
        if grep -q '019fb425-0000-7000-8000-000000000001' "$work/status.json" && grep -q '"blocked"' "$work/status.json"; then
            seen=1
            break
        fi
        sleep 0.3
    done
    [ -n "$seen" ] && ok "the hooked session is in status --json, blocked" || { bad "the session did not arrive"; head -c 2000 "$work/status.json"; echo; }
    # Ends this prefix's processes (serve) and nothing else.
    wineserver -k 2>/dev/null || true
    wait "$serve" 2>/dev/null || true

    # The desktop app without the WebView2 runtime (Wine has none): it must stop with a clear
    # message and exit 1, not crash.
    local app_dir="$CARGO_TARGET_DIR/$WINDOWS/$(profile_dir)"
    if [ ! -f "$app_dir/switchboard-app.exe" ]; then
        bad "no Windows app to run: $app_dir/switchboard-app.exe (step build)"
    else
        cp "$app_dir/switchboard-app.exe" "$app_dir/WebView2Loader.dll" "$work/bin/"
        local said code=0
        said=$(timeout 60 env -u HOME SWITCHBOARD_NO_NOTIFY=1 wine "$work/bin/switchboard-app.exe" 2>&1 | tr -d '\r') || code=$?
        said=$(grep '^switchboard: ' <<<"$said" || true)
        if [ "$code" = 1 ] && grep -q 'install the Microsoft Edge WebView2 Runtime' <<<"$said"; then
            ok "the app without WebView2 exits 1: ${said:0:110}…"
        else
            bad "the app without WebView2 (exit $code): $said"
        fi
        wineserver -k 2>/dev/null || true
    fi
    rm -rf "$work"
    return $fail
}

# One target at a time, each to the end (lint, build, Wine), so that with PRUNE=1 its build
# folder can go before the next one starts: the three targets' folders (about 2 GiB for Windows,
# 0.7 GiB for each Mac) never sit on the disk together. CI sets PRUNE=1 (a fresh machine's disk
# ran out here); the binaries are kept in $CARGO_TARGET_DIR/cross/<target>/.
keep() {
    local triple=$1 dir
    dir="$CARGO_TARGET_DIR/$triple/$(profile_dir)"
    mkdir -p "$CARGO_TARGET_DIR/cross/$triple"
    shift
    for f in "$@"; do [ -f "$dir/$f" ] && cp "$dir/$f" "$CARGO_TARGET_DIR/cross/$triple/"; done
    if [ "${PRUNE:-0}" = 1 ]; then
        echo "   pruned $CARGO_TARGET_DIR/$triple ($(du -sh "$CARGO_TARGET_DIR/$triple" | cut -f1))"
        rm -rf "${CARGO_TARGET_DIR:?}/$triple"
    fi
}

wants setup && timed setup setup
wants lint && timed "lint $WINDOWS" lint_windows
if wants build; then
    timed "build CLI $WINDOWS ($PROFILE)" build_windows
    timed "build app $WINDOWS ($PROFILE)" build_windows_app
fi
wants wine && timed "wine smoke" wine_smoke
keep "$WINDOWS" switchboard-static.exe switchboard-app.exe WebView2Loader.dll
for mac in "${MACS[@]}"; do
    wants lint && timed "lint $mac" lint_mac "$mac"
    wants build && timed "build CLI $mac ($PROFILE)" build_mac "$mac"
    keep "$mac" switchboard-static
done
echo "== times"
printf '%s\n' "${TIMES[@]}"
