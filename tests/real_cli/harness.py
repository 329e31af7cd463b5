"""Shared parts of the real-CLI harness: the pinned CLIs from npm, a private `switchboard serve`,
a tmux driver, polling, and the scenario report.

Each CLI has its own module (claude.py, codex.py, gemini.py) with a fake model server of its
provider's wire format and a `scenarios(ctx)` list; run.py runs them and prints one closing line.
Standard library only: it must run on a fresh Debian 12 with Python 3.11.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("SWITCHBOARD_CLI_CACHE", Path.home() / ".cache" / "switchboard-real-clis"))


def switchboard_bin() -> Path:
    return Path(os.environ.get("SWITCHBOARD_BIN", ROOT / "target" / "debug" / "switchboard"))


def npm_package(package: str, version: str) -> Path:
    """Installs `package@version` into the cache once (skipped when present); returns its
    node_modules/<package> folder. Versions are pinned: newer ones are reported as drift."""
    prefix = CACHE / f"{package.replace('/', '+')}@{version}"
    folder = prefix / "node_modules" / package
    if not (folder / "package.json").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
             f"{package}@{version}"],
            check=True,
        )
    return folder


def latest_version(package: str) -> Optional[str]:
    """The registry's newest version, for the drift report; None when the registry is unreachable."""
    try:
        out = subprocess.run(["npm", "view", package, "version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def read_request(handler) -> tuple[bytes, dict]:
    """A fake model server's request body: the raw bytes and their JSON ({} when empty or not
    JSON)."""
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length) if length else b""
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        body = {}
    return raw, body


def wait_until(check: Callable[[], object], timeout: float, interval: float = 0.1):
    """Polls `check` until it returns something truthy; returns it, or None after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


def twin_panes(report: "Report", tmux: "Tmux", serve: "Serve", agent: str, name: str, first: str,
               command: list[str], env: dict[str, str], cwd: Path, idle: Callable[[str], bool]) -> set[str]:
    """Issue 48: two more of the CLI in the same folder as `first`'s — one in a second window of
    its tmux session, one in a tmux session of its own on the same server — each started and first
    prompted at its own terminal (`[[scenario:hello]]`). A reply from the board to each of the
    three (`[[scenario:reply]]`) is taken by its own CLI, lands in its own pane, never a twin's,
    and is its own session's turn. `idle(screen)`: the CLI waits at its prompt. Returns the twins'
    session ids (their panes are closed: they end, and stay on the board as ended)."""
    report.scenario("twin panes: each reply reaches the session's own pane")
    panes = {first: tmux.pane_id()}
    opened: list[str] = []
    try:
        for label, tmux_session in (("window", None), ("session", "twin")):
            known = serve.ids(agent)
            pane = tmux.open(command, env, cwd, session=tmux_session)
            opened.append(pane)
            ready = wait_until(lambda: idle(tmux.screen_of(pane)), 60, 0.2)
            report.check(f"a twin {name} in a second {label} starts at its prompt", ready is not None,
                         tmux.screen_of(pane)[-600:])
            if ready is None:
                return set(panes) - {first}
            since = time.time() * 1000
            tmux.type_to(pane, f"Say hello [[scenario:hello]] from the {label}")
            new = serve.wait_new(known, lambda s: s["agent"] == agent and s["status"] == "done"
                                 and s["lastEventAt"] >= since)
            report.check("its first turn → a session of its own, done", new is not None, tmux.screen_of(pane)[-600:])
            if new is None:
                return set(panes) - {first}
            panes[new["sessionId"]] = pane
        marks = {sid: f"twin-{n}" for n, sid in zip(("one", "two", "three"), panes)}
        for sid, mark in marks.items():
            wait_until(lambda: idle(tmux.screen_of(panes[sid])), 30, 0.2)
            since = time.time() * 1000
            code, said = serve.reply(sid, f"Tell me you got this [[scenario:reply]] {mark}")
            report.check(f"`switchboard reply` to {mark} exits 0 once {name} took it", code == 0, said)
            done = wait_until(lambda: (lambda s: s if s and s["lastEventAt"] >= since and s["status"] == "done"
                                       else None)(serve.session(session_id=sid)), 30)
            report.check(f"{mark}'s own session takes the turn → done", done is not None, serve.session(session_id=sid))
        for sid, mark in marks.items():
            seen = tmux.screen_of(panes[sid])
            others = [m for m in marks.values() if m != mark]
            report.check(f"{mark} was typed in its own pane, and no twin's text", mark in seen
                         and not any(o in seen for o in others), seen[-600:])
        return set(panes) - {first}
    finally:
        for pane in opened:
            tmux.close(pane)


def _listening(path: Path) -> bool:
    """Whether a server accepts connections on the Unix socket `path`."""
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
            return True
        except OSError:
            return False


class Serve:
    """`switchboard serve --no-notify` with its own state directory."""

    def __init__(self, workdir: Path, env: Optional[dict[str, str]] = None):
        """`env`: variables of every start (where a CLI keeps what serve reads, e.g. OpenCode's
        data folder)."""
        self.state = workdir / "switchboard-state"
        self.state.mkdir(parents=True, exist_ok=True)
        self.log = open(workdir / "serve.log", "ab")
        self.proc: Optional[subprocess.Popen] = None
        self.always = dict(env or {})
        self.start()

    def start(self, env: Optional[dict[str, str]] = None):
        """Starts serve (again) on the same state directory: the sessions come back from its
        database. `env` adds variables, e.g. SWITCHBOARD_DECIDE to hold permissions (issue 14)."""
        self.env = {**os.environ, **self.always, **(env or {}), "SWITCHBOARD_HOME": str(self.state),
                    "SWITCHBOARD_NO_NOTIFY": "1"}
        self.proc = subprocess.Popen([str(switchboard_bin()), "serve", "--no-notify"], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        if not wait_until(lambda: (self.state / "endpoint.json").exists(), 10):
            raise RuntimeError("switchboard serve did not write endpoint.json")

    def endpoint(self) -> dict:
        return json.loads((self.state / "endpoint.json").read_text())

    def decide(self, session_id: str, decision: int, verdict: str) -> int:
        """Answers a held permission as the app's Allow / Deny does (with the key); the HTTP status."""
        import urllib.error
        import urllib.request
        endpoint = self.endpoint()
        url = (f"http://127.0.0.1:{endpoint['port']}/decision/{session_id}"
               f"?key={endpoint['key']}&id={decision}&verdict={verdict}")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def reply(self, session_id: str, text: str, timeout: float = 60) -> tuple[int, str]:
        """`switchboard reply <session> <text>` as the board's Reply runs it (issue 33): it types
        into the session's own pane and returns once the CLI's next event took it. (exit code,
        stdout + stderr)."""
        out = subprocess.run([str(switchboard_bin()), "reply", session_id, text], env=self.env,
                             capture_output=True, text=True, timeout=timeout)
        return out.returncode, out.stdout + out.stderr

    def answer(self, session_id: str, choice: str, timeout: float = 60) -> tuple[int, str]:
        """`switchboard answer <session> <n>` as the board's option buttons run it: it types the
        option into the session's own pane and returns once the question closed."""
        out = subprocess.run([str(switchboard_bin()), "answer", session_id, choice], env=self.env,
                             capture_output=True, text=True, timeout=timeout)
        return out.returncode, out.stdout + out.stderr

    def answer_route(self, session_id: str, option: int, timeout: float = 60) -> tuple[int, str]:
        """`POST /answer/<session>?option=N`, as scripts answer (the board's buttons call the same
        use case): the HTTP status and body, once the CLI took it or it was refused."""
        import urllib.error
        import urllib.request
        endpoint = self.endpoint()
        url = f"http://127.0.0.1:{endpoint['port']}/answer/{session_id}?key={endpoint['key']}&option={option}"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def sessions(self) -> list[dict]:
        out = subprocess.run([str(switchboard_bin()), "status", "--json"], env=self.env,
                             capture_output=True, text=True, timeout=10)
        if out.returncode != 0:
            return []
        return json.loads(out.stdout).get("sessions", [])

    def ids(self, agent: Optional[str] = None) -> set[str]:
        """The ids of the sessions on the board now (of `agent`): what a launch's session is told
        apart from."""
        return {s["sessionId"] for s in self.sessions() if agent is None or s["agent"] == agent}

    def wait_new(self, known: set[str], test: Callable[[dict], bool], timeout: float = 60,
                 interval: float = 0.1) -> Optional[dict]:
        """The first session not in `known` (taken with `ids` before the launch) that passes
        `test`, waited for up to `timeout` s; None if none came. Not "the newest": an earlier
        scenario's session that ends late (when the watch sees its process gone) can be newer than
        the launch's first turn, and may have said the same words."""
        return wait_until(lambda: next((s for s in self.sessions() if s["sessionId"] not in known and test(s)),
                                       None), timeout, interval)

    def session(self, session_id: Optional[str] = None, agent: Optional[str] = None) -> Optional[dict]:
        """One session by id, else the most recently active one of `agent` (or of any agent)."""
        found = [s for s in self.sessions() if (session_id is None or s["sessionId"] == session_id)
                 and (agent is None or s["agent"] == agent)]
        return max(found, key=lambda s: s["lastEventAt"]) if found else None

    def wait_session(self, predicate: Callable[[dict], bool], timeout: float = 20,
                     agent: Optional[str] = None, since_ms: int = 0) -> Optional[dict]:
        """Waits until the newest session of `agent` satisfies `predicate` with an event at or
        after `since_ms` (so a previous turn's state cannot pass); returns it or None."""
        def check():
            s = self.session(agent=agent)
            return s if s is not None and s["lastEventAt"] >= since_ms and predicate(s) else None
        return wait_until(check, timeout, 0.1)

    def halt(self):
        """Stops serve (as when the app is closed); `start` brings it back."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def stop(self):
        self.halt()
        self.log.close()


# How long Codex and Gemini CLI treat an Enter that follows typed text as part of a paste (a
# newline, not a submit): the product waits 150 ms past the drawn text (`Typing::enter_after_ms`);
# the harness, twice that. This is the CLIs' own time rule, not a guess at a race.
PASTE_WINDOW_S = 0.3


def settled(screen, quiet: float = PASTE_WINDOW_S, timeout: float = 10) -> bool:
    """Waits until the screen stays the same for `quiet` seconds — a dialog drawn and done
    drawing, and past the CLI's input window — before a person's key. False after `timeout`."""
    deadline = time.monotonic() + timeout
    last = screen()
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = screen()
        if now == last:
            return True
        last = now
    return False


def typed_then_enter(screen, send_text, send_enter, text: str, enter: bool = True):
    """Sends `text`, waits until the screen shows it one more time than before (the same prompt
    may already stand in the history above), then — past the CLI's paste window — Enter. Fails
    loudly if the text is never drawn."""
    head = text.strip()[:16]
    before = screen().count(head)
    send_text()
    if not enter:
        return
    if not wait_until(lambda: screen().count(head) > before, 20, 0.05):
        raise AssertionError(f"the screen never showed {head!r}:\n{screen()}")
    time.sleep(PASTE_WINDOW_S)
    send_enter()


class Desk:
    """A second instance — the user's desktop — following this machine's serve as the remote `box`
    (issue 48), through a pipe to a shell here (`env … sh -s`), as `ssh box sh -s` gives one: the
    link, its frames and the answers sent down it are the same. The seven CLIs on a box reached over
    a real sshd are box.py's."""

    def __init__(self, workdir: Path, followed: Serve, home: str):
        self.serve = Serve(workdir)
        reach = ["env", f"HOME={home}", f"SWITCHBOARD_HOME={followed.state}",
                 f"PATH={switchboard_bin().parent}:/usr/bin:/bin"]
        self.added = subprocess.run([str(switchboard_bin()), "remote", "add", "box", "--", *reach],
                                    env=self.serve.env, capture_output=True, text=True, timeout=10)

    def session(self, session_id: str) -> Optional[dict]:
        """The box's session `session_id` as this board shows it (`box:<id>`)."""
        return next((s for s in self.serve.sessions() if s["sessionId"] == f"box:{session_id}"), None)

    def wait(self, session_id: str, predicate, timeout: float) -> Optional[dict]:
        def check():
            s = self.session(session_id)
            return s if s is not None and predicate(s) else None
        return wait_until(check, timeout)

    def decide(self, session_id: str, decision: int, verdict: str) -> int:
        return self.serve.decide(f"box:{session_id}", decision, verdict)

    def listed(self) -> dict:
        """`remote list --json`'s entry for the box."""
        out = subprocess.run([str(switchboard_bin()), "remote", "list", "--json"], env=self.serve.env,
                             capture_output=True, text=True, timeout=10)
        return (json.loads(out.stdout or "[]") or [{}])[0]

    def stop(self):
        self.serve.stop()


class Tmux:
    """One interactive program in a private tmux server (`tmux -L <socket>`)."""

    def __init__(self, socket: str, command: list[str], env: dict[str, str], cwd: Path,
                 width: int = 160, height: int = 50, user: Optional[str] = None):
        """`user`: the server and its programs run as that Unix user (`runuser`), as on another
        box reached over SSH (box.py)."""
        self.socket = socket
        self.size = (width, height)
        self.base = [*(["runuser", "-u", user, "--"] if user else []), "tmux", "-L", socket]
        args = [*self.base, "-f", "/dev/null", "new-session", "-d", "-s", "main",
                "-x", str(width), "-y", str(height), "-c", str(cwd), _inner(command, env)]
        # A server of the same socket from a previous launch may still be going away: ended, and
        # waited for until its socket is gone, before the new one starts.
        subprocess.run([*self.base, "kill-server"], capture_output=True)
        uid = pwd.getpwnam(user).pw_uid if user else os.getuid()
        path = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{uid}" / socket
        if not wait_until(lambda: not _listening(path), 10, 0.05):
            raise RuntimeError(f"the previous tmux server of {path} did not go away")
        result = subprocess.run(args, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"tmux new-session failed: {result.stderr.strip()}")

    def open(self, command: list[str], env: dict[str, str], cwd: Path, session: Optional[str] = None) -> str:
        """Another program in this server, a twin of the first: in a second window of the tmux
        session `main`, or in a tmux session of its own named `session`. Its pane id (`%N`)."""
        where = (["new-session", "-d", "-s", session, "-x", str(self.size[0]), "-y", str(self.size[1])]
                 if session else ["new-window", "-d", "-t", "main"])
        out = subprocess.run([*self.base, *where, "-c", str(cwd), "-P", "-F", "#{pane_id}",
                              _inner(command, env)], capture_output=True, text=True)
        if out.returncode != 0 or not out.stdout.strip().startswith("%"):
            raise RuntimeError(f"tmux could not open a twin: {out.stderr.strip()}")
        return out.stdout.strip()

    def pane_id(self) -> str:
        """The first program's pane (`%N`)."""
        out = subprocess.run([*self.base, "display", "-p", "-t", "main", "#{pane_id}"],
                             capture_output=True, text=True)
        return out.stdout.strip()

    def send_to(self, pane: str, *keys: str, literal: bool = False):
        subprocess.run([*self.base, "send-keys", "-t", pane, *(["-l"] if literal else []), *keys],
                       capture_output=True)

    def type_to(self, pane: str, text: str):
        """Types `text` into one pane, then Enter as `type` does (`typed_then_enter`)."""
        typed_then_enter(lambda: self.screen_of(pane), lambda: self.send_to(pane, text, literal=True),
                         lambda: self.send_to(pane, "Enter"), text)

    def screen_of(self, pane: str) -> str:
        """The screen of one pane (`%N`) of this server."""
        out = subprocess.run([*self.base, "capture-pane", "-p", "-t", pane],
                             capture_output=True, text=True)
        return out.stdout

    def close(self, pane: str):
        subprocess.run([*self.base, "kill-pane", "-t", pane], capture_output=True)

    def send(self, *keys: str, literal: bool = False):
        args = [*self.base, "send-keys", "-t", "main"]
        if literal:
            args.append("-l")
        subprocess.run([*args, *keys], check=True)

    def type(self, text: str, enter: bool = True):
        """Types `text`; Enter once the screen shows it once more than before and the CLI's
        paste window has passed (`typed_then_enter`)."""
        typed_then_enter(self.screen, lambda: self.send(text, literal=True),
                         lambda: self.send("Enter"), text, enter)

    def screen(self) -> str:
        out = subprocess.run([*self.base, "capture-pane", "-p", "-t", "main"],
                             capture_output=True, text=True)
        return out.stdout

    def wait_text(self, pattern: str, timeout: float = 30, interval: float = 0.2) -> Optional[str]:
        regex = re.compile(pattern)
        return wait_until(lambda: (lambda s: s if regex.search(s) else None)(self.screen()), timeout, interval)

    def pane_pid(self) -> Optional[int]:
        out = subprocess.run([*self.base, "display", "-p", "-t", "main", "#{pane_pid}"],
                             capture_output=True, text=True)
        return int(out.stdout.strip()) if out.stdout.strip().isdigit() else None

    def kill(self):
        subprocess.run([*self.base, "kill-server"], capture_output=True)


def _inner(command: list[str], env: dict[str, str]) -> str:
    """`command` with only `env` — but for where it runs in tmux: an agent in tmux has $TMUX and
    $TMUX_PANE, and Switchboard reads its screen and jumps to it through them."""
    env_args = [f"{k}={v}" for k, v in env.items()]
    return 'env -i "TMUX=$TMUX" "TMUX_PANE=$TMUX_PANE" ' + " ".join(_quote(a) for a in [*env_args, *command])


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@dataclass
class Report:
    """Checks of one CLI's scenarios; a scenario passes when all its checks hold."""
    cli: str
    results: dict[str, list[tuple[str, bool, str]]] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    current: str = ""

    def scenario(self, name: str):
        self.current = name
        self.results.setdefault(name, [])
        print(f"--- {self.cli}: {name}", flush=True)

    def check(self, what: str, ok: bool, detail: object = ""):
        self.results.setdefault(self.current, []).append((what, bool(ok), str(detail)))
        print(f"    [{'ok' if ok else 'FAIL'}] {what}" + ("" if ok else f" — {detail}"), flush=True)
        return ok

    def note_pending(self, what: str):
        """Something no hook settles (docs/model.md §8, 'No hook at all'): recorded, not failed."""
        self.pending[self.current] = what
        print(f"    [pending] {what}", flush=True)

    def passed(self) -> int:
        return sum(1 for checks in self.results.values() if checks and all(ok for _, ok, _ in checks))

    def failed(self) -> list[str]:
        return [name for name, checks in self.results.items() if not checks or not all(ok for _, ok, _ in checks)]


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children first found, then theirs), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def temp_dir(prefix: str) -> Path:
    """A temporary folder outside /tmp's noexec quirks (Codex refuses helper binaries in /tmp)."""
    base = CACHE / "runs"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


def remove_tree(path: Path):
    shutil.rmtree(path, ignore_errors=True)
