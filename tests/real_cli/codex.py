"""Codex CLI against a fake Responses API, driven in tmux, judged by Switchboard's view.

Run: `python3 tests/real_cli/run.py codex`. One interactive Codex (`--no-daemon`: hooks run in
its own process and SessionEnd comes at /exit, not ~60 s later) carries most scenarios as turns of
one session; /clear, /exit and `codex resume` follow. Expected statuses are those of
docs/model.md §8.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable, Optional

import fake_ntfy
import harness

PAST = {"allow": "allowed", "deny": "denied"}
from fake_codex import FakeResponses, _content_text

PACKAGE = "@openai/codex"
VERSION = "0.171.0"
AGENT = "codex"
PROMPT_READY = r"Ask Codex to do anything|\? for shortcuts"
TRANSCRIPTS = harness.ROOT / "tests" / "fixtures" / "real-transcripts" / AGENT


def binary(package_dir: Path) -> Path:
    """The native binary from the optional platform package (the JS wrapper only finds it)."""
    root = package_dir.parent / "codex-linux-x64" / "vendor"
    found = sorted(root.glob("*/bin/codex"))
    if not found:
        raise RuntimeError(f"no native codex binary under {root}")
    return found[0]


def write_config(codex_home: Path, port: int, workspace: Path):
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(f"""model = "gpt-5.4"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects."{workspace}"]
trust_level = "trusted"
""")


class Codex:
    """One interactive Codex in its own tmux server."""

    count = 0

    def __init__(self, exe: Path, env: dict[str, str], cwd: Path, args: list[str]):
        Codex.count += 1
        self.tmux = harness.Tmux(f"sb-codex-{os.getpid()}-{Codex.count}", [str(exe), *args, "--no-daemon"],
                                 env, cwd, width=160, height=50)
        self.pids: set[int] = set()
        self.remember_pids()

    def remember_pids(self):
        """Codex and everything under it (commands it runs in the background), to end by pid."""
        root = self.tmux.pane_pid()
        if root:
            self.pids |= {root, *descendants(root)}

    def start(self, report: harness.Report, review: bool) -> bool:
        """Waits for the prompt; with `review`, first trusts the hooks at "Hooks need review"
        (it pops up a moment after the prompt is drawn, and would take the first keys typed)."""
        if review:
            shown = self.tmux.wait_text(r"Trust all and continue", 30)
            if not report.check("Codex asks to review the new hooks", shown, self.tmux.screen()):
                return False
            time.sleep(0.3)
            self.tmux.send("Down")  # "2. Trust all and continue" writes each hook's trusted_hash
            if not self.tmux.wait_text(r"› 2\. Trust all", 5):
                report.check("the trust option is selected", False, self.tmux.screen())
                return False
            self.tmux.send("Enter")
        screen = self.tmux.wait_text(PROMPT_READY, 30) or ""
        time.sleep(0.5)
        screen = self.tmux.screen()
        self.remember_pids()
        return report.check("Codex starts at its prompt", re.search(PROMPT_READY, screen)
                            and "need review" not in screen, screen)

    def type(self, text: str):
        self.tmux.type(text)
        self.remember_pids()

    def close(self):
        self.remember_pids()
        self.tmux.kill()
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class DaemonWindows:
    """Codex in its default daemon mode, in windows of one private tmux server (each a pane)."""

    def __init__(self, socket: str, exe: Path, env: dict[str, str], cwd: Path):
        self.socket, self.exe, self.env, self.cwd = socket, exe, env, cwd
        self.panes: list[str] = []
        self.pids: set[int] = set()

    def tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)

    def open(self) -> str:
        """A new window running `codex` (no --no-daemon); its pane id."""
        inner = 'env -i "TMUX=$TMUX" "TMUX_PANE=$TMUX_PANE" ' + " ".join(
            harness._quote(a) for a in [*(f"{k}={v}" for k, v in self.env.items()), str(self.exe)])
        if not self.panes:
            self.tmux("kill-server")  # a server of the same socket from an earlier run
            out = self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "daemon", "-x", "160", "-y", "50",
                            "-c", str(self.cwd), "-P", "-F", "#{pane_id}", inner)
        else:
            out = self.tmux("new-window", "-t", "daemon", "-c", str(self.cwd), "-P", "-F", "#{pane_id}", inner)
        pane = out.stdout.strip()
        if not pane:
            raise RuntimeError(f"tmux could not open a window: {out.stderr.strip()}")
        self.panes.append(pane)
        self.remember_pids()
        return pane

    def screen(self, pane: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", pane).stdout

    def send(self, pane: str, *keys: str, literal: bool = False):
        self.tmux("send-keys", "-t", pane, *(["-l"] if literal else []), *keys)

    def type(self, pane: str, text: str):
        """Types `text`, and Enter once the composer shows it (`harness.typed_then_enter`)."""
        harness.typed_then_enter(lambda: self.screen(pane), lambda: self.send(pane, text, literal=True),
                                 lambda: self.send(pane, "Enter"), text)

    def prompt(self, pane: str, text: str):
        """Types a prompt and waits until Codex has taken it (its turn runs or ran)."""
        self.type(pane, text)
        taken = lambda: "Worked for" in self.screen(pane) or "esc to interrupt" in self.screen(pane)
        if not harness.wait_until(taken, 30):
            raise AssertionError(f"the prompt in {pane} was not taken:\n{self.screen(pane)}")

    def start(self, pane: str) -> bool:
        """At its prompt. Keys typed before the daemon is up can be lost: wait for the footer's
        "for agents". Fresh hooks bring "Hooks need review" ~4 s after the prompt is drawn (here
        the `--no-daemon` run trusted them already), so wait up to 6 s for it and trust all."""
        def trust_asked():
            return "Trust all and continue" in self.screen(pane)
        ready = harness.wait_until(lambda: trust_asked() or "for agents" in self.screen(pane), 40, 0.2)
        if ready and (trust_asked() or harness.wait_until(trust_asked, 6, 0.2)):
            print(f"    {pane}: Codex asks to trust the hooks; trusting all", flush=True)
            time.sleep(0.3)
            self.send(pane, "Down")
            harness.wait_until(lambda: re.search(r"› 2\. Trust all", self.screen(pane)), 5)
            self.send(pane, "Enter")
        ready = harness.wait_until(lambda: re.search(PROMPT_READY, self.screen(pane))
                                   and "need review" not in self.screen(pane), 30, 0.2)
        time.sleep(0.5)
        self.remember_pids()
        return bool(ready)

    def remember_pids(self):
        for pane in self.panes:
            out = self.tmux("display", "-p", "-t", pane, "#{pane_pid}").stdout.strip()
            if out.isdigit():
                self.pids |= {int(out), *descendants(int(out))}

    @staticmethod
    def daemons(codex_home: Path) -> set[int]:
        """`codex app-server` processes (the daemon and its pid-update-loop) of this CODEX_HOME."""
        found = set()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if "app-server" in cmd and f"CODEX_HOME={codex_home}".encode() in environ:
                found.add(int(entry.name))
        return found

    def close(self, codex_home: Path) -> list[int]:
        """Kills the tmux server, every process it ran and the daemon, by pid; those still alive."""
        self.remember_pids()
        daemons = self.daemons(codex_home)
        for pid in daemons:
            self.pids |= {pid, *descendants(pid)}
        self.tmux("kill-server")
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

        def alive() -> list[int]:
            return [pid for pid in self.pids if running(pid)]
        harness.wait_until(lambda: not alive(), 5)
        return alive() + sorted(self.daemons(codex_home) - self.pids)


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


class Rollout:
    """Saves what Codex appended to a session's rollout file during one scenario."""

    def __init__(self, codex_home: Path, home: Path, workdir: Path):
        self.codex_home = codex_home
        self.home = home
        self.workdir = workdir
        self.saved: dict[str, str] = {}  # file name → what the user did

    def path(self, session_id: Optional[str]) -> Optional[Path]:
        if not session_id:
            return None
        found = sorted(self.codex_home.glob(f"sessions/*/*/*/rollout-*-{session_id}.jsonl"))
        return found[-1] if found else None

    def lines(self, session_id: Optional[str]) -> list[str]:
        path = self.path(session_id)
        return path.read_text().splitlines() if path else []

    def save(self, name: str, what: str, session_id: Optional[str], since: int, marker: str):
        lines = self.lines(session_id)[since:]
        # The prompt's own turn starts at the task_started record just before the prompt.
        first = next((i for i, line in enumerate(lines) if marker in line), 0)
        start = max((i for i, line in enumerate(lines[:first]) if '"task_started"' in line), default=0)
        text = "\n".join(lines[start:]) + "\n"
        for path, alias in ((self.home, "/home/dev"), (self.workdir, "/home/dev/run")):
            text = text.replace(str(path), alias)
        # Recorded fixtures are rewritten only on request, so a test run leaves the tree as it was.
        target = TRANSCRIPTS / f"{name}.jsonl"
        if target.exists() and os.environ.get("SWITCHBOARD_SAVE_TRANSCRIPTS") != "1":
            return
        TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        self.saved[name] = what

    def write_readme(self):
        if not self.saved:
            return
        lines = "\n".join(f"- `{name}.jsonl`: {what}" for name, what in sorted(self.saved.items()))
        (TRANSCRIPTS / "README.md").write_text(
            f"Codex CLI {VERSION} rollout lines from the scenario's prompt on (paths rewritten to /home/dev), "
            f"saved by tests/real_cli/codex.py. What the user did:\n{lines}\n")


