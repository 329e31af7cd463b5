"""Issue 48: the seven real CLIs on another box, followed over real SSH.

The box is a second Unix user of this machine (`switchboard-clis`, its home made fresh) behind a
private OpenSSH `sshd` on 127.0.0.1 that lets in that user with one key. The desk is a
`switchboard serve` of this user following the box as a user would: `remote add box -- ssh …`,
then `remote install box`, which sends this build there and runs `switchboard install` there —
it must find and connect each of the seven CLIs by its settings folder. Then each CLI runs on the
box, as that user, in that user's tmux, against its fake model server here on loopback, with no
Switchboard variable of ours: its hooks find the box's own instance, the one the desk's link
started there. Its session shows on the desk with host `box`, done after a plain turn; a
permission it asks for is held on the box (the box's settings have Allow / Deny on, as the user
turned it on there) and allowed from the desk, and the command runs on the box. Gemini CLI's,
which no hook of it can hold, is shown blocked on the desk and answered in its own dialog.

The CLIs' npm folders are hard-linked into a folder the box user can read (this user's cache is
under a private home); Copilot unpacks itself into the box's own cache at its first start.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Optional

import claude
import codex
import copilot
import gemini
import harness
import openai_tui
import opencode
import pi
import qwen
from fake_claude import FakeAnthropic
from fake_codex import FakeResponses
from fake_openai import FakeOpenAI

PACKAGE = ""  # no package of its own: the seven modules' pinned ones
VERSION = "over SSH"
USER = "switchboard-clis"
SSHD = "/usr/sbin/sshd"


@dataclass
class OnBox:
    """One CLI as it runs on the box: how it starts, what it answers, what the desk must show."""
    agent: str
    name: str
    command: list[str]
    env: dict[str, str]
    ws: Path
    ready: str  # a regex on its screen while it waits for a prompt
    hello: Callable[[dict], bool]  # its card after the plain turn
    marker: str  # the scenario that asks for a permission
    created: str  # the file that command creates in `ws`
    allowed: Callable[[dict], bool]  # its card after the command ran
    held: bool = True  # the box holds its permission for an answer (Gemini: nothing can)
    dialog: str = ""  # its own permission dialog (answered there when not held)
    first_start: Optional[Callable[["harness.Tmux"], bool]] = None  # a first start's own step
    stop: list = field(default_factory=list)  # what to stop at the end (the fakes)


def said(message: str) -> Callable[[dict], bool]:
    return lambda s: s["status"] == "done" and (s.get("message") or "") == message


def box_env(home: Path, **more: str) -> dict[str, str]:
    """What a login on the box has, and the CLI's own variables: no SWITCHBOARD_HOME."""
    return {"HOME": str(home), "USER": USER, "PATH": f"{home}/.local/bin:/usr/local/bin:/usr/bin:/bin",
            "TERM": "xterm-256color", "LANG": "C.UTF-8", **more}


