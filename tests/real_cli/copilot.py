"""GitHub Copilot CLI, driven in its interactive screen against a fake OpenAI-compatible server
(fake_openai.py): it runs with no GitHub account in its offline mode with a local provider
(`COPILOT_OFFLINE`, `COPILOT_PROVIDER_BASE_URL`), as `../shared/real-clis/copilot.md` found.

One `copilot` process runs the scenarios as successive prompts in one session; the board's Allow /
Deny run with serve restarted under SWITCHBOARD_DECIDE=copilot; /exit and kill -9 close the run.
Each step waits on the screen (what the user sees) and then asserts Switchboard's view.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable, Optional

import harness
from fake_openai import FakeOpenAI, call, error, slow, text

PACKAGE = "@github/copilot"
VERSION = "1.0.102"

ASK = "Which database should I use?"
SCRIPTS = {
    "hello": [text("Hello!", " How can I help?")],
    "shell": [call("bash", command="touch sb_terminal.txt", description="Create a marker"),
              text("Created the marker.")],
    "board-allow": [call("bash", command="touch sb_allowed.txt", description="Create a marker"),
                    text("Created sb_allowed.txt.")],
    "board-deny": [call("bash", command="touch sb_denied.txt", description="Create a marker"),
                   text("Understood, I did not create the file.")],
    "ask": [call("ask_user", message=ASK, requestedSchema={"properties": {"database": {
        "type": "string", "title": "Database", "enum": ["PostgreSQL", "SQLite"]}}}),
            text("Going with PostgreSQL.")],
    "stream": [slow("Let me think about this carefully ")],
    "e400": [error(400)],
    "reply": [text("Got your reply.")],
}
READY = "Manual Approval"  # the footer while idle ("Working" while busy)


class Run:
    def __init__(self, ctx, report: harness.Report):
        self.ctx, self.report = ctx, report
        self.root = harness.temp_dir("copilot-")
        self.home, self.ws = self.root / "home", self.root / "ws"
        self.tmux: Optional[harness.Tmux] = None
        self.fake: Optional[FakeOpenAI] = None
        self.serve: Optional[harness.Serve] = None
        self.sid: Optional[str] = None
        self.since = 0.0
        self.pids: list[int] = []
        self.socket = f"sb-copilot-{os.getpid()}"

    def prepare(self):
        package = harness.npm_package(PACKAGE, VERSION)
        # The npm loader only spawns the native binary: run it directly.
        self.binary = package.parent / "copilot-linux-x64" / "copilot"
        (self.home / ".copilot").mkdir(parents=True)
        self.ws.mkdir()
        (self.home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(self.ws)]}))
        (self.home / ".copilot" / "settings.json").write_text(json.dumps({"banner": "never", "autoUpdate": False}))
        hooks_file = self.home / ".copilot" / "hooks" / "switchboard.json"
        out = subprocess.run([str(self.ctx.bin), "install", "copilot"], capture_output=True, text=True,
                             env={**os.environ, "HOME": str(self.home)}, timeout=30)
        installed = json.loads(hooks_file.read_text()) if hooks_file.exists() else {}
        held = (installed.get("hooks", {}).get("permissionRequest") or [{}])[0]
        self.report.check("`switchboard install copilot` wrote its own hooks file, each entry naming its event",
                          out.returncode == 0 and installed.get("version") == 1 and held.get("timeoutSec") == 130
                          and held.get("env") == {"SWITCHBOARD_HOOK_EVENT": "permissionRequest"}
                          and "bash" in held, out.stdout + out.stderr)
        again = subprocess.run([str(self.ctx.bin), "install", "copilot"], capture_output=True, text=True,
                               env={**os.environ, "HOME": str(self.home)}, timeout=30)
        self.report.check("installing again changes nothing", json.loads(hooks_file.read_text()) == installed,
                          again.stdout + again.stderr)
        self.fake = FakeOpenAI(SCRIPTS).start()
        self.serve = harness.Serve(self.ctx.workdir)

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
                "COPILOT_PROVIDER_BASE_URL": self.fake.url, "COPILOT_PROVIDER_API_KEY": "fake-key",
                "COPILOT_MODEL": "gpt-4.1", "SWITCHBOARD_HOME": str(self.serve.state),
                # Its first start unpacks ~235 MB: shared between runs.
                "XDG_CACHE_HOME": str(harness.CACHE / "copilot-xdg")}

    def launch(self, *args: str) -> bool:
        if self.tmux:
            self.tmux.kill()
        self.tmux = harness.Tmux(self.socket, [str(self.binary), *args], self.env(), self.ws)
        pid = self.tmux.pane_pid()
        if pid:
            self.pids.append(pid)
        return bool(self.tmux.wait_text(READY, 60))

    def idle(self, timeout: float = 30) -> bool:
        def check():
            screen = self.tmux.screen()
            return READY in screen and "Working" not in screen
        return bool(harness.wait_until(check, timeout, 0.2))

    def prompt(self, text_: str):
        self.since = time.time() * 1000
        self.tmux.type(text_)

    def session(self, sid: Optional[str] = None) -> Optional[dict]:
        return self.serve.session(session_id=sid or self.sid)

    def expect(self, what: str, predicate: Callable[[dict], bool], timeout: float = 20) -> Optional[dict]:
        def check():
            s = self.session()
            return s if s is not None and s["lastEventAt"] >= self.since and predicate(s) else None
        found = harness.wait_until(check, timeout, 0.1)
        detail = f"session is {brief(self.session())}"
        if found is None and self.tmux:
            lines = [line for line in self.tmux.screen().splitlines() if line.strip()]
            detail += "\n      screen: " + "\n      ".join(lines[-12:])
        self.report.check(what, found is not None, detail)
        return found

    def close(self):
        for pid in self.pids:
            for p in [*reversed(descendants(pid)), pid]:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        if self.tmux:
            self.tmux.kill()
        (Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.socket).unlink(missing_ok=True)
        if self.serve:
            self.serve.stop()
        if self.fake:
            self.fake.stop()
        harness.remove_tree(self.root)


def brief(s: Optional[dict]) -> str:
    if s is None:
        return "missing"
    keys = ["status", "message", "command", "awaitingInput", "question", "interrupted", "errored", "ended", "decision"]
    return json.dumps({k: (s.get(k)[:120] if isinstance(s.get(k), str) else s.get(k)) for k in keys})


def descendants(pid: int) -> list[int]:
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


def done_with(message: str) -> Callable[[dict], bool]:
    """Done, and the answer the fake sent is the last turn's (its agentStop does not carry it: the
    card says "Finished its turn")."""
    return lambda s: s["status"] == "done" and s.get("message") == "Finished its turn"


def run(ctx, report: harness.Report):
    (harness.CACHE / "copilot-xdg").mkdir(parents=True, exist_ok=True)
    r = Run(ctx, report)
    started = time.monotonic()
    try:
        report.scenario("setup and start-up")
        r.prepare()
        report.check("copilot starts at its prompt", r.launch(), r.tmux.screen() if r.tmux else "")
        scenarios(r)
    finally:
        r.close()
        print(f"    copilot module took {time.monotonic() - started:.0f} s", flush=True)


def scenarios(r: Run):
    report = r.report

    report.scenario("a plain turn")
    r.prompt("Say hello [[scenario:hello]]")
    # Its sessionStart fires with the first prompt, not at launch.
    s = r.serve.wait_session(lambda s: True, 30, agent="copilot")
    report.check("the session appears with the first prompt", s is not None, "no copilot session")
    if s is None:
        return
    r.sid = s["sessionId"]
    r.expect("Stop → done, message = the answer", done_with("Hello! How can I help?"), 60)
    r.idle()

    report.scenario("usage from its event log")
    got = r.expect("tokens counted from events.jsonl: 100 in and 10 out per answer the fake sent",
                   lambda s: (lambda u: u.get("requests", 0) >= 1 and u.get("outputTokens") == 10 * u["requests"]
                              and u.get("inputTokens", 0) + u.get("cacheReadTokens", 0) == 100 * u["requests"]
                              and u.get("model") == "gpt-4.1")(s.get("usage") or {}), 15)
    print(f"    usage: {(got or {}).get('usage')}", flush=True)

    report.scenario("a tool, approved at the terminal")
    r.prompt("Create a marker [[scenario:shell]]")
    r.tmux.wait_text(r"1\. Yes", 20)
    r.expect("blocked at the permission prompt, with the command", lambda s: s["status"] == "blocked"
             and s.get("command") == "touch sb_terminal.txt")
    time.sleep(0.5)
    r.tmux.send("Enter")
    r.expect("approved → the tool runs → Stop → done", done_with("Created the marker."), 30)
    report.check("the command ran", (r.ws / "sb_terminal.txt").exists())
    r.idle()

    report.scenario("a question")
    r.prompt("Ask me something [[scenario:ask]]")
    r.expect("waiting with the question and its options", lambda s: s["status"] == "waiting"
             and s.get("question") == ASK and len((s.get("questions") or [{}])[0].get("options") or []) == 2)
    r.tmux.wait_text(r"PostgreSQL", 20)
    time.sleep(0.5)
    r.tmux.send("Enter")  # picks the highlighted (first) choice
    r.expect("answered → working → done", done_with("Going with PostgreSQL."), 30)
    r.idle()

    report.scenario("Esc while streaming")
    r.prompt("Think slowly [[scenario:stream]]")
    r.tmux.wait_text(r"think about this", 20)
    r.expect("working while it streams", lambda s: s["status"] == "working")
    r.tmux.send("Escape")
    time.sleep(0.3)
    r.tmux.send("Escape")  # "esc esc interrupt"
    r.expect("no hook fires; its event log's abort settles it: done · interrupted",
             lambda s: s["status"] == "done" and s["interrupted"], 20)
    r.idle()
    r.tmux.send("C-u")

    report.scenario("an API error")
    r.prompt("Fail please [[scenario:e400]]")
    r.expect("errorOccurred → done · errored, saying what failed", lambda s: s["status"] == "done" and s["errored"]
             and "400" in (s.get("message") or ""), 60)
    r.idle(60)

    report.scenario("a reply from the board")
    start = len(r.fake.user_texts)
    code, out = r.serve.reply(r.sid, "Tell me you got this [[scenario:reply]]")
    report.check("`switchboard reply` exits 0 once Copilot took it", code == 0, out)
    # Copilot confirms with userPromptSubmitted, which fires before its model request.
    report.check("the model received the reply's text",
                 harness.wait_until(lambda: r.fake.got("Tell me you got this", start), 20), r.fake.user_texts[start:])
    r.since = 0
    r.expect("the reply's turn ends done", done_with("Got your reply."), 30)
    r.idle()

    board_scenarios(r)

    report.scenario("exit with /exit")
    r.prompt("/exit")
    r.expect("SessionEnd → ended", lambda s: s["ended"], 20)

    report.scenario("agent killed (kill -9)")
    report.check("copilot starts again", r.launch(), r.tmux.screen())
    r.sid = None
    r.prompt("Say hello again [[scenario:hello]]")
    fresh = r.serve.wait_session(lambda s: not s["ended"] and s["status"] == "done", 60, agent="copilot",
                                 since_ms=int(r.since))
    report.check("a new session, its turn done", fresh is not None, brief(fresh))
    if fresh:
        r.sid = fresh["sessionId"]
        pid = (fresh.get("process") or {}).get("pid")
        report.check("the forwarder reported the agent's process", bool(pid), fresh.get("process"))
        if pid:
            os.kill(pid, signal.SIGKILL)
            ended = harness.wait_until(lambda: (lambda s: s if s and s["ended"] and s.get("exited") else None)
                                       (r.session()), 10)
            report.check("no SessionEnd fires; the process watch ends the session", bool(ended), brief(r.session()))


def board_scenarios(r: Run):
    """Copilot's permissionRequest hook held for the board's answer (serve under SWITCHBOARD_DECIDE)."""
    report = r.report
    r.serve.halt()
    r.serve.start({"SWITCHBOARD_DECIDE": "copilot"})
    for verdict in ("allow", "deny"):
        report.scenario(f"permission {'allowed' if verdict == 'allow' else 'denied'} from Switchboard")
        file = "sb_allowed.txt" if verdict == "allow" else "sb_denied.txt"
        r.prompt(f"Create a file from the board [[scenario:board-{verdict}]]")
        held = r.expect("PermissionRequest held → blocked, Allow / Deny on offer",
                        lambda s: s["status"] == "blocked" and s.get("command") == f"touch {file}"
                        and isinstance(s.get("decision"), int), 30)
        if not held:
            continue
        report.check("no dialog in the terminal while the board holds it", "1. Yes" not in r.tmux.screen(),
                     r.tmux.screen()[-600:])
        report.check("the answer is accepted", r.serve.decide(r.sid, held["decision"], verdict) == 204)
        if verdict == "allow":
            r.expect("allowed → the command runs → done", done_with("Created sb_allowed.txt."), 30)
            report.check("the command ran", (r.ws / file).exists())
        else:
            r.expect("denied → Copilot goes on without it → done", done_with("Understood, I did not create the file."), 30)
            report.check("the command did not run", not (r.ws / file).exists())
            report.check("the model was told the user denied it",
                         any("denied this from Switchboard" in t for t in r.fake.tool_results), r.fake.tool_results[-3:])
        r.idle()