def run(ctx, report: harness.Report):
    exe = binary(harness.npm_package(PACKAGE, VERSION))
    fake = FakeResponses()
    home = ctx.workdir / "home"
    codex_home = home / ".codex"
    workspace = home / "ws"
    workspace.mkdir(parents=True)
    (workspace / "README.txt").write_text("hello\n")
    write_config(codex_home, fake.port, workspace)
    serve = None
    sessions: list[Codex] = []
    rollout = Rollout(codex_home, home, ctx.workdir)
    try:
        install_env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(codex_home)}
        out = subprocess.run([str(ctx.bin), "install", AGENT], env=install_env, capture_output=True, text=True,
                             timeout=30)
        report.scenario("install")
        report.check("`switchboard install codex` succeeds", out.returncode == 0, out.stdout + out.stderr)
        report.check("it writes $CODEX_HOME/hooks.json", (codex_home / "hooks.json").is_file(), out.stdout)

        serve = start_serve(ctx.workdir, codex_home)
        env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "TERM": "xterm-256color", "LANG": "C.UTF-8", "FAKE_OPENAI_API_KEY": "sk-fake-for-tests",
               "SWITCHBOARD_HOME": str(serve.state)}
        Scenarios(report, serve, rollout, exe, env, workspace, sessions, fake).all()
    finally:
        for codex in sessions:
            codex.close()
        if serve is not None:
            serve.stop()
        fake.stop()
        rollout.write_readme()


def start_serve(workdir: Path, codex_home: Path) -> harness.Serve:
    """`switchboard serve` reads thread names from $CODEX_HOME/session_index.jsonl, so it needs the
    CODEX_HOME that Codex uses, as a user's would have; harness.Serve copies os.environ."""
    before = os.environ.get("CODEX_HOME")
    os.environ["CODEX_HOME"] = str(codex_home)
    try:
        return harness.Serve(workdir)
    finally:
        if before is None:
            del os.environ["CODEX_HOME"]
        else:
            os.environ["CODEX_HOME"] = before