def clis(home: Path) -> list[OnBox]:
    """The seven, each set up in the box's home as its own module sets it up (before the
    installer ran: `remote install` connects them)."""
    found = []

    project = home / "ws-claude"
    fake_claude = FakeAnthropic(str(project))
    claude.prepare_home(home, project, home / "claude-events.jsonl")
    found.append(OnBox(
        "claude", "Claude Code", [str(harness.npm_package(claude.PACKAGE, claude.VERSION) / "bin" / "claude.exe")],
        box_env(home, ANTHROPIC_BASE_URL=fake_claude.url, ANTHROPIC_API_KEY=claude.API_KEY, DISABLE_TELEMETRY="1",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", CLAUDE_CODE_MAX_RETRIES="1"),
        project, claude.READY, said("Hello! Nothing to do."), "board-remote", "allowed-from-afar.txt",
        said("Created allowed-from-afar.txt."), stop=[fake_claude]))

    workspace = home / "ws-codex"
    workspace.mkdir()
    fake_codex = FakeResponses()
    codex.write_config(home / ".codex", fake_codex.port, workspace)

    def trust_hooks(tmux: harness.Tmux) -> bool:
        """Codex asks to review hooks it has not seen: "Trust all and continue", as its user does
        once after `remote install`."""
        if not tmux.wait_text(r"Trust all and continue", 30):
            return False
        harness.settled(tmux.screen)
        tmux.send("Down")
        if not tmux.wait_text(r"› 2\. Trust all", 5):
            return False
        tmux.send("Enter")
        return True
    # Its default mode: the window's session runs in Codex's own daemon, on the box.
    found.append(OnBox(
        "codex", "Codex CLI", [str(codex.binary(harness.npm_package(codex.PACKAGE, codex.VERSION)))],
        box_env(home, FAKE_OPENAI_API_KEY="sk-fake-for-tests"), workspace, codex.PROMPT_READY,
        said("Hello there. Done."), "board-remote", "remote-from-board.txt", said("Created from afar."),
        first_start=trust_hooks, stop=[fake_codex]))

    ws = home / "ws-gemini"
    gemini.write_settings(home, ws)
    fake_gemini = gemini.RecordingGemini(gemini.SCRIPTS).start()
    found.append(OnBox(
        "gemini", "Gemini CLI",
        ["node", str(harness.npm_package(gemini.PACKAGE, gemini.VERSION) / "bundle" / "gemini.js")],
        box_env(home, COLORTERM="truecolor", GEMINI_API_KEY="fake-gemini-key",
                GOOGLE_GEMINI_BASE_URL=fake_gemini.url, NO_BROWSER="1"),
        ws, r"Type your message", said("Hello! How can I help?"), "perm", "sb_marker.txt",
        said("Created the marker."), held=False, dialog=r"Allow execution", stop=[fake_gemini]))

    for module, kind in ((qwen, qwen.Qwen), (copilot, copilot.Copilot), (pi, pi.Pi), (opencode, opencode.OpenCode)):
        run = kind(SimpleNamespace(bin=harness.switchboard_bin()), None)
        harness.remove_tree(run.root)  # its own scratch folder: everything here is in the box's home
        run.home, run.ws = home, home / f"ws-{run.agent}"
        run.ws.mkdir()
        run.set_up_home()
        run.fake = FakeOpenAI(openai_tui.scripts(run.shell_tool, run.ask_call)).start()
        run.configure()
        run.serve = SimpleNamespace(state=Path("/nonexistent"))
        own = {k: v for k, v in run.env().items() if k not in ("SWITCHBOARD_HOME", "XDG_CACHE_HOME", "PATH")}
        found.append(OnBox(
            run.agent, run.name, run.command(), box_env(home, **own), run.ws, re.escape(run.ready),
            run.done_with("Hello! How can I help?"), "board-remote", "sb_remote.txt",
            run.done_with("Created sb_remote.txt."), stop=[run.fake]))
    return found


class Box:
    """The second Unix user and a private sshd on 127.0.0.1 that lets it in with one key."""

    def __init__(self):
        subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
        if subprocess.run(["id", "-u", USER], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", USER], check=True)
        # No password, but not locked (sshd without PAM refuses a locked account, keys or not).
        subprocess.run(["usermod", "-p", "*", USER], check=True)
        self.home = Path(pwd.getpwnam(USER).pw_dir)
        self.home.mkdir(exist_ok=True)
        subprocess.run(["find", str(self.home), "-mindepth", "1", "-delete"], check=True)
        self.dir = Path(tempfile.mkdtemp(prefix="sb-box-sshd-"))
        self.dir.chmod(0o755)
        for key in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.dir / key)], check=True)
        shutil.copy(self.dir / "client_key.pub", self.dir / "authorized_keys")
        (self.dir / "authorized_keys").chmod(0o644)
        Path("/run/sshd").mkdir(exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        (self.dir / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.dir / 'host_key'}\n"
            f"PidFile {self.dir / 'sshd.pid'}\nAuthorizedKeysFile {self.dir / 'authorized_keys'}\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin no\n"
            f"AllowUsers {USER}\nStrictModes no\nLogLevel ERROR\n")
        host_key = (self.dir / "host_key.pub").read_text()
        (self.dir / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key}")
        self.sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.dir / "sshd_config")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "sshd.log", "ab"), start_new_session=True)

        def listens():
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return True
            except OSError:
                return False
        if not harness.wait_until(listens, 10, 0.05):
            raise RuntimeError(f"sshd did not listen: {(self.dir / 'sshd.log').read_text()}")
        # The npm folders, hard-linked where the box user can read them.
        self.clis = Path(tempfile.mkdtemp(prefix="sb-box-clis-", dir="/var/tmp"))
        self.clis.chmod(0o755)

    def ssh(self) -> list[str]:
        """The user's command to reach the box, as they would write it."""
        return ["ssh", "-F", "/dev/null", "-i", str(self.dir / "client_key"), "-p", str(self.port),
                "-o", f"UserKnownHostsFile={self.dir / 'known_hosts'}", "-o", "StrictHostKeyChecking=yes",
                "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", f"{USER}@127.0.0.1"]

    def link_packages(self, packages: list[tuple[str, str]]):
        """Each pinned package from this user's cache, hard-linked under `self.clis`; the harness
        reads them from there while the box's CLIs are set up."""
        for package, version in packages:
            harness.npm_package(package, version)
            prefix = f"{package.replace('/', '+')}@{version}"
            subprocess.run(["cp", "-al", str(harness.CACHE / prefix), str(self.clis / prefix)], check=True)

    def own(self):
        """Everything in its home is the box user's."""
        subprocess.run(["chown", "-R", f"{USER}:", str(self.home)], check=True)

    def close(self):
        subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
        try:
            os.killpg(self.sshd.pid, 9)
        except OSError:
            pass
        self.sshd.wait()
        subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
        harness.remove_tree(self.dir)
        harness.remove_tree(self.clis)
        subprocess.run(["find", str(self.home), "-mindepth", "1", "-delete"], capture_output=True)