class Scenarios:
    def __init__(self, report, serve, rollout, exe, env, workspace, sessions, fake: FakeResponses):
        self.report = report
        self.fake = fake
        self.serve = serve
        self.rollout = rollout
        self.exe = exe
        self.env = env
        self.workspace = workspace
        self.sessions = sessions
        self.codex: Optional[Codex] = None
        self.session_id: Optional[str] = None

    # --- helpers ---------------------------------------------------------------------------

    def launch(self, *args: str, review: bool = False) -> bool:
        self.codex = Codex(self.exe, self.env, self.workspace, list(args))
        self.sessions.append(self.codex)
        return self.codex.start(self.report, review)

    def wait(self, predicate: Callable[[dict], bool], timeout: float = 12) -> Optional[dict]:
        return self.serve.wait_session(predicate, timeout, agent=AGENT)

    def by_id(self, sid: str, predicate: Callable[[dict], bool], timeout: float = 12) -> Optional[dict]:
        """Waits until the session `sid` (not the newest) satisfies `predicate`; it, or None."""
        def check():
            s = self.serve.session(sid)
            return s if s is not None and predicate(s) else None
        return harness.wait_until(check, timeout, 0.1)

    def latest(self) -> Optional[dict]:
        return self.serve.session(agent=AGENT)

    def expect(self, what: str, predicate: Callable[[dict], bool], timeout: float = 12) -> Optional[dict]:
        found = self.wait(predicate, timeout)
        detail = f"Switchboard shows {brief(self.latest())}"
        if not found:
            lines = [line for line in self.codex.tmux.screen().splitlines() if line.strip()]
            detail += "\n      screen: " + "\n      ".join(lines[-8:])
        self.report.check(what, found, detail)
        if found:
            self.session_id = found["sessionId"]
        return found

    def prompt(self, text: str) -> int:
        """Types a prompt; returns how many rollout lines the session had before it."""
        since = len(self.rollout.lines(self.session_id))
        self.codex.type(text)
        return since

    def screen_shows(self, what: str, pattern: str, timeout: float = 15) -> bool:
        screen = self.codex.tmux.wait_text(pattern, timeout)
        return self.report.check(what, screen, self.codex.tmux.screen())

    def ready(self, timeout: float = 15) -> bool:
        """Codex is back at an idle prompt (not mid-turn)."""
        def idle():
            screen = self.codex.tmux.screen()
            return "esc to interrupt" not in screen and re.search(PROMPT_READY, screen)
        return bool(harness.wait_until(idle, timeout, 0.2))

    # --- scenarios -------------------------------------------------------------------------

    def all(self):
        self.report.scenario("read-only turn")
        if not self.launch(review=True):
            return
        config = (Path(self.env["CODEX_HOME"]) / "config.toml").read_text()
        self.report.check("trusting writes the hooks' trusted_hash into config.toml",
                          config.count("trusted_hash") >= 12, config[-400:])
        self.read_only()
        self.usage()
        self.title_after_a_short_first_turn()
        self.ready()
        self.reply_from_board()
        self.ready()
        self.reply_into_a_draft()
        for step in (self.permission_approved, self.permission_refused_esc, self.permission_refused_no,
                     self.board, self.question_tool, self.question_from_board, self.question_from_phone,
                     self.question_tool_esc,
                     self.question_tool_default_mode,
                     self.question_plain_text, self.esc_during_tool, self.esc_during_stream,
                     self.api_errors, self.subagent, self.title, self.compaction, self.clear_exit_resume):
            self.ready()
            step()
        self.reply_in_daemon_mode()
        self.twins_without_daemon()

    def twins_without_daemon(self):
        """Issue 48: three `--no-daemon` Codex windows in one folder (a fresh one, then
        `harness.twin_panes`: a second window, a second tmux session): each is its own process with
        its own rollout open, so each reply is typed into its own pane, never a twin's."""
        self.report.scenario("twin panes without the daemon: the first window")
        # The daemon scenario's sessions end when the watch sees their processes gone, up to a
        # second later: their exit can be newer than this window's first turn, and one of them
        # said the same hello. This window's session is the one the board did not know before.
        known = self.serve.ids(AGENT)
        if not self.launch():
            return
        started = int(time.time() * 1000)
        self.prompt("Say hello [[scenario:hello]] in the first window")
        first = self.serve.wait_new(known, lambda s: s["agent"] == AGENT and s["status"] == "done"
                                    and s["lastEventAt"] >= started and s.get("message") == "Hello there. Done.", 30)
        self.report.check("its first turn → its session, done", first is not None, brief(self.latest()))
        if first is None:
            return
        self.ready()

        def idle(screen: str) -> bool:
            return "esc to interrupt" not in screen and re.search(PROMPT_READY, screen) is not None
        harness.twin_panes(self.report, self.codex.tmux, self.serve, AGENT, "Codex", first["sessionId"],
                           [str(self.exe), "--no-daemon"], self.env, self.workspace, idle)

    def read_only(self):
        self.prompt("Read the README please [[scenario:read]]")
        self.expect("UserPromptSubmit → working … Stop → done with the last message",
                    lambda s: s["status"] == "done" and s.get("message") == "The README says hello. Done.")
        s = self.latest() or {}
        self.report.check("a plain turn is neither interrupted nor errored",
                          not s.get("interrupted") and not s.get("errored"), brief(s))
        self.report.check("the session names the codex agent and its cwd",
                          s.get("agent") == AGENT and s.get("cwd") == str(self.workspace), brief(s))

    def usage(self):
        """Issue 25: the board's tokens are what the fake server sent with the session's
        responses (requests with tools and this session's cache key), read from the rollout's
        token_count records, and the context is the last response's of Codex's own window."""
        self.report.scenario("usage: tokens and context from the rollout")
        with self.fake.lock:
            mine = [u for u in self.fake.usage if u[0] and u[1] in ("", self.session_id)]
        expected = {"inputTokens": sum(i - c for _, _, i, c, _ in mine),
                    "cacheReadTokens": sum(c for _, _, _, c, _ in mine),
                    "outputTokens": sum(o for *_, o in mine), "requests": len(mine),
                    "contextTokens": (mine[-1][2] + mine[-1][4]) if mine else None}
        got = self.expect(f"tokens equal the {len(mine)} responses sent",
                          lambda s: all((s.get("usage") or {}).get(k) == v for k, v in expected.items()), 10)
        usage = ((got or self.latest() or {}).get("usage")) or {}
        window = usage.get("contextWindow")
        self.report.check("context % follows: the last response's tokens of Codex's window",
                          isinstance(window, int) and window > 0 and usage.get("contextTokens") == expected["contextTokens"],
                          f"{usage}; expected {expected}; sent {self.fake.usage}")
        print(f"    usage: {usage}", flush=True)

    def sent_in(self, text: str, start: int = 0) -> list[str]:
        """The prompt_cache_key (Codex's session id) of every request since `start` whose input
        has a user message containing `text`."""
        with self.fake.lock:
            bodies = list(self.fake.requests[start:])
        return [str(body.get("prompt_cache_key") or "") for body in bodies
                if any(item.get("type") == "message" and item.get("role") == "user" and text in _content_text(item)
                       for item in body.get("input") or [])]

    def reply_from_board(self):
        """Issue 33: `switchboard reply` types into the pane of a `--no-daemon` Codex (its own
        process holds the session's rollout) and says so only once Codex's UserPromptSubmit came."""
        self.report.scenario("reply from the board (`switchboard reply`)")
        sid = self.session_id or ""
        unique = f"Board reply {os.getpid()}-{time.time_ns()} [[scenario:hello]] (reply)"
        started = int(time.time() * 1000)
        code, said = self.serve.reply(sid, unique)
        self.report.check("`switchboard reply` exits 0 and says Codex took it",
                          code == 0 and "took it" in said, f"exit {code}: {said}")
        got = harness.wait_until(lambda: sid in self.sent_in(unique), 15)
        self.report.check("the model gets the reply in this session's request", got,
                          f"sent in {self.sent_in(unique)}; screen:\n{self.codex.tmux.screen()[-800:]}")
        self.expect("the reply started a new turn (UserPromptSubmit → working)",
                    lambda s: s["sessionId"] == sid and (s.get("turnStartedAt") or 0) >= started, 5)
        self.expect("… and the turn ends done with the model's answer",
                    lambda s: s["sessionId"] == sid and s["status"] == "done" and s.get("message") == "Hello there. Done."
                    and s["lastEventAt"] >= started, 15)

    def reply_into_a_draft(self):
        """Issue 33.2: a composer holding the user's unsent draft is refused, the draft kept."""
        self.report.scenario("reply refused while the composer holds a draft")
        sid = self.session_id or ""
        self.codex.tmux.send("half a thought", literal=True)
        drawn = self.codex.tmux.wait_text(r"› half a thought", 10)
        if not self.report.check("the draft is drawn in the composer", drawn, self.codex.tmux.screen()):
            return
        unique = f"Board reply over a draft {os.getpid()}-{time.time_ns()} [[scenario:hello]]"
        start = len(self.fake.requests)
        code, said = self.serve.reply(sid, unique)
        self.report.check("`switchboard reply` fails, saying the composer holds text not sent yet",
                          code != 0 and "holds text not sent yet" in said, f"exit {code}: {said}")
        # What it typed is erased with Backspace as it refuses: the TUI redraws a moment later.
        def draft_alone():
            screen = self.codex.tmux.screen()
            return (any(line.strip() == "› half a thought" for line in screen.splitlines())
                    and "Board reply over a draft" not in screen)
        self.report.check("the composer still shows the draft, and only it", harness.wait_until(draft_alone, 5),
                          self.codex.tmux.screen())
        sent = harness.wait_until(lambda: self.sent_in(unique, start), 3)
        self.report.check("nothing was sent to the model", not sent and not self.sent_in("half a thought", start),
                          self.sent_in(unique, start))
        self.codex.tmux.send("C-u")  # Codex: Ctrl-U deletes to the start of the line
        cleared = harness.wait_until(lambda: "half a thought" not in self.codex.tmux.screen(), 5)
        self.report.check("Ctrl-U clears the draft", cleared, self.codex.tmux.screen())

    def reply_in_daemon_mode(self):
        """Issues 33 and 48: Codex's default daemon mode — one `codex app-server` daemon, started
        from the first window, runs every window's session and every hook says the first window's
        pane, so no pane is proven and nothing may be typed. The board goes through the daemon's
        own protocol instead: a reply to window 2 is a turn the daemon starts on window 2's thread
        (drawn in window 2, never window 1), peek reads that thread's last turns from the daemon,
        and window 2's question is answered through the daemon (its dialog closes, the model gets
        the option)."""
        self.report.scenario("Codex's daemon mode: reply, peek and answer through its protocol (two windows)")
        codex_home = Path(self.env["CODEX_HOME"])
        known = self.serve.ids(AGENT)
        server = DaemonWindows(f"sb-codex-{os.getpid()}-daemon", self.exe, self.env, self.workspace)
        try:
            ids = []
            for n in (1, 2):
                pane = server.open()
                if not self.report.check(f"window {n} (daemon mode) starts at its prompt",
                                         server.start(pane), server.screen(pane)):
                    return
                server.prompt(pane, f"Window {n} [[scenario:hello]] (daemon)")
                found = self.serve.wait_new(known, lambda s: s["agent"] == AGENT and s["sessionId"] not in ids
                                            and s["status"] == "done" and s.get("message") == "Hello there. Done.", 30)
                if not self.report.check(f"window {n}'s first turn → a new session, done", found,
                                         server.screen(pane)):
                    return
                ids.append(found["sessionId"])
                harness.wait_until(lambda: "esc to interrupt" not in server.screen(pane)
                                   and re.search(PROMPT_READY, server.screen(pane)), 10, 0.2)
            daemons = server.daemons(codex_home)
            print(f"    daemon processes: {sorted(daemons)}; sessions {ids}", flush=True)
            self.report.check("a `codex app-server` daemon runs", daemons, daemons)
            first, second = server.panes
            unique = f"Daemon reply {os.getpid()}-{time.time_ns()} [[scenario:hello]]"
            start = len(self.fake.requests)
            replied, replied_ms = time.monotonic(), int(time.time() * 1000)
            code, said = self.serve.reply(ids[1], unique)
            print(f"    daemon mode reply: exit {code} in {1000 * (time.monotonic() - replied):.0f} ms — "
                  f"{said.strip()}", flush=True)
            self.report.check("the reply is sent through the daemon, taken by Codex (exit 0)",
                              code == 0 and "through its daemon" in said, f"exit {code}: {said}")
            got = harness.wait_until(lambda: ids[1] in self.sent_in(unique, start), 15)
            self.report.check("the model gets the reply in window 2's session", got,
                              f"sent in {self.sent_in(unique, start)}")
            self.report.check("window 2 draws the reply as its prompt",
                              harness.wait_until(lambda: "Daemon reply" in server.screen(second), 10),
                              server.screen(second))
            self.report.check("window 2's session: the reply's turn → done",
                              self.by_id(ids[1], lambda s: s["status"] == "done" and s["lastEventAt"] >= replied_ms
                                         and s.get("message") == "Hello there. Done.", 20),
                              brief(self.serve.session(ids[1])))
            sent = harness.wait_until(lambda: ids[0] in self.sent_in(unique, start), 3)
            self.report.check("window 1's session never sent it to the model", not sent,
                              self.sent_in(unique, start))
            self.report.check("window 1's pane does not show it", "Daemon reply" not in server.screen(first),
                              server.screen(first))
            peeked = subprocess.run([str(harness.switchboard_bin()), "peek", ids[1], "--json"], env=self.serve.env,
                                    capture_output=True, text=True, timeout=20)
            screen = (json.loads(peeked.stdout or "{}").get("screen") or "") if peeked.returncode == 0 else ""
            self.report.check("peek at window 2 shows its thread's turns from the daemon, not window 1's",
                              "daemon serves this session" in screen and unique in screen
                              and "Window 1 [[scenario" not in screen, screen[-800:] or peeked.stderr)
            self.answer_in_daemon_mode(server, second, ids[1], ids[0])
        finally:
            left = server.close(codex_home)
            self.report.check("the daemon and both windows' processes are gone", not left, left)

    def answer_in_daemon_mode(self, server: "DaemonWindows", pane: str, sid: str, twin: str):
        """Window 2's question (Plan mode), answered from the board with option 2: the daemon
        hands its pending request to the board, which answers it by the question's id."""
        server.send(pane, "BTab")
        if not self.report.check("window 2 switches to Plan mode",
                                 harness.wait_until(lambda: "Plan mode" in server.screen(pane), 5), server.screen(pane)):
            return
        server.prompt(pane, "Pick a color [[scenario:ask]] (daemon)")
        asked = self.by_id(sid, lambda s: s["status"] == "waiting" and s.get("awaitingInput")
                           and s.get("question") == "Which color should I use?", 20)
        self.report.check("window 2's session waits with the question", asked, brief(self.serve.session(sid)))
        self.report.check("window 2 shows the question",
                          harness.wait_until(lambda: "Which color should I use?" in server.screen(pane), 10),
                          server.screen(pane))
        if not asked:
            return
        asked_at = len(self.fake.requests)
        code, said = self.serve.answer(sid, "2")
        print(f"    daemon mode answer: exit {code} — {said.strip()}", flush=True)
        self.report.check("option 2 is answered through the daemon (exit 0)", code == 0
                          and "through its daemon" in said, f"exit {code}: {said}")
        self.report.check("the answer → done, no question left open",
                          self.by_id(sid, lambda s: s["status"] == "done" and s.get("message") == "Using that color. Done."
                                     and not s.get("awaitingInput"), 20), brief(self.serve.session(sid)))
        def outputs(body: dict) -> list[str]:
            return [json.dumps(i) for i in body.get("input") or [] if i.get("type") == "function_call_output"]
        sent = {o for body in self.fake.requests[:asked_at] for o in outputs(body)}
        new = [o for body in self.fake.requests[asked_at:] for o in outputs(body) if o not in sent]
        self.report.check("the model gets Blue as the answer", any("Blue" in o for o in new), new)
        self.report.check("window 2's dialog closed", harness.wait_until(
            lambda: "Which color should I use?" not in server.screen(pane).split("Pick a color")[-1]
            or "Using that color" in server.screen(pane), 10), server.screen(pane))
        twin_now = self.serve.session(twin) or {}
        self.report.check("window 1's session is untouched (done, no question)",
                          twin_now.get("status") == "done" and not twin_now.get("awaitingInput"), brief(twin_now))

    def permission_approved(self):
        self.report.scenario("permission approved")
        marker = self.workspace / "approved-marker.txt"
        since = self.prompt("Create the marker [[scenario:perm]] (approve)")
        self.expect("PermissionRequest → blocked with the command as message",
                    lambda s: s["status"] == "blocked" and "touch approved-marker.txt" in (s.get("message") or ""))
        self.screen_shows("Codex shows its approval prompt", r"Yes, proceed")
        self.codex.tmux.send("y")
        # No hook fires until PostToolUse (the command may run for minutes): the command's own
        # process, a new child of Codex, tells Switchboard it was approved.
        self.expect("approved: the command's process → working within 2 s (no hook yet)",
                    lambda s: s["status"] == "working", 2)
        self.expect("PostToolUse → working → Stop → done", lambda s: s["status"] == "done"
                    and s.get("message") == "Marker created.", 20)
        self.report.check("the approved command ran", marker.exists(), marker)
        self.rollout.save("permission-approved", "approved a command at the permission prompt with `y`; "
                          "it ran ~2 s (no hook fires between the approval and PostToolUse)",
                          self.session_id, since, "[[scenario:perm]] (approve)")

    def title_after_a_short_first_turn(self):
        # Issue 20.6: Codex writes the thread name ~0.2 s after SessionStart, and a short first
        # turn sends no later event: Switchboard looks at the index again by itself.
        self.report.scenario("thread name after a short first turn")
        index = Path(self.env["CODEX_HOME"]) / "session_index.jsonl"
        named = harness.wait_until(lambda: index.exists() and "Fake session title" in index.read_text(), 5)
        self.report.check("Codex writes the thread name to session_index.jsonl", named, index)
        self.expect("the node takes the thread name with no further event",
                    lambda s: s.get("title") == "Fake session title", 10)

    def title(self):
        self.report.scenario("thread name as node title")
        # The first turn's title request names the thread in $CODEX_HOME/session_index.jsonl; no
        # hook fires for it, so Switchboard picks it up on a later event of the session (it reads
        # the index at most every 5 s, on an event): checked here, many turns after the first.
        index = Path(self.env["CODEX_HOME"]) / "session_index.jsonl"
        named = harness.wait_until(lambda: index.exists() and "Fake session title" in index.read_text(), 5)
        self.report.check("Codex writes the thread name to session_index.jsonl", named, index)
        self.expect("the node title is Codex's thread name", lambda s: s.get("title") == "Fake session title", 6)

    def permission_refused(self, name: str, keys: list[str], how: str):
        self.report.scenario(f"permission refused with {how}")
        since = self.prompt(f"Create the marker [[scenario:perm]] (refuse with {how})")
        self.expect("PermissionRequest → blocked", lambda s: s["status"] == "blocked")
        self.screen_shows("Codex shows its approval prompt", r"Yes, proceed")
        for key in keys:
            self.codex.tmux.send(key)
            time.sleep(0.3)
        self.expect(f"{how} at the prompt → Interrupt → done + interrupted",
                    lambda s: s["status"] == "done" and s.get("interrupted"))
        self.screen_shows("Codex says the request was canceled", r"You canceled the request")
        self.rollout.save(name, f"refused a command at the permission prompt with {how}",
                          self.session_id, since, f"(refuse with {how})")

    def restart_serve(self, env: Optional[dict] = None):
        """serve again on the same state (CODEX_HOME as `start_serve` gives it)."""
        self.serve.halt()
        self.serve.start({**(env or {}), "CODEX_HOME": self.env["CODEX_HOME"]})

    def board(self):
        """Issue 14: Codex's PermissionRequest hook held for an answer from Switchboard."""
        self.restart_serve({"SWITCHBOARD_DECIDE": "codex"})
        for verdict, answer in (("allow", "Board file created."), ("deny", "Understood, not created.")):
            self.ready()
            self.report.scenario(f"permission {PAST[verdict]} from Switchboard")
            marker = self.workspace / f"{verdict}-from-board.txt"
            self.prompt(f"Create a file from the board [[scenario:board-{verdict}]]")
            held = self.expect("PermissionRequest held → blocked, Allow / Deny on offer",
                               lambda s: s["status"] == "blocked" and isinstance(s.get("decision"), int))
            # Measured: Codex draws its own approval prompt only after the hook returns.
            time.sleep(1.0)
            screen = self.codex.tmux.screen()
            shown = "Yes, proceed" in screen
            status = [line.strip() for line in screen.splitlines() if "esc to interrupt" in line or "hook" in line]
            print(f"    while the hook is held, Codex's own prompt is {'shown' if shown else 'NOT shown'}"
                  + ("" if shown else f" (it says: {status[-1] if status else '?'})"), flush=True)
            if not held:
                continue
            self.report.check("the answer is accepted",
                              self.serve.decide(held["sessionId"], held["decision"], verdict) == 204)
            self.expect(f"{verdict} → the turn goes on → done",
                        lambda s: s["status"] == "done" and s.get("message") == answer, 20)
            self.report.check(f"the command {'ran' if verdict == 'allow' else 'did not run'}",
                              marker.exists() == (verdict == "allow"), marker)

        self.ready()
        self.remote_board()

        self.ready()
        self.report.scenario("Switchboard closed: the prompt is not held")
        self.serve.halt()
        started = time.monotonic()
        self.codex.type("Create a file with the app closed [[scenario:board-closed]]")
        shown = self.codex.tmux.wait_text(r"Yes, proceed", 15)
        waited = time.monotonic() - started
        self.report.check("Codex asks in its terminal at once", shown is not None and waited < 10, f"{waited:.1f} s")
        self.codex.tmux.send("y")
        marker = self.workspace / "closed-from-board.txt"
        self.report.check("the command ran", harness.wait_until(marker.exists, 10) is not None, marker)
        self.ready(20)
        self.restart_serve()

    def remote_board(self):
        """Issue 48: this machine followed by another board as the remote `box` (`harness.Desk`),
        Codex's permission held: blocked there with Allow / Deny on offer; Allow from that board
        runs the command here."""
        self.report.scenario("permission allowed from a board following this machine (remote)")
        desk = harness.Desk(self.serve.state.parent / "desk", self.serve, self.env["HOME"])
        try:
            self.report.check("`switchboard remote add box -- …`", desk.added.returncode == 0,
                              desk.added.stdout + desk.added.stderr)
            sid = self.session_id
            linked = desk.wait(sid, lambda s: s.get("host") == "box" and s["status"] == "done", 30)
            self.report.check("the session is on the following board, done, host `box`", linked is not None,
                              [s["sessionId"] for s in desk.serve.sessions()])
            marker = self.workspace / "remote-from-board.txt"
            self.prompt("Create a file from another board [[scenario:board-remote]]")
            held = desk.wait(sid, lambda s: s["status"] == "blocked" and isinstance(s.get("decision"), int), 30)
            self.report.check("blocked there, Allow / Deny on offer", held is not None, desk.session(sid))
            if held is None:
                return
            self.report.check("Allow from that board is accepted", desk.decide(sid, held["decision"], "allow") == 204)
            done = desk.wait(sid, lambda s: s["status"] == "done" and s.get("message") == "Created from afar.", 30)
            self.report.check("→ the command runs → done there", done is not None, desk.session(sid))
            self.report.check("the command ran on this machine", harness.wait_until(marker.exists, 10) is not None)
            listed = desk.listed()
            self.report.check("`remote list` says connected, with its sessions",
                              listed.get("state") == "connected" and listed.get("sessions", 0) >= 1, listed)
        finally:
            desk.stop()

    def permission_refused_esc(self):
        self.permission_refused("permission-refused-esc", ["Escape"], "Esc")

    def permission_refused_no(self):
        # "3. No, and tell Codex what to do differently" — chosen with the arrows and Enter.
        self.permission_refused("permission-refused-no", ["Down", "Down", "Enter"], "No")

    def plan_mode(self, on: bool) -> bool:
        """Shift+tab cycles Default ⇄ Plan; the footer says "Plan mode (shift+tab to cycle)". One
        press, past the composer's input window, when the mode is not already `on`."""
        def now_on():
            return "Plan mode (shift+tab" in self.codex.tmux.screen()

        def at_rest():
            # While a turn runs (or has just ended, before Codex redraws), the footer shows
            # neither mode's words: read too soon, Plan mode looked off and one press turned it off.
            screen = self.codex.tmux.screen()
            return "Plan mode (shift+tab" in screen or "for shortcuts" in screen
        harness.wait_until(at_rest, 10, 0.1)
        if now_on() == on:
            return True
        time.sleep(harness.PASTE_WINDOW_S)
        self.codex.tmux.send("BTab")
        return bool(harness.wait_until(lambda: now_on() == on, 10, 0.1))

    def question_tool(self):
        self.report.scenario("question tool (Plan mode, answered)")
        self.report.check("shift+tab switches to Plan mode", self.plan_mode(True), self.codex.tmux.screen())
        self.prompt("Pick a color [[scenario:ask]] (answer)")
        self.expect("PreToolUse(request_user_input) → waiting with the question",
                    lambda s: s["status"] == "waiting" and s.get("awaitingInput")
                    and s.get("question") == "Which color should I use?")
        self.screen_shows("Codex shows the question", r"Which color should I use\?")
        self.codex.tmux.send("Enter")  # the first option, "Red (Recommended)"
        self.expect("the answer (PostToolUse) → working → Stop → done, no question left open",
                    lambda s: s["status"] == "done" and s.get("message") == "Using that color. Done."
                    and not s.get("awaitingInput"), 15)

    def question_from_board(self):
        """Issue 24: `switchboard answer` on Codex's question. Codex runs every session's hooks in
        one daemon, so the board types only into a pane where a process has this session's rollout
        open; else it refuses with that reason and types nothing. Either way is checked."""
        self.report.scenario("question tool answered from the board (Plan mode)")
        self.plan_mode(True)
        self.prompt("Pick a color [[scenario:ask]] (board)")
        asked = self.expect("waiting with the question's options",
                            lambda s: s["status"] == "waiting" and [o["label"] for o in (s.get("questions") or [{}])[0]
                                                                   .get("options", [])] == ["Red (Recommended)", "Blue"])
        self.screen_shows("Codex shows the question", r"Which color should I use\?")
        time.sleep(0.5)  # a key pressed the instant the dialog is drawn can be lost
        sid = (asked or {}).get("sessionId", "")
        answered = subprocess.run([str(harness.switchboard_bin()), "answer", sid, "2"], env=self.serve.env,
                                  capture_output=True, text=True, timeout=20)
        said = answered.stdout + answered.stderr
        if answered.returncode == 0:
            print("    Codex: the pane was tied to the session (its rollout is open there): typed", flush=True)
            self.expect("typed `2` → the answer → done", lambda s: s["status"] == "done"
                        and s.get("message") == "Using that color. Done." and not s.get("awaitingInput"), 15)
        else:
            print(f"    Codex: refused — {said.strip()}", flush=True)
            self.report.check("refused with the reason, nothing typed", "serves all its windows" in said
                              and "Which color should I use?" in self.codex.tmux.screen(), said)
            self.codex.tmux.send("Enter")
            self.expect("answered at the terminal → done", lambda s: s["status"] == "done"
                        and not s.get("awaitingInput"), 15)
        self.plan_mode(False)

    def question_from_phone(self):
        """Issue 49: Codex's question, its options as buttons in the push to the phone (a stand-in
        ntfy server and phone, fake_ntfy.py); the phone taps the second ("Blue"), which the board answers in
        Codex's pane as its own option buttons do, and the model gets that answer. The privacy
        switch is off: the buttons say "Option 1", "Option 2", never the options' words."""
        self.report.scenario("question answered from the phone (ntfy, Plan mode)")
        setup = fake_ntfy.PhoneSetup()
        setup.apply(self.serve.state)
        self.restart_serve()
        try:
            self.report.check("serve subscribes to the reply topic, with its token",
                              harness.wait_until(setup.subscribed, 10) is not None, setup.ntfy.subscriptions)
            self.plan_mode(True)
            self.prompt("Pick a color [[scenario:ask]] (phone)")
            asked = self.expect("waiting with the question", lambda s: s["status"] == "waiting"
                                and s.get("awaitingInput") and s.get("question") == "Which color should I use?")
            self.screen_shows("Codex shows the question", r"Which color should I use\?")
            short = ((asked or {}).get("sessionId") or "?")[:8]
            pushed = harness.wait_until(lambda: setup.phone.find(
                lambda m: short in m.get("title", "") + m.get("message", "") and setup.phone.labels(m)), 10)
            self.report.check("the push reaches the phone with the options as buttons, by number",
                              pushed is not None and setup.phone.labels(pushed) == ["Option 1", "Option 2"],
                              setup.ntfy.on("agents"))
            if pushed is None:
                self.codex.tmux.send("Enter")
                return
            setup.keep(pushed, "codex-question")
            # What the phone shows (a token in a button's body is random text, and could spell "Red").
            words = " ".join([pushed.get("title", ""), pushed.get("message", ""), *setup.phone.labels(pushed)])
            self.report.check("text off: neither the question's nor the options' words in the push",
                              not any(w in words for w in ("color", "Red", "Blue", "Recommended")), pushed)
            asked_at = len(self.fake.requests)
            time.sleep(harness.PASTE_WINDOW_S)  # a person's tap is never the instant the dialog is drawn
            tapped = time.monotonic()
            self.report.check("the phone taps Option 2 (ntfy takes it)", setup.phone.tap(pushed, "Option 2") == 200)
            done = self.expect("the answer → working → Stop → done, no question left open",
                               lambda s: s["status"] == "done" and s.get("message") == "Using that color. Done."
                               and not s.get("awaitingInput"), 20)
            # Each request carries the whole history: the new tool output is the one not sent before.
            def outputs(body: dict) -> list[str]:
                return [json.dumps(i) for i in body.get("input") or [] if i.get("type") == "function_call_output"]
            sent = {o for body in self.fake.requests[:asked_at] for o in outputs(body)}
            new = [o for body in self.fake.requests[asked_at:] for o in outputs(body) if o not in sent]
            self.report.check("the model gets Blue as the answer", any("Blue" in o for o in new), new)
            if done:
                print(f"    tap → done on the board {1000 * (time.monotonic() - tapped):.0f} ms", flush=True)
            followed = harness.wait_until(lambda: setup.said("Answered from phone — option 2"), 10)
            self.report.check("a follow-up push says it was answered from the phone (option 2)",
                              followed is not None, setup.ntfy.on("agents"))
        finally:
            setup.restore()
            self.restart_serve()
            self.plan_mode(False)

    def question_tool_esc(self):
        self.report.scenario("question tool (Plan mode, Esc)")
        self.plan_mode(True)
        since = self.prompt("Pick a color [[scenario:ask]] (esc)")
        self.expect("PreToolUse(request_user_input) → waiting", lambda s: s["status"] == "waiting")
        self.screen_shows("Codex shows the question", r"Which color should I use\?")
        self.codex.tmux.send("Escape")
        self.expect("Esc at the question → Interrupt → done + interrupted, no question left open",
                    lambda s: s["status"] == "done" and s.get("interrupted") and not s.get("awaitingInput"))
        self.rollout.save("question-esc", "pressed Esc at Codex's request_user_input question (Plan mode)",
                          self.session_id, since, "[[scenario:ask]] (esc)")
        self.report.check("shift+tab goes back to Default mode", self.plan_mode(False), self.codex.tmux.screen())

    def question_tool_default_mode(self):
        self.report.scenario("question tool rejected (Default mode)")
        self.plan_mode(False)
        since = self.prompt("Pick a color [[scenario:ask]] (default mode)")
        self.screen_shows("Codex ends the turn (the tool is refused outside Plan mode)", r"\(default mode\)[\s\S]*Using that color\. Done\.")
        self.expect("the rejected request_user_input → Stop → done, not waiting",
                    lambda s: s["status"] == "done" and s.get("message") == "Using that color. Done.", 8)
        time.sleep(0.5)
        s = self.latest() or {}
        self.report.check("no question hold is left after Stop",
                          s.get("status") == "done" and not s.get("awaitingInput"), brief(s))
        self.rollout.save("question-default-mode", "asked for a choice in Default mode: the model called "
                          "request_user_input, Codex refused it (Plan mode only; PreToolUse fired, no PostToolUse) "
                          "and the turn went on to Stop", self.session_id, since, "(default mode)")

    def question_plain_text(self):
        self.report.scenario("question as plain text")
        self.prompt("Which color? [[scenario:askplain]]")
        self.expect("a question in the answer text → done with the question as message",
                    lambda s: s["status"] == "done" and "red or blue" in (s.get("message") or ""))

    def esc_during_tool(self):
        self.report.scenario("Esc while a tool runs")
        since = self.prompt("Sleep for a while [[scenario:slowtool]]")
        self.expect("PreToolUse → working", lambda s: s["status"] == "working" and s.get("tool") == "Bash")
        self.screen_shows("the command is running", r"esc to interrupt")
        time.sleep(0.5)
        self.codex.tmux.send("Escape")
        self.expect("Esc → Interrupt → done + interrupted", lambda s: s["status"] == "done" and s.get("interrupted"))
        self.codex.remember_pids()  # the interrupted `sleep` may live on as a background terminal
        self.rollout.save("esc-during-tool", "pressed Esc while a `sleep 20` command ran",
                          self.session_id, since, "[[scenario:slowtool]]")

    def esc_during_stream(self):
        self.report.scenario("Esc while streaming")
        since = self.prompt("Count slowly [[scenario:slowstream]]")
        self.expect("UserPromptSubmit → working", lambda s: s["status"] == "working" and not s.get("interrupted"))
        self.screen_shows("the answer is streaming", r"Counting slowly: 1 2 3")
        self.codex.tmux.send("Escape")
        self.expect("Esc → Interrupt → done + interrupted", lambda s: s["status"] == "done" and s.get("interrupted"))
        self.rollout.save("esc-during-stream", "pressed Esc while the model's answer was streaming",
                          self.session_id, since, "[[scenario:slowstream]]")

    def api_errors(self):
        errors = [("500", "err500", "high demand"), ("429", "err429", "429 Too Many Requests"),
                  ("400", "err400", "fake upstream error 400")]
        for status, marker, text in errors:
            self.report.scenario(f"API error {status}")
            self.ready()
            since = self.prompt(f"Fail please [[scenario:{marker}]]")
            shown = self.screen_shows("Codex ends the turn with the error", "■ .*" + re.escape(text.split()[0]), 20)
            self.expect("PostModelRequest(failed) → done + errored with the error as message",
                        lambda s: s["status"] == "done" and s.get("errored") and text in (s.get("message") or ""),
                        8 if shown else 2)
            self.rollout.save(f"api-error-{status}", f"sent a prompt; the model API answered HTTP {status} "
                              "(no retries configured), which ended the turn", self.session_id, since,
                              f"[[scenario:{marker}]]")

    def subagent(self):
        self.report.scenario("subagent")
        self.prompt("Delegate to a helper [[scenario:subagent]]")
        self.expect("SubagentStart → one running subagent", lambda s: s.get("subagents", 0) >= 1)
        s = self.latest() or {}
        self.report.check("the child's events keep the node working", s.get("status") == "working", brief(s))
        self.expect("SubagentStop, then the parent's Stop → done with no subagent running",
                    lambda s: s["status"] == "done" and s.get("message") == "The child agent finished. Done."
                    and s.get("subagents") == 0, 20)

    def compaction(self):
        self.report.scenario("compaction")
        started = int(time.time() * 1000)
        since = self.prompt("/compact")
        self.screen_shows("Codex compacts the context", r"Context compacted")
        # The turn before had finished: compaction reports (PreCompact … PostCompact) and leaves
        # the session done, never stuck working.
        self.expect("PreCompact … PostCompact → still done",
                    lambda s: s["status"] == "done" and s["lastEventAt"] >= started, 8)
        self.rollout.save("compact", "ran /compact after a finished turn (PreCompact/PostCompact fire, no Stop)",
                          self.session_id, since, '"compacted"')

    def clear_exit_resume(self):
        self.report.scenario("/clear")
        first = self.session_id
        self.prompt("/clear")
        time.sleep(1)
        self.ready()
        self.prompt("Hello again [[scenario:hello]]")
        second = self.expect("the first prompt after /clear → a new session, done",
                             lambda s: s["sessionId"] != first and s["status"] == "done"
                             and s.get("message") == "Hello there. Done.")
        old = self.serve.session(session_id=first) if first else None
        self.report.check("the cleared session stays as it was (Codex ends it only at exit)",
                          old is not None and not old.get("ended"), brief(old))

        self.report.scenario("exit")
        self.ready()
        self.codex.type("/exit")
        gone = harness.wait_until(lambda: self.codex.tmux.pane_pid() is None, 15)
        self.report.check("Codex exits", gone, self.codex.tmux.screen())
        ended = self.expect("SessionEnd → ended", lambda s: s.get("ended"), 10)
        old = self.serve.session(session_id=first) if first else None
        self.report.check("the session cleared earlier is ended at exit too", old and old.get("ended"), brief(old))
        self.report.check("exit keeps the last status (done)", ended and ended.get("status") == "done", brief(ended))

        self.report.scenario("resume")
        if not first or not self.launch("resume", first):
            self.report.check("there is a session to resume", False, first)
            return
        self.prompt("Back again [[scenario:hello]] (resumed)")
        resumed = self.wait(lambda s: s["sessionId"] == first and s["status"] == "done"
                            and not s.get("ended") and s.get("lastEventAt", 0) > (old or {}).get("lastEventAt", 0))
        self.report.check("SessionStart(resume) + the turn revive the first session: done, not ended", resumed,
                          brief(self.serve.session(session_id=first)))
        self.ready()
        self.codex.type("/exit")
        harness.wait_until(lambda: self.codex.tmux.pane_pid() is None, 15)
        self.report.check("/exit ends the resumed session",
                          self.wait(lambda s: s["sessionId"] == first and s.get("ended"), 10),
                          brief(self.serve.session(session_id=first)))


def brief(session: Optional[dict]) -> str:
    if not session:
        return "no session"
    keys = ("sessionId", "title", "status", "kind", "tool", "message", "awaitingInput", "question", "interrupted",
            "errored", "ended", "subagents")
    return json.dumps({k: session.get(k) for k in keys})