PACKAGES = [(claude.PACKAGE, claude.VERSION), (codex.PACKAGE, codex.VERSION), (gemini.PACKAGE, gemini.VERSION),
            (qwen.PACKAGE, qwen.VERSION), (copilot.PACKAGE, copilot.VERSION), (pi.PACKAGE, pi.VERSION),
            (opencode.PACKAGE, opencode.VERSION)]
# Where `switchboard install` connects each CLI, in the box's home.
HOOK_FILES = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
              "qwen": ".qwen/settings.json", "copilot": ".copilot/hooks/switchboard.json",
              "pi": ".pi/agent/switchboard-hooks.json", "opencode": ".config/opencode/switchboard-hooks.json"}


def run(ctx, report: harness.Report):
    report.scenario("the box over SSH: `remote add`, `remote install` connects its seven CLIs")
    started = time.monotonic()
    box = Box()
    desk: Optional[harness.Serve] = None
    on_box: list[OnBox] = []
    cache = harness.CACHE
    try:
        box.link_packages(PACKAGES)
        harness.CACHE = box.clis
        try:
            on_box = clis(box.home)
        finally:
            harness.CACHE = cache
        # Allow / Deny on for every CLI on the box, as its user turned it on there.
        state = box.home / ".local" / "share" / "dev.switchboard.app"
        state.mkdir(parents=True)
        state.chmod(0o700)
        (state / "settings.json").write_text(json.dumps({"decide": [c.agent for c in on_box]}))
        box.own()

        desk = harness.Serve(ctx.workdir / "desk")
        # What `remote install` sends a Linux box: the static build (`make static`).
        static = harness.ROOT / "target" / "x86_64-unknown-linux-musl" / "release" / "switchboard-static"
        sb = lambda *args: subprocess.run([str(harness.switchboard_bin()), *args],
                                          env={**desk.env, "SWITCHBOARD_REMOTE_BINARY": str(static)},
                                          capture_output=True, text=True, timeout=120)
        added = sb("remote", "add", "box", "--", *box.ssh())
        report.check("`switchboard remote add box -- ssh …`", added.returncode == 0, added.stdout + added.stderr)
        installed = sb("remote", "install", "box")
        report.check("`switchboard remote install box` sends this build and installs there",
                     installed.returncode == 0 and (box.home / ".local" / "bin" / "switchboard").is_file(),
                     installed.stdout + installed.stderr)
        binary = f"{box.home}/.local/bin/switchboard"
        for cli in on_box:
            written = box.home / HOOK_FILES[cli.agent]
            report.check(f"… and connects {cli.name} there: {HOOK_FILES[cli.agent]} runs the box's switchboard",
                         written.is_file() and binary in written.read_text(), installed.stdout)
        connected = harness.wait_until(lambda: (lambda r: r if r.get("state") == "connected" else None)(
            remote_listed(sb)), 60)
        report.check("the desk follows the box: `remote list` says connected", connected is not None,
                     remote_listed(sb))
        if connected is None:
            return
        for cli in on_box:
            drive(report, desk, cli)
    finally:
        for cli in on_box:
            for fake in cli.stop:
                fake.stop()
        if desk is not None:
            desk.stop()
        box.close()
        print(f"    box module took {time.monotonic() - started:.0f} s", flush=True)


def remote_listed(sb) -> dict:
    out = sb("remote", "list", "--json")
    try:
        return (json.loads(out.stdout or "[]") or [{}])[0]
    except ValueError:
        return {"said": out.stdout + out.stderr}


def drive(report: harness.Report, desk: harness.Serve, cli: OnBox):
    """One CLI on the box: its plain turn on the desk's board, then its permission."""
    how = "allowed from the desk" if cli.held else "shown blocked on the desk, answered in its own dialog"
    report.scenario(f"{cli.name} on the box: on the desk's board; its permission {how}")
    known = desk.ids()
    tmux = harness.Tmux(f"sb-box-{cli.agent}", cli.command, cli.env, cli.ws, user=USER)
    try:
        if cli.first_start is not None:
            report.check(f"{cli.name}'s first start after the install: its own step", cli.first_start(tmux),
                         tmux.screen()[-800:])
        ready = tmux.wait_text(cli.ready, 120)
        report.check(f"{cli.name} starts at its prompt on the box, as {USER}", ready is not None, tmux.screen()[-800:])
        if ready is None:
            return
        prompt(tmux, "Say hello [[scenario:hello]]")

        first = desk.wait_new(known, lambda s: s["agent"] == cli.agent and s.get("host") == "box" and cli.hello(s),
                              60, 0.2)
        report.check("its session is on the desk's board, host `box`, done with its answer", first is not None,
                     [(s["sessionId"], s["status"], s.get("message")) for s in desk.sessions()])
        if first is None:
            return
        sid = first["sessionId"]
        report.check("its id there is the box's (`box:<id>`)", sid.startswith("box:"), sid)

        def on_desk(predicate):
            def check():
                s = desk.session(session_id=sid)
                return s if s is not None and s["lastEventAt"] >= since and predicate(s) else None
            return check
        harness.wait_until(lambda: re.search(cli.ready, tmux.screen()), 30, 0.2)
        harness.settled(tmux.screen)
        since = time.time() * 1000
        prompt(tmux, f"Create a file from the desk [[scenario:{cli.marker}]]")
        target = cli.ws / cli.created
        blocked = harness.wait_until(on_desk(lambda s: s["status"] == "blocked" and cli.created in
                                             ((s.get("command") or "") + (s.get("message") or ""))), 40, 0.1)
        report.check("blocked on the desk, with its command", blocked is not None,
                     openai_tui.brief(desk.session(session_id=sid)))
        if blocked is None:
            return
        report.check("nothing ran on the box before the answer", not target.exists())
        if cli.held:
            report.check("Allow / Deny on offer there", isinstance(blocked.get("decision"), int),
                         openai_tui.brief(blocked))
            if not isinstance(blocked.get("decision"), int):
                return
            report.check("the desk's Allow is accepted", desk.decide(sid, blocked["decision"], "allow") == 204)
        else:
            report.check("no Allow / Deny on offer there (nothing holds its tool)", blocked.get("decision") is None,
                         openai_tui.brief(blocked))
            drawn = tmux.wait_text(cli.dialog, 20)
            report.check("its own dialog asks on the box", drawn is not None, tmux.screen()[-800:])
            if drawn is None:
                return
            harness.settled(tmux.screen)
            tmux.send("Enter")
        done = harness.wait_until(on_desk(cli.allowed), 60, 0.2)
        report.check("→ the command runs → done on the desk", done is not None,
                     openai_tui.brief(desk.session(session_id=sid)))
        report.check("the command ran on the box, as its user", harness.wait_until(target.exists, 10) is not None
                     and target.stat().st_uid == pwd.getpwnam(USER).pw_uid)
    finally:
        tmux.kill()


def prompt(tmux: harness.Tmux, text: str):
    """Types a prompt, and Enter once the composer shows all of it, past the CLI's paste window."""
    head, tail = text[:16], text[-16:]
    tmux.send(text, literal=True)

    def drawn() -> bool:
        screen = tmux.screen()
        at = screen.rfind(head)
        return at >= 0 and tail in screen[at:]
    if not harness.wait_until(drawn, 20, 0.05):
        raise AssertionError(f"the screen never showed {text!r}:\n{tmux.screen()}")
    time.sleep(harness.PASTE_WINDOW_S)
    tmux.send("Enter")
