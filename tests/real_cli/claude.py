"""The real Claude Code, driven in tmux against a fake Anthropic API, reporting to a private
`switchboard serve` through the hooks `switchboard install claude` registered.

Expectations are those of docs/model.md §8. Besides Switchboard's own hooks, the project's
settings carry a recorder hook on every event the binary knows (events/claude.txt) that appends
each payload to `events.jsonl`: it tells the test when an event has fired (the late Notification,
PostCompact) and gives every failed check the event sequence behind it.

Where no hook fires (a refused permission, Esc), the status the hooks left is asserted, the
scenario is noted pending, and the lines Claude appended to its transcript are saved to
tests/fixtures/real-transcripts/claude/<scenario>.jsonl for the issue that reads them — when
the file is missing, or always with SWITCHBOARD_SAVE_TRANSCRIPTS=1 (so that a run leaves the
committed fixtures alone).
"""

from __future__ import annotations

import json
import os
import signal
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import fake_ntfy
import harness

PAST = {"allow": "allowed", "deny": "denied"}
from fake_claude import QUESTION, TASK_NOTIFICATION_ANSWER, FakeAnthropic

PACKAGE = "@anthropic-ai/claude-code"
VERSION = "2.1.332"

API_KEY = "sk-ant-api03-switchboard-real-cli-test-0123456789abcdefghij"
READY = r"\? for shortcuts"  # the footer under an idle prompt
EVENTS = Path(__file__).resolve().parent / "events" / "claude.txt"
TRANSCRIPTS = harness.ROOT / "tests" / "fixtures" / "real-transcripts" / "claude"
# What the user did in each saved transcript (the README beside them).
TRANSCRIPT_README = {
    "permission-refused-esc": 'asked "Create a second file please"; Claude called Bash `touch second-file.txt`; '
                              "the user pressed Esc at the permission prompt",
    "permission-refused-no": 'asked "Create a second file please"; Claude called Bash `touch second-file.txt`; '
                             'the user chose "4. No" at the permission prompt',
    "esc-during-tool": 'asked "Run the slow script"; Claude ran `./slow.sh` (sleep 20, allowed without a prompt); '
                       "the user pressed Esc while it ran",
    "esc-during-stream": 'asked "Tell me a long story"; the model streamed slowly; the user pressed Esc mid-stream',
    "compact": 'typed /compact after a few turns (the fake model answered the summary request with "Fake session")',
}


def run(ctx, report):
    package = harness.npm_package(PACKAGE, VERSION)
    claude = package / "bin" / "claude.exe"
    work = ctx.workdir
    home, project = work / "home", work / "ws"
    fake = FakeAnthropic(str(project))
    serve: Optional[harness.Serve] = None
    session: Optional[ClaudeSession] = None
    try:
        prepare_home(home, project, work / "events.jsonl")
        report.scenario("install")
        installed = subprocess.run([str(ctx.bin), "install", "claude"], capture_output=True, text=True,
                                   env={**os.environ, "HOME": str(home), "SWITCHBOARD_HOME": str(work / "sb")})
        settings = json.loads((home / ".claude" / "settings.json").read_text())
        report.check("`switchboard install claude` registers the hook in ~/.claude/settings.json",
                     installed.returncode == 0 and "hook claude" in json.dumps(settings.get("hooks", {})),
                     installed.stdout + installed.stderr)
        serve = harness.Serve(work)
        env = {
            "HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
            "LANG": "C.UTF-8", "SWITCHBOARD_HOME": str(serve.state),
            "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": API_KEY, "DISABLE_TELEMETRY": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_MAX_RETRIES": "1",
        }
        session = ClaudeSession(claude, env, project, work, serve, fake, report)
        scenarios(session, report)
    finally:
        if session is not None:
            session.kill()
        if serve is not None:
            serve.stop()
        fake.stop()


def prepare_home(home: Path, project: Path, recorder: Path):
    """Onboarding done, the key approved, the folder trusted (as tests/real_cli/harness.py sets it up); prompts for
    permissions; a slow script allowed for the Esc-during-a-tool scenario; the recorder hook."""
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark",
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }))
    (project / "notes.txt").write_text("hello\n")
    slow = project / "slow.sh"
    slow.write_text("#!/bin/sh\nsleep 20\necho finished\n")
    slow.chmod(0o755)
    record = f"{{ cat; echo; }} >> {shlex.quote(str(recorder))}"
    events = [e for e in EVENTS.read_text().splitlines() if e and not e.startswith("#")]
    (project / ".claude" / "settings.json").write_text(json.dumps({
        "permissions": {"defaultMode": "default", "allow": ["Bash(./slow.sh)"]},
        "hooks": {event: [{"hooks": [{"type": "command", "command": record}]}] for event in events},
    }, indent=2))


class ClaudeSession:
    """The interactive CLI in tmux, what its hooks recorded, and Switchboard's view of it."""

    def __init__(self, claude: Path, env: dict, project: Path, work: Path, serve: harness.Serve,
                 fake: FakeAnthropic, report):
        self.claude, self.env, self.project, self.work = claude, env, project, work
        self.serve, self.fake, self.report = serve, fake, report
        self.recorder = work / "events.jsonl"
        self.tmux: Optional[harness.Tmux] = None
        self.mark = 0  # recorder events before the current scenario
        self.transcript_mark: Optional[tuple[Path, int]] = None
        self.last_prompt = ""

    # --- the CLI -------------------------------------------------------------------------------
    def start(self, *args: str, parent: Optional[list[str]] = None) -> str:
        """Starts Claude (under `parent`, a command that runs it, when given); returns the session
        id of its SessionStart."""
        self.kill()
        before = self.event_count("SessionStart", since=0)
        command = [*(parent or []), str(self.claude), *args]
        self.tmux = harness.Tmux(f"sb-claude-{os.getpid()}", command, self.env, self.project)
        start = self.wait_event(lambda e: e["hook_event_name"] == "SessionStart", timeout=30, nth=before + 1,
                                since=0)
        if not start:
            raise RuntimeError("Claude did not start:\n" + (self.tmux.screen() if self.tmux else ""))
        if not self.tmux.wait_text(READY, 20):
            raise RuntimeError("no prompt:\n" + self.tmux.screen())
        return start["session_id"]

    def kill(self):
        if self.tmux is not None:
            self.tmux.kill()
            self.tmux = None

    def prompt(self, text: str):
        """Types a prompt once the input is idle (the footer shows the shortcuts hint again)."""
        self.tmux.wait_text(READY, 10)
        self.begin_transcript()
        self.last_prompt = text
        self.tmux.type(text)

    def keys(self, *keys: str):
        self.tmux.send(*keys)

    def history(self) -> str:
        """The pane with its whole scrollback (the TUI draws the conversation on the main screen)."""
        out = subprocess.run(["tmux", "-L", self.tmux.socket, "capture-pane", "-p", "-S", "-", "-t", "main"],
                             capture_output=True, text=True)
        return out.stdout

    def wait_new_text(self, pattern: str, before: int, timeout: float = 10) -> bool:
        """Waits until `pattern` shows more often than `before` times in the pane's history."""
        regex = re.compile(pattern)
        return harness.wait_until(lambda: len(regex.findall(self.history())) > before, timeout, 0.2) is not None

    def count_text(self, pattern: str) -> int:
        return len(re.findall(pattern, self.history()))

    # --- what the hooks recorded ---------------------------------------------------------------
    def events(self) -> list[dict]:
        found = []
        try:
            lines = self.recorder.read_text().splitlines()
        except OSError:
            return found
        for line in lines:
            try:
                found.append(json.loads(line))
            except ValueError:
                pass
        return found

    def begin(self):
        """A scenario starts: later failures show the events from here on."""
        self.mark = len(self.events())

    @staticmethod
    def label(event: dict) -> str:
        name = event.get("hook_event_name", "?")
        detail = event.get("tool_name") or event.get("notification_type") or event.get("source") \
            or event.get("reason") or event.get("error") or ""
        return f"{name}({detail})" if detail else name

    def sequence(self) -> str:
        return " → ".join(self.label(e) for e in self.events()[self.mark:]) or "(no events)"

    def event_count(self, name: str, since: Optional[int] = None) -> int:
        start = self.mark if since is None else since
        return sum(1 for e in self.events()[start:] if e.get("hook_event_name") == name)

    def wait_event(self, match: Callable[[dict], bool], timeout: float = 15, nth: int = 1,
                   since: Optional[int] = None) -> Optional[dict]:
        start = self.mark if since is None else since

        def check():
            hits = [e for e in self.events()[start:] if match(e)]
            return hits[nth - 1] if len(hits) >= nth else None
        return harness.wait_until(check, timeout, 0.1)

    # --- Switchboard ---------------------------------------------------------------------------
    def sb(self, session_id: str) -> Optional[dict]:
        return self.serve.session(session_id=session_id)

    def expect(self, what: str, session_id: str, predicate: Callable[[dict], bool], timeout: float = 15,
               after: Optional[str] = None) -> Optional[dict]:
        """Waits until Switchboard's view of the session satisfies `predicate`; checks it. With
        `after` (an event name, or `Name(detail)` as in `sequence`), first waits until the CLI has
        fired that event in this scenario, so that a state left by the last one cannot pass."""
        if after is not None and not self.wait_event(lambda e: self.label(e) == after or e.get("hook_event_name") == after,
                                                     timeout):
            self.report.check(what, False, f"{after} never fired; events: {self.sequence()}")
            return None

        def check():
            s = self.sb(session_id)
            return s if s is not None and predicate(s) else None
        found = harness.wait_until(check, timeout, 0.15)
        last = found or self.sb(session_id)
        self.report.check(what, found is not None, f"Switchboard shows {brief(last)}; events: {self.sequence()}")
        return found

    def holds(self, what: str, session_id: str, predicate: Callable[[dict], bool], seconds: float = 2.0) -> bool:
        """Checks that the session satisfies `predicate` now and still after `seconds`."""
        deadline = time.monotonic() + seconds
        last = None
        ok = True
        while ok:
            last = self.sb(session_id)
            ok = last is not None and predicate(last)
            if time.monotonic() > deadline:
                break
            time.sleep(0.25)
        self.report.check(what, ok, f"Switchboard shows {brief(last)}; events: {self.sequence()}")
        return ok

    def no_hook(self, session_id: str, hook_left: str, pending: str):
        """After an action that fires no hook (docs/model.md §8): the second source (the
        transcript's interrupt record) must settle the turn as done + interrupted within 2 s."""
        settled = harness.wait_until(
            lambda: (lambda s: s if s and s["status"] == "done" and s["interrupted"] else None)(self.sb(session_id)), 2)
        last = self.sb(session_id)
        self.report.check(f"no hook fires ({pending}); the transcript settles it within 2 s: done + interrupted",
                          bool(settled), f"Switchboard shows {brief(last)} (the hooks left it {hook_left}); "
                          f"events: {self.sequence()}")

    # --- transcripts ---------------------------------------------------------------------------
    def transcript(self) -> Optional[Path]:
        for event in reversed(self.events()):
            if isinstance(event.get("transcript_path"), str):
                return Path(event["transcript_path"])
        return None

    def begin_transcript(self):
        """Marks the transcript's end before a prompt, once Claude has finished writing the last
        turn's records (they trail the Stop hook by a few dozen ms)."""
        path = self.transcript()
        if path is None or not path.exists():
            self.transcript_mark = (path, 0)
            return
        deadline = time.monotonic() + 3
        size = path.stat().st_size
        while time.monotonic() < deadline:
            time.sleep(0.4)
            size, before = path.stat().st_size, size
            if size == before:
                break
        self.transcript_mark = (path, len(path.read_text().splitlines()))

    def save_transcript(self, name: str):
        """The lines Claude appended since the last prompt, with the temp paths made /home/dev."""
        target = TRANSCRIPTS / f"{name}.jsonl"
        if self.transcript_mark is None or (target.exists() and os.environ.get("SWITCHBOARD_SAVE_TRANSCRIPTS") != "1"):
            return
        path, count = self.transcript_mark
        path = path or self.transcript()
        if path is None or not path.exists():
            self.report.check("the transcript exists", False, str(path))
            return
        time.sleep(0.5)  # Claude writes the interrupt record right after the key
        lines = path.read_text().splitlines()[count:]
        # Start at the prompt (and the file snapshot Claude writes just before it): records of
        # the last turn can trail its Stop.
        for index, line in enumerate(lines):
            record = json.loads(line)
            if record.get("type") == "user" and (record.get("message") or {}).get("content") == self.last_prompt:
                before = json.loads(lines[index - 1]) if index else {}
                lines = lines[index - 1 if before.get("type") == "file-history-snapshot" else index:]
                break
        TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(anonymize(line, self.work) + "\n" for line in lines))
        write_readme()


def process_state(pid: int) -> str:
    """The state letter of `/proc/<pid>/stat` ("Z" for a zombie), or "gone"."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return text[text.rfind(")") + 2:].split(" ", 1)[0]


def brief(s: Optional[dict]) -> str:
    if s is None:
        return "no session"
    keys = ["status", "tool", "message", "awaitingInput", "question", "interrupted", "errored", "ended", "subagents"]
    return json.dumps({k: s.get(k) for k in keys})


def anonymize(line: str, work: Path) -> str:
    """Paths under the run's folder become /home/dev (HOME = /home/dev/home, project /home/dev/ws),
    also in Claude's dash-mangled form (`-home-dev-ws`)."""
    mangled = re.sub(r"[^A-Za-z0-9]", "-", str(work))
    return line.replace(str(work), "/home/dev").replace(mangled, "-home-dev")


def write_readme():
    lines = [f"What the user did in each file (Claude Code {VERSION}; the lines the CLI appended to its "
             "transcript from the prompt on, paths rewritten to /home/dev; written by tests/real_cli/claude.py):", ""]
    lines += [f"- `{name}.jsonl`: {what}" for name, what in TRANSCRIPT_README.items()
              if (TRANSCRIPTS / f"{name}.jsonl").exists()]
    (TRANSCRIPTS / "README.md").write_text("\n".join(lines) + "\n")


# --- the scenarios ---------------------------------------------------------------------------------

def is_done(message: Optional[str] = None):
    return lambda s: s["status"] == "done" and (message is None or s.get("message") == message)


INTERRUPTED = r"Interrupted · What should Claude do instead\?"


PROMPT_SHOWN = r"Do you want to proceed\?"


def board_scenarios(c: ClaudeSession, report, first: str, blocked_on):
    """Issue 14: Claude's PermissionRequest hook held for an answer from Switchboard (serve started
    with SWITCHBOARD_DECIDE=claude), answered from the board, at the terminal, and with no app."""
    c.serve.halt()
    # Issue 25: push to a local receiver — the webhook without the session's words, ntfy with them.
    receiver = PushReceiver()
    reach = {"webhook": {"enabled": True, "url": f"{receiver.url}/webhook", "includeText": False},
             "ntfy": {"enabled": True, "url": f"{receiver.url}/ntfy/agents", "includeText": True}}
    (c.serve.state / "settings.json").write_text(json.dumps({"reach": reach}))
    c.serve.start({"SWITCHBOARD_DECIDE": "claude"})
    offered = lambda command: lambda s: blocked_on(command)(s) and isinstance(s.get("decision"), int)

    for verdict in ("allow", "deny"):
        report.scenario(f"permission {PAST[verdict]} from Switchboard")
        c.begin()
        file = "allowed-from-board.txt" if verdict == "allow" else "denied-from-board.txt"
        c.prompt(f"Create a file from the board [[scenario:board-{verdict}]]")
        held = c.expect("PermissionRequest held → blocked, Allow / Deny on offer", first, offered(f"touch {file}"),
                        after="PermissionRequest(Bash)")
        # What the terminal user sees meanwhile (measured, and said in the README).
        shown = c.tmux.wait_text(PROMPT_SHOWN, 3) is not None
        print(f"    while the hook is held, Claude's own prompt is {'shown' if shown else 'NOT shown'}", flush=True)
        if not held:
            continue
        if verdict == "allow":
            push_checks(report, receiver, held, f"touch {file}")
        report.check("the answer is accepted", c.serve.decide(first, held["decision"], verdict) == 204)
        if verdict == "allow":
            c.expect("allowed → the command runs → done", first, is_done("Created allowed-from-board.txt."), 20,
                     after="Stop")
            report.check("the command ran", (c.project / file).exists())
        else:
            c.expect("denied → Claude goes on without it → done", first,
                     is_done("Understood, I did not create the file."), 20, after="Stop")
            report.check("the command did not run", not (c.project / file).exists())
            report.check("no PostToolUse for the refused tool", "PostToolUse" not in c.sequence(), c.sequence())

    phone_scenario(c, report, first, offered)
    remote_board_scenario(c, report, first, offered)
    remote_phone_scenario(c, report, first, offered)
    hook_answer_scenarios(c, report, first)
    background_scenario(c, report)

    report.scenario("answered at the terminal while held")
    c.begin()
    c.prompt("Create a file, answer in the terminal [[scenario:board-terminal]]")
    held = c.expect("PermissionRequest held → Allow / Deny on offer", first, offered("touch answered-in-terminal.txt"),
                    after="PermissionRequest(Bash)")
    started = time.monotonic()
    prompt = c.tmux.wait_text(PROMPT_SHOWN, 40)
    report.check("Claude shows its own prompt while the hook holds (the terminal user is never stuck)",
                 prompt is not None and time.monotonic() - started < 5,
                 f"after {time.monotonic() - started:.1f} s: {c.tmux.screen()[-600:]}")
    time.sleep(0.5)  # a key pressed the instant the prompt is drawn can be lost
    c.keys("Enter")
    if not c.wait_event(lambda e: e.get("hook_event_name") == "PostToolUse", 3):
        print(f"    Enter not taken yet; screen:\n{c.tmux.screen()[-800:]}", flush=True)
        c.keys("Enter")
    c.expect("the terminal's answer wins: working, nothing left on offer", first,
             lambda s: s["status"] in ("working", "done") and s.get("decision") is None, 10)
    c.expect("then Stop → done", first, is_done("Created answered-in-terminal.txt."), 20, after="Stop")
    report.check("the command ran", (c.project / "answered-in-terminal.txt").exists())
    if held:
        report.check("a late answer from the board is refused", c.serve.decide(first, held["decision"], "deny") == 409)

    report.scenario("Switchboard closed: the prompt is not held")
    c.serve.halt()
    c.begin()
    started = time.monotonic()
    c.prompt("Create a file with the app closed [[scenario:board-closed]]")
    c.wait_event(lambda e: e.get("hook_event_name") == "PermissionRequest", 20)
    prompt = c.tmux.wait_text(PROMPT_SHOWN, 10)
    waited = time.monotonic() - started
    report.check("Claude asks in its terminal at once", prompt is not None and waited < 8,
                 f"{waited:.1f} s; events: {c.sequence()}; screen:\n{c.tmux.screen()[-800:]}")
    time.sleep(0.5)
    c.keys("Enter")
    report.check("the command ran", harness.wait_until(lambda: (c.project / "app-closed.txt").exists(), 10) is not None)
    c.wait_event(lambda e: e.get("hook_event_name") == "Stop", 20)
    c.serve.start()


class PushReceiver:
    """A local HTTP server that keeps every POST: (path, body, when received in Unix ms)."""

    def __init__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        import threading
        self.posts: list[tuple[str, str, float]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
                receiver.posts.append((self.path, body, time.time() * 1000))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def push_checks(report, receiver: PushReceiver, held: dict, command: str):
    """Issue 25: a session that needs you is pushed within 1 s, with its words only where allowed."""
    report.scenario("push: webhook and ntfy to a local receiver")
    since = held.get("statusChangedAt") or held["lastEventAt"]
    got = lambda path: next(((body, at) for p, body, at in list(receiver.posts) if p.startswith(path) and at >= since - 50
                             and ("blocked" in body or "permission" in body.lower())), None)
    hook = harness.wait_until(lambda: got("/webhook"), 10)
    ntfy = harness.wait_until(lambda: got("/ntfy/agents"), 10)
    posts = [(p, b[:160]) for p, b, _ in receiver.posts]
    report.check("the webhook gets the blocked session within 1 s of the hook",
                 hook is not None and hook[1] - since <= 1000, f"{hook and hook[1] - since} ms; {posts}")
    report.check("privacy switch off: no command, no folder in the webhook's body",
                 hook is not None and command not in hook[0] and "/ws" not in hook[0], posts)
    report.check("privacy switch on: ntfy's message carries the command", ntfy is not None and command in ntfy[0], posts)
    if hook and ntfy:
        print(f"    hook → push received: webhook {hook[1] - since:.0f} ms, ntfy {ntfy[1] - since:.0f} ms", flush=True)


def hook_answer_scenarios(c: ClaudeSession, report, first: str):
    """Issue 24, Claude's own mechanism: with its PermissionRequest held for the board, the
    AskUserQuestion question is held too, and answered through the hook (`updatedInput.answers`):
    by option and in words, nothing typed into any terminal."""
    sb = str(harness.switchboard_bin())
    for name, said, expected in [("an option", "2", "Blue"), ("in words", "Teal, like the logo", "Teal, like the logo")]:
        report.scenario(f"question answered {name} through Claude's hook (held)")
        c.begin()
        c.prompt(f"Ask me about the color, answered {name} [[scenario:ask]]")
        held = c.expect("the question held for the board: waiting, an answer on offer", first,
                        lambda s: s["status"] == "waiting" and s.get("question") == QUESTION
                        and isinstance(s.get("decision"), int), after="PermissionRequest(AskUserQuestion)")
        drawn = c.tmux.wait_text(r"Enter to select", 5) is not None
        print(f"    while the question is held, Claude's own dialog is {'drawn' if drawn else 'NOT drawn'}", flush=True)
        results_before = len(c.fake.tool_results)
        started = time.monotonic()
        answered = subprocess.run([sb, "answer", first, said], env=c.serve.env, capture_output=True, text=True,
                                  timeout=20)
        report.check("`switchboard answer` goes through the hook (nothing typed)",
                     held is not None and answered.returncode == 0 and "through" in answered.stdout,
                     answered.stdout + answered.stderr)
        got = harness.wait_until(lambda: next((r for r in c.fake.tool_results[results_before:] if expected in r), None), 15)
        took = time.monotonic() - started
        report.check(f"the model gets the answer ({expected}) in the tool result", got is not None,
                     f"{c.fake.tool_results[results_before:]}; screen:\n{c.tmux.screen()[-600:]}")
        print(f"    answer through the hook → the model's tool result: {took:.2f} s", flush=True)
        c.expect("then working → done", first, is_done("Great, I will make the button that color."), 20, after="Stop")
        report.check("Claude's dialog is gone from its screen", "Enter to select" not in c.tmux.screen(),
                     c.tmux.screen()[-800:])


def phone_scenario(c: ClaudeSession, report, first: str, offered):
    """Issue 49: a permission held for the board, answered by a tap on the phone's push. serve
    pushes to a stand-in ntfy server (fake_ntfy.py) with the session's words off, and subscribes
    to the reply topic; the stand-in phone taps Allow, which the phone itself POSTs to that topic.
    Then the same (spent) button again: refused, nothing runs."""
    report.scenario("permission allowed from the phone (ntfy)")
    setup = fake_ntfy.PhoneSetup()
    ntfy, phone, replies, token = setup.ntfy, setup.phone, setup.replies, setup.token
    c.serve.halt()
    setup.apply(c.serve.state)
    c.serve.start({"SWITCHBOARD_DECIDE": "claude"})
    command = "touch allowed-from-phone.txt"
    try:
        report.check("serve subscribes to the reply topic, with its token",
                     harness.wait_until(setup.subscribed, 10) is not None, ntfy.subscriptions)
        c.begin()
        c.prompt("Create a file from the phone [[scenario:board-phone]]")
        held = c.expect("PermissionRequest held → blocked, Allow / Deny on offer", first, offered(command),
                        after="PermissionRequest(Bash)")
        if not held:
            return
        with_buttons = lambda m: first[:8] in m.get("title", "") + m.get("message", "") and phone.labels(m)
        pushed = harness.wait_until(lambda: phone.find(with_buttons), 10)
        report.check("the push reaches the phone with Allow and Deny",
                     pushed is not None and phone.labels(pushed) == ["Allow", "Deny"], ntfy.on("agents"))
        if not pushed:
            return
        setup.keep(pushed, "claude-permission")
        text = json.dumps(pushed)
        report.check("text off: no command, no folder in the push (ids and tokens only)",
                     "touch" not in text and "allowed-from-phone" not in text and "/ws" not in pushed["message"], text)

        def fit(action: dict) -> bool:
            try:
                fields = sorted(json.loads(action.get("body") or "{}"))
            except ValueError:
                return False
            return (action.get("action") == "http" and action.get("method") == "POST"
                    and action.get("url") == ntfy.url(replies) and action.get("clear") is True
                    and action.get("headers", {}).get("Authorization") == f"Bearer {token}"
                    and fields == ["answer", "request", "token", "v"])
        report.check("each button POSTs {request, answer, token} to the reply topic with the bearer token",
                     all(fit(a) for a in pushed["actions"]), pushed["actions"])

        results = len(c.fake.tool_results)
        tapped = time.monotonic()
        report.check("the phone taps Allow (ntfy takes it)", phone.tap(pushed, "Allow") == 200)
        ran = c.wait_event(lambda e: e.get("hook_event_name") == "PostToolUse", 20)
        unblocked = time.monotonic()
        report.check("the hold is decided: the tool runs", ran is not None, c.sequence())
        done = c.expect("allowed from the phone → the command runs → done", first,
                        is_done("Created allowed-from-phone.txt."), 20, after="Stop")
        finished = time.monotonic()
        report.check("the command ran", (c.project / "allowed-from-phone.txt").exists())
        report.check("the fake model received the tool result", len(c.fake.tool_results) == results + 1,
                     c.fake.tool_results[results:])
        allowed = harness.wait_until(lambda: setup.said("Allowed from phone"), 10)
        report.check("a follow-up push says it was allowed from the phone, without the command",
                     allowed is not None and "touch" not in json.dumps(allowed), ntfy.on("agents"))
        if ran and done:
            print(f"    tap → tool ran (PostToolUse) {1000 * (unblocked - tapped):.0f} ms, "
                  f"tap → done on the board {1000 * (finished - tapped):.0f} ms", flush=True)

        events, results = len(c.events()), len(c.fake.tool_results)
        report.check("the spent Allow tapped again: ntfy takes it", phone.tap(pushed, "Allow") == 200)
        refused = harness.wait_until(lambda: setup.said("Already used"), 10)
        report.check("refused: a follow-up says the button was already used", refused is not None, ntfy.on("agents"))
        report.check("nothing else runs: no event, no model call, still done",
                     len(c.events()) == events and len(c.fake.tool_results) == results
                     and is_done("Created allowed-from-phone.txt.")(c.sb(first) or {"status": None}),
                     f"events: {c.sequence()}; Switchboard shows {brief(c.sb(first))}")
    finally:
        c.serve.halt()
        setup.restore()
        c.serve.start({"SWITCHBOARD_DECIDE": "claude"})


def background_scenario(c: ClaudeSession, report):
    """Issue 48: a session Claude runs in the background (`claude --bg`), with no terminal of its
    own. Its hooks fire as a terminal session's do; the board marks it as Claude's own listing
    (`claude agents --json`) has it, with the command that opens it (`claude attach <id>`). Its
    permission is held and allowed from the board; a reply, which would be typed into a terminal
    it does not have, is refused with that command, and nothing is sent."""
    report.scenario("a background session (`claude --bg`): marked, allowed from the board, reply refused")
    c.begin()
    started = subprocess.run([str(c.claude), "--bg", "Create a file in the background [[scenario:board-bg]]"],
                             env=c.env, cwd=c.project, capture_output=True, text=True, timeout=60)
    short = re.search(r"\b([0-9a-f]{8})\b", started.stdout + started.stderr)
    report.check("`claude --bg` starts it and prints its id", started.returncode == 0 and short is not None,
                 started.stdout + started.stderr)
    if short is None:
        return
    attach = f"claude attach {short.group(1)}"
    try:
        def held():
            return next((s for s in c.serve.sessions() if s["agent"] == "claude" and s["sessionId"].startswith(short.group(1))
                         and s["status"] == "blocked" and isinstance(s.get("decision"), int)
                         and s.get("background") == attach), None)
        found = harness.wait_until(held, 40, 0.2)
        report.check(f"on the board, blocked with Allow / Deny on offer, marked background: `{attach}`",
                     found is not None, [(s["sessionId"][:8], s["status"], s.get("background")) for s in c.serve.sessions()])
        if found is None:
            return
        sid = found["sessionId"]
        report.check("the answer is accepted", c.serve.decide(sid, found["decision"], "allow") == 204)
        done = harness.wait_until(lambda: (lambda s: s if s and is_done("Created allowed-in-the-background.txt.")(s)
                                           else None)(c.serve.session(session_id=sid)), 30)
        report.check("allowed → the command runs → done, still marked", done is not None
                     and done.get("background") == attach, brief(c.serve.session(session_id=sid)))
        report.check("the command ran", (c.project / "allowed-in-the-background.txt").exists())
        code, said = c.serve.reply(sid, "Are you there?")
        report.check("done, a reply is refused, with the command that opens it", code != 0 and attach in said, said)
        transcript = Path(done.get("transcriptPath") or "") if done else None
        report.check("the refused reply is nowhere in its transcript", transcript is not None and transcript.is_file()
                     and "Are you there?" not in transcript.read_text(), transcript)
    finally:
        subprocess.run([str(c.claude), "stop", short.group(1)], env=c.env, cwd=c.project, capture_output=True,
                       timeout=30)
        c.wait_event(lambda e: e["hook_event_name"] == "SessionEnd" and e["session_id"].startswith(short.group(1)), 15)
        pane = c.tmux.pane_pid() if c.tmux else None
        end_processes_of(c.env["HOME"], keep={pane, *harness.descendants(pane)} if pane else set())


def end_processes_of(home: str, keep: set):
    """Ends what Claude's background mode left running under `home` (its supervisor and
    workers): every process whose HOME it is, but those in `keep` (the Claude in tmux)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid() or int(entry.name) in keep:
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"HOME={home}".encode() in environ:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def remote_board_scenario(c: ClaudeSession, report, first: str, offered):
    """Issue 23: this machine followed by another board (a second instance, its "desktop") as the
    remote `box`, through a pipe (`env … sh -s`; the SSH transport has its own test): the session
    goes working → blocked → Allow from that board → done there, with its host."""
    report.scenario("permission allowed from a board following this machine (remote)")
    desk = harness.Serve(c.work / "desk")
    try:
        reach = ["env", f"HOME={c.env['HOME']}", f"SWITCHBOARD_HOME={c.serve.state}",
                 f"PATH={harness.switchboard_bin().parent}:/usr/bin:/bin"]
        added = subprocess.run([str(harness.switchboard_bin()), "remote", "add", "box", "--", *reach],
                               env=desk.env, capture_output=True, text=True, timeout=10)
        report.check("`switchboard remote add box -- …`", added.returncode == 0, added.stdout + added.stderr)
        remote_id = f"box:{first}"

        def there(predicate):
            def check():
                s = next((s for s in desk.sessions() if s["sessionId"] == remote_id), None)
                return s if s is not None and predicate(s) else None
            return check

        linked = harness.wait_until(there(lambda s: s.get("host") == "box"), 30)
        report.check("the session is on the following board, host `box`", linked is not None,
                     [s["sessionId"] for s in desk.sessions()])
        c.begin()
        c.prompt("Create a file from another board [[scenario:board-remote]]")
        c.wait_event(lambda e: e.get("hook_event_name") == "UserPromptSubmit", 15)
        held = harness.wait_until(there(offered("touch allowed-from-afar.txt")), 30)
        report.check("blocked there, Allow / Deny on offer", held is not None,
                     brief(next((s for s in desk.sessions() if s["sessionId"] == remote_id), None)))
        if held is None:
            return
        report.check("Allow from that board is accepted", desk.decide(remote_id, held["decision"], "allow") == 204)
        done = harness.wait_until(there(is_done("Created allowed-from-afar.txt.")), 30)
        report.check("→ the command runs → done there", done is not None,
                     brief(next((s for s in desk.sessions() if s["sessionId"] == remote_id), None)))
        report.check("the command ran on this machine", (c.project / "allowed-from-afar.txt").exists())
        report.check("the following board says where it runs", done is not None and done.get("host") == "box")
        listed = subprocess.run([str(harness.switchboard_bin()), "remote", "list", "--json"], env=desk.env,
                                capture_output=True, text=True, timeout=10)
        state = (json.loads(listed.stdout or "[]") or [{}])[0]
        report.check("`remote list` says connected, with its sessions", state.get("state") == "connected"
                     and state.get("sessions", 0) >= 1, listed.stdout)
    finally:
        desk.stop()


def remote_phone_scenario(c: ClaudeSession, report, first: str, offered):
    """Issue 49: a session on a remote box, answered from the phone. The desk (a second instance
    following this machine as `box`, `harness.Desk`) pushes to a stand-in ntfy server; the phone's
    tap on Allow reaches the desk through its reply topic, and the desk sends the answer down the
    link to the box, where Claude's hold is decided and the command runs."""
    report.scenario("a remote box's permission allowed from the phone (ntfy)")
    setup = fake_ntfy.PhoneSetup()
    desk = harness.Desk(c.work / "desk-phone", c.serve, c.env["HOME"])
    try:
        report.check("`switchboard remote add box -- …`", desk.added.returncode == 0, desk.added.stdout + desk.added.stderr)
        desk.serve.halt()
        setup.apply(desk.serve.state)
        desk.serve.start()
        report.check("the desk subscribes to the reply topic", harness.wait_until(setup.subscribed, 10) is not None,
                     setup.ntfy.subscriptions)
        linked = desk.wait(first, lambda s: s.get("host") == "box", 30)
        report.check("the session is on the desk's board, host `box`", linked is not None,
                     [s["sessionId"] for s in desk.serve.sessions()])
        c.begin()
        c.prompt("Create a file from the phone, far away [[scenario:phone-remote]]")
        held = desk.wait(first, offered("touch allowed-from-afar-by-phone.txt"), 30)
        report.check("blocked on the desk, Allow / Deny on offer", held is not None, brief(desk.session(first)))
        if held is None:
            return
        with_buttons = lambda m: first[:8] in m.get("title", "") + m.get("message", "") and setup.phone.labels(m)
        pushed = harness.wait_until(lambda: setup.phone.find(with_buttons), 10)
        report.check("the desk's push reaches the phone with Allow and Deny, naming the box",
                     pushed is not None and setup.phone.labels(pushed) == ["Allow", "Deny"]
                     and "box" in pushed.get("title", "") + pushed.get("message", ""), setup.ntfy.on("agents"))
        if pushed is None:
            return
        tapped = time.monotonic()
        report.check("the phone taps Allow (ntfy takes it)", setup.phone.tap(pushed, "Allow") == 200)
        done = desk.wait(first, is_done("Created allowed-from-afar-by-phone.txt."), 30)
        report.check("→ the command runs on the box → done on the desk", done is not None, brief(desk.session(first)))
        report.check("the command ran on this machine (the box)",
                     (c.project / "allowed-from-afar-by-phone.txt").exists())
        if done:
            print(f"    tap → done on the desk's board {1000 * (time.monotonic() - tapped):.0f} ms", flush=True)
        report.check("a follow-up push says it was allowed from the phone",
                     harness.wait_until(lambda: setup.said("Allowed from phone"), 10) is not None, setup.ntfy.on("agents"))
    finally:
        desk.stop()
        setup.restore()


def twin_panes_scenario(c: ClaudeSession, report, first: str):
    """Issue 48: two more Claude Codes beside the first, in the same folder — one in a second
    window of its tmux session, one in a tmux session of its own on the same server. A reply from
    the board to each becomes that session's next prompt, in its own pane, never a twin's; and
    each peek shows its own screen."""
    report.scenario("twin panes: each reply and each peek reach the session's own pane")
    twins: dict[str, str] = {}  # session id → pane
    try:
        for label, tmux_session in (("window", None), ("session", "twin")):
            since = len(c.events())
            pane = c.tmux.open([str(c.claude)], c.env, c.project, session=tmux_session)
            start = c.wait_event(lambda e: e["hook_event_name"] == "SessionStart", 30, since=since)
            ready = harness.wait_until(lambda: re.search(READY, c.tmux.screen_of(pane)), 20)
            report.check(f"a twin Claude in a second {label} starts, idle", start is not None and ready is not None,
                         c.tmux.screen_of(pane)[-600:])
            if start is None:
                return
            twins[start["session_id"]] = pane
        marks = {first: "twin-one", **{sid: f"twin-{n}" for n, sid in zip(("two", "three"), twins)}}
        for sid, mark in marks.items():
            code, said = c.serve.reply(sid, f"Say hello [[scenario:hello]] {mark}")
            report.check(f"`switchboard reply` to {mark} is taken by its CLI", code == 0, said)
        for sid, mark in marks.items():
            prompts = [e.get("prompt", "") for e in c.events() if e.get("hook_event_name") == "UserPromptSubmit"
                       and e.get("session_id") == sid and "twin-" in e.get("prompt", "")]
            report.check(f"{mark}'s prompt reached its own session, and only its own", prompts
                         and all(mark in p for p in prompts), prompts)
            done = harness.wait_until(lambda: (lambda s: s if s and is_done("Hello! Nothing to do.")(s) else None)(
                c.sb(sid)), 30)
            report.check(f"{mark} → working → done", done is not None, brief(c.sb(sid)))
            peeked = subprocess.run([str(harness.switchboard_bin()), "peek", sid, "--json"], env=c.serve.env,
                                    capture_output=True, text=True, timeout=20)
            screen = (json.loads(peeked.stdout or "{}").get("screen") or "") if peeked.returncode == 0 else ""
            others = [m for m in marks.values() if m != mark]
            report.check(f"peek at {mark} shows its own screen", mark in screen
                         and not any(o in screen for o in others), screen[-600:] or peeked.stderr)
    finally:
        for pane in twins.values():
            c.tmux.close(pane)


def new_agent_scenario(c: ClaudeSession, report):
    """Issue 24: `switchboard new claude -- PROMPT` starts real Claude Code in Switchboard's own
    tmux server (a private one here: SWITCHBOARD_TMUX), and its node goes working → done."""
    report.scenario("`switchboard new claude` starts an agent in Switchboard's tmux")
    bindir = c.work / "bin"
    bindir.mkdir(exist_ok=True)
    if not (bindir / "claude").exists():
        (bindir / "claude").symlink_to(c.claude)
    server = f"sb-new-{os.getpid()}"
    env = {**c.env, "PATH": f"{bindir}:{c.env['PATH']}", "SWITCHBOARD_TMUX": server}
    known = c.serve.ids()
    try:
        started = subprocess.run([str(harness.switchboard_bin()), "new", "claude", "--cwd", str(c.project), "--",
                                  "Say hello [[scenario:hello]]"], env=env, capture_output=True, text=True, timeout=30)
        report.check("`switchboard new claude -- PROMPT` starts it", started.returncode == 0
                     and "tmux pane" in started.stdout, started.stdout + started.stderr)
        new = c.serve.wait_new(known, lambda s: s.get("agent") == "claude")
        report.check("its node appears", new is not None, [s["sessionId"] for s in c.serve.sessions()])
        if new is None:
            return
        sid = new["sessionId"]
        done = harness.wait_until(lambda: (lambda s: s if s and s["status"] == "done"
                                           and s.get("message") == "Hello! Nothing to do." else None)(
                                               c.serve.session(sid)), 60)
        report.check("its first prompt runs: working → done", done is not None, brief(c.serve.session(sid)))
        socket = (((done or new).get("process") or {}).get("tmuxSocket")) or ""
        report.check("it runs in Switchboard's own tmux server", server in socket, socket)
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)
        # Its last hooks (SessionEnd) land before the next scenario counts events.
        harness.wait_until(lambda: (c.serve.session(sid) or {}).get("ended"), 15)
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)


def usage_scenario(c: ClaudeSession, report, first: str):
    """Issue 25: the board's tokens for the session are what the fake server sent with the
    responses of its conversation (requests with tools; the CLI's side calls have none and are
    not in the transcript), and the context is the last response's."""
    report.scenario("usage: tokens and context from the transcript")
    with c.fake.lock:
        sent = [(i, o) for _, tools, i, o in c.fake.usage if tools]
        side = [label for label, tools, _, _ in c.fake.usage if not tools]
    expected = {"inputTokens": sum(i for i, _ in sent), "outputTokens": sum(o for _, o in sent),
                "requests": len(sent), "contextTokens": sum(sent[-1]) if sent else None}
    matches = lambda s: all((s.get("usage") or {}).get(key) == value for key, value in expected.items())
    got = c.expect(f"tokens equal the {len(sent)} responses sent ({len(side)} side calls left out)",
                   first, matches, 10)
    usage = (got or c.sb(first) or {}).get("usage") or {}
    window = usage.get("contextWindow")
    report.check("context % follows: the last response's tokens of the model's window",
                 window == 200_000 and usage.get("contextTokens") == expected["contextTokens"],
                 f"{usage}; expected {expected}")
    report.check("an estimated cost", isinstance(usage.get("costMicros"), int) and usage["costMicros"] > 0, usage)
    print(f"    usage: {usage}", flush=True)

    # The footprint: Claude's process tree's memory as `ps` sees it, within 10 %. A Node process's
    # memory moves between samples, so `ps` is read every 0.1 s while the next footprint sample
    # (one every 5 s) is awaited, and that one sample is held against the `ps` readings taken
    # around the moment it appeared (the last three): one comparison, made at the same moment.
    footprint = lambda: (c.sb(first) or {}).get("footprint")
    before = harness.wait_until(footprint, 12)
    pid = ((c.sb(first) or {}).get("process") or {}).get("pid")
    readings: list[int] = []

    def fresh_sample():
        if pid:
            readings.append(ps_tree_rss_kib(pid))
        now = footprint()
        return now if now and now != before else None
    shown = harness.wait_until(fresh_sample, 12, 0.1) if before and pid else None
    ours_kib = shown["rssBytes"] // 1024 if shown else None
    around = readings[-3:]
    ok = ours_kib is not None and any(ps and abs(ours_kib - ps) <= 0.10 * ps for ps in around)
    compared = (ours_kib, around, shown and shown["processes"], shown and shown["cpuTenths"])
    report.check("the agent's memory (its whole tree) is what ps says, within 10 %", ok,
                 f"(ours KiB, ps KiB around it, processes, cpu ‰) {compared}")
    print(f"    footprint vs ps: {compared}", flush=True)


def ps_tree_rss_kib(pid: int) -> int:
    """`ps`'s resident memory (KiB) of `pid` and every process under it."""
    rows = []
    for line in subprocess.run(["ps", "-e", "-o", "pid=,ppid=,rss="], capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3:
            rows.append(tuple(int(f) for f in fields))
    tree, i = [pid], 0
    while i < len(tree):
        tree.extend(p for p, pp, _ in rows if pp == tree[i])
        i += 1
    return sum(rss for p, _, rss in rows if p in tree)


def scenarios(c: ClaudeSession, report):
    report.scenario("startup")
    c.begin()
    first = c.start()
    c.expect("SessionStart makes a node with no status yet", first,
             lambda s: s["status"] is None and not s["ended"], 10)

    report.scenario("read-only turn")
    c.begin()
    c.prompt("Please read notes.txt [[scenario:read]]")
    c.expect("Stop → done with the last assistant message", first,
             is_done("The notes file says hello. All done."), after="Stop")

    usage_scenario(c, report, first)
    new_agent_scenario(c, report)
    twin_panes_scenario(c, report, first)

    report.scenario("permission approved")
    c.begin()
    c.prompt("Create a file please [[scenario:perm]]")
    blocked_on = lambda command: lambda s: s["status"] == "blocked" and command in (s.get("message") or "")
    c.expect("PermissionRequest(Bash) → blocked with the command", first,
             blocked_on("touch created-by-claude.txt"), after="PermissionRequest(Bash)")
    if c.wait_event(lambda e: e.get("notification_type") == "permission_prompt", 12):
        c.holds("the later Notification(permission_prompt) keeps blocked and the command", first,
                blocked_on("touch created-by-claude.txt"), 1.0)
    else:
        report.check("Notification(permission_prompt) fires while the prompt is open", False, c.sequence())
    c.keys("Enter")
    c.expect("approval → PostToolUse → working", first, lambda s: s["status"] == "working", 10)
    c.expect("then Stop → done", first, is_done("Created the file created-by-claude.txt."), after="Stop")
    report.check("the command ran", (c.project / "created-by-claude.txt").exists())

    for name, key, transcript in [("permission refused with Esc", "Escape", "permission-refused-esc"),
                                  ("permission refused with No", "4", "permission-refused-no")]:
        report.scenario(name)
        c.begin()
        interrupted = c.count_text(INTERRUPTED)
        c.prompt("Create a second file please [[scenario:perm2]]")
        c.expect("PermissionRequest(Bash) → blocked with the command", first,
                 blocked_on("touch second-file.txt"), after="PermissionRequest(Bash)")
        c.tmux.wait_text(r"Do you want to proceed\?", 5)
        c.keys(key)
        if key != "Escape" and not c.wait_new_text(INTERRUPTED, interrupted, 1.5):
            c.keys("Enter")  # the digit sometimes only moves the selection
        report.check("the CLI shows the refusal", c.wait_new_text(INTERRUPTED, interrupted), c.tmux.screen())
        c.no_hook(first, "blocked", "refusal fires no hook: settle from the transcript's rejected tool_result")
        report.check("no event after PermissionRequest", c.sequence().endswith("PermissionRequest(Bash)"),
                     c.sequence())
        report.check("the command did not run", not (c.project / "second-file.txt").exists())
        c.save_transcript(transcript)

    board_scenarios(c, report, first, blocked_on)

    report.scenario("question tool (AskUserQuestion)")
    c.begin()
    c.prompt("Ask me about the color [[scenario:ask]]")
    asking = lambda s: s["status"] == "waiting" and s["awaitingInput"] and s.get("question") == QUESTION
    c.expect("PermissionRequest(AskUserQuestion) → waiting with the question", first, asking,
             after="PermissionRequest(AskUserQuestion)")
    if c.wait_event(lambda e: e.get("notification_type") == "permission_prompt", 12):
        c.holds("the later Notification(permission_prompt) keeps it waiting on the question", first, asking, 1.0)
    else:
        report.check("Notification(permission_prompt) fires while the question is open", False, c.sequence())
    c.tmux.wait_text(r"Enter to select", 5)
    c.keys("Enter")
    c.expect("the answer → working, the question closed", first,
             lambda s: s["status"] == "working" and not s["awaitingInput"], 10)
    c.expect("then Stop → done", first, is_done("Great, I will make the button that color."), after="Stop")

    report.scenario("question answered from the board (`switchboard answer`)")
    c.begin()
    c.prompt("Ask me about the color again [[scenario:ask]]")
    asked = c.expect("waiting with the question and its options", first,
                     lambda s: asking(s) and [o["label"] for o in (s.get("questions") or [{}])[0].get("options", [])]
                     == ["Red", "Blue"], after="PermissionRequest(AskUserQuestion)")
    c.tmux.wait_text(r"Enter to select", 5)
    time.sleep(0.5)  # a key pressed the instant the dialog is drawn can be lost (a person is slower)
    results_before = len(c.fake.tool_results)
    started = time.monotonic()
    answered = subprocess.run([str(harness.switchboard_bin()), "answer", first, "2"], env=c.serve.env,
                              capture_output=True, text=True, timeout=20)
    report.check("`switchboard answer <session> 2` types into its pane", answered.returncode == 0 and asked is not None,
                 answered.stdout + answered.stderr)
    got = harness.wait_until(lambda: next((r for r in c.fake.tool_results[results_before:] if "Blue" in r), None), 15)
    took = time.monotonic() - started
    report.check("the model gets the chosen option (Blue) in the tool result", got is not None,
                 f"{c.fake.tool_results[results_before:]}; screen:\n{c.tmux.screen()[-600:]}")
    print(f"    answer → the model's tool result: {took:.2f} s", flush=True)
    c.expect("then working → done", first, is_done("Great, I will make the button that color."), after="Stop")
    late = subprocess.run([str(harness.switchboard_bin()), "answer", first, "1"], env=c.serve.env,
                          capture_output=True, text=True, timeout=20)
    report.check("a second answer is refused: it asks nothing now", late.returncode != 0
                 and "asks nothing now" in late.stderr, late.stdout + late.stderr)
    c.begin()
    c.prompt("Say hello [[scenario:hello]]")
    c.expect("a turn", first, is_done("Hello! Nothing to do."), after="Stop")
    replied = subprocess.run([str(harness.switchboard_bin()), "reply", first, "Ask me about the color once more",
                              "[[scenario:ask]]"], env=c.serve.env, capture_output=True, text=True, timeout=20)
    report.check("`switchboard reply` to the done session is accepted", replied.returncode == 0,
                 replied.stdout + replied.stderr)
    c.expect("the reply became its next prompt: waiting on the question again", first, asking, 20,
             after="PermissionRequest(AskUserQuestion)")
    c.tmux.wait_text(r"Enter to select", 5)
    harness.settled(c.tmux.screen)  # pressed once, on a dialog done drawing (never pressed again)
    c.keys("Enter")
    c.expect("answered at the terminal → done", first, is_done("Great, I will make the button that color."),
             after="Stop")

    report.scenario("question as plain text")
    c.begin()
    c.prompt("How should I indent? [[scenario:askplain]]")
    c.expect("Stop → done with the question as the message, no open question", first,
             lambda s: is_done("Do you want me to use tabs or spaces? Please tell me.")(s) and not s["awaitingInput"],
             after="Stop")

    report.scenario("Esc while a tool runs")
    c.begin()
    interrupted = c.count_text(INTERRUPTED)
    c.prompt("Run the slow script [[scenario:sleep]]")
    c.expect("PreToolUse(Bash) → working", first, lambda s: s["status"] == "working" and s.get("tool") == "Bash",
             after="PreToolUse(Bash)")
    time.sleep(1.0)
    c.keys("Escape")
    report.check("the CLI shows the interrupt", c.wait_new_text(INTERRUPTED, interrupted), c.tmux.screen())
    c.no_hook(first, "working", "Esc during a tool fires no hook: settle from the transcript's interrupt record")
    report.check("no event after PreToolUse", c.sequence().endswith("PreToolUse(Bash)"), c.sequence())
    c.save_transcript("esc-during-tool")

    report.scenario("Esc while streaming")
    c.begin()
    interrupted = c.count_text(INTERRUPTED)
    c.prompt("Tell me a long story [[scenario:slowtext]]")
    c.expect("UserPromptSubmit → working", first, lambda s: s["status"] == "working" and not s["interrupted"],
             after="UserPromptSubmit")
    harness.wait_until(lambda: any(line.endswith("slowtext#0") for line in c.fake.log), 10)
    time.sleep(1.5)
    c.keys("Escape")
    report.check("the CLI shows the interrupt", c.wait_new_text(INTERRUPTED, interrupted), c.tmux.screen())
    c.no_hook(first, "working", "Esc while streaming fires no hook: settle from the transcript's interrupt record")
    report.check("no event after UserPromptSubmit", c.sequence().endswith("UserPromptSubmit"), c.sequence())
    c.save_transcript("esc-during-stream")

    for code in (400, 429, 500):
        report.scenario(f"API error {code}")
        c.begin()
        c.prompt(f"This will fail [[scenario:err{code}]]")
        found = c.expect("StopFailure → done + errored", first, lambda s: s["status"] == "done" and s["errored"],
                         20, after="StopFailure")
        message = (found or c.sb(first) or {}).get("message") or ""
        report.check("a readable message, not a bare error code",
                     message not in ("", "unknown", "rate_limit", "server_error") and " " in message,
                     f"message = {message!r}; events: {c.sequence()}")

    report.scenario("subagent (Agent tool)")
    c.begin()
    c.prompt("Delegate reading the notes [[scenario:sub]]")
    c.expect("SubagentStart → the node counts one running subagent", first, lambda s: s["subagents"] == 1,
             after="SubagentStart")
    c.expect("the main Stop while it runs → done, subagent still counted", first,
             lambda s: s["status"] == "done" and s["subagents"] == 1, 15, after="Stop")
    c.expect("SubagentStop and the <task-notification> turn → done, no subagent left", first,
             lambda s: is_done(TASK_NOTIFICATION_ANSWER)(s) and s["subagents"] == 0, 30, after="SubagentStop")

    report.scenario("compaction (/compact)")
    c.begin()
    c.prompt("/compact")
    c.expect("after PostCompact → done + interrupted (no Stop comes)", first,
             lambda s: s["status"] == "done" and s["interrupted"], 5, after="PostCompact")
    c.expect("no subagent counted (two SubagentStop without a start)", first, lambda s: s["subagents"] == 0, 2)
    # No Stop follows a compaction; PostCompact should settle it, the transcript shows it too.
    c.save_transcript("compact")

    report.scenario("/clear")
    c.begin()
    c.prompt("/clear")
    started = c.wait_event(lambda e: e["hook_event_name"] == "SessionStart", 15)
    ended = c.wait_event(lambda e: e["hook_event_name"] == "SessionEnd", 5)
    print(f"    /clear fired: {c.sequence()}", flush=True)
    report.check("/clear fires SessionEnd(clear) on the old id and SessionStart(clear) with a new id",
                 started is not None and started["session_id"] != first and started.get("source") == "clear"
                 and ended is not None and ended["session_id"] == first and ended.get("reason") == "clear",
                 c.sequence())
    c.expect("the old session is ended", first, lambda s: s["ended"], 5)
    second = started["session_id"] if started else first
    c.expect("the new session is a node with no status yet", second, lambda s: s["status"] is None, 5)
    c.prompt("Say hello [[scenario:hello]]")
    c.expect("the new session runs a turn to done", second, is_done("Hello! Nothing to do."), after="Stop")

    report.scenario("exit (/exit)")
    c.begin()
    c.prompt("/exit")
    c.expect("SessionEnd → ended", second, lambda s: s["ended"], 10, after="SessionEnd")
    pane_gone = harness.wait_until(lambda: "exited" if c.tmux.pane_pid() is None else None, 10)
    report.check("the CLI exited", pane_gone is not None, c.tmux.screen()[-400:])

    report.scenario("resume (--resume)")
    c.begin()
    resumed = c.start("--resume", first)
    report.check("SessionStart(resume) carries the old id", resumed == first and c.sequence() == "SessionStart(resume)",
                 c.sequence())
    c.expect("the resumed session is no longer ended", first, lambda s: not s["ended"], 10)
    c.prompt("Say hello again [[scenario:hello]]")
    c.expect("a turn in the resumed session → done", first, is_done("Hello! Nothing to do."), after="Stop")
    c.prompt("/exit")
    c.expect("SessionEnd → ended", first, lambda s: s["ended"], 10, after="SessionEnd")

    # Issue 20.1: Esc during the very first answer of a new session. Claude creates the
    # transcript only after the first prompt's hook, so the watch must look for it again.
    # (Before the kill -9 scenarios: after one, Claude starts its classic renderer once.)
    report.scenario("Esc in a new session's first turn")
    c.begin()
    fresh = c.start()
    interrupted = c.count_text(INTERRUPTED)
    c.prompt("Tell me a long story [[scenario:slowtext]]")
    c.expect("UserPromptSubmit → working", fresh, lambda s: s["status"] == "working", after="UserPromptSubmit")
    harness.wait_until(lambda: any(line.endswith("slowtext#0") for line in c.fake.log), 10)
    # Esc once the answer streams (the spinner counts the tokens coming in), as a user would.
    report.check("the first answer streams", bool(c.tmux.wait_text(r"↓ \d+ tokens", 15)), c.tmux.screen())
    c.keys("Escape")
    report.check("the CLI shows the interrupt", c.wait_new_text(INTERRUPTED, interrupted), c.tmux.screen())
    settled = harness.wait_until(
        lambda: (lambda s: s if s and s["status"] == "done" and s["interrupted"] else None)(c.sb(fresh)), 10)
    report.check("no hook fires; the transcript that appeared after the first prompt settles it: done · interrupted",
                 bool(settled), f"Switchboard shows {brief(c.sb(fresh))}; events: {c.sequence()}")

    report.scenario("agent killed (kill -9)")
    c.begin()
    killed = c.start("--resume", first)
    c.prompt("Say hello again [[scenario:hello]]")
    c.expect("a turn → done", killed, is_done("Hello! Nothing to do."), after="Stop")
    session = c.sb(killed) or {}
    agent_pid = (session.get("process") or {}).get("pid")
    report.check("the forwarder reported the agent's process", bool(agent_pid), brief(session))
    if agent_pid:
        os.kill(agent_pid, signal.SIGKILL)
        ended = harness.wait_until(lambda: (lambda s: s if s and s["ended"] and s.get("exited") else None)(c.sb(killed)), 5)
        report.check("no SessionEnd fires; the process watch ends the session within 5 s", bool(ended),
                     brief(c.sb(killed)))

    # Issue 20.5: the same with a parent that does not reap (tmux often takes seconds): the agent
    # is a zombie, and a zombie is dead.
    report.scenario("agent killed (kill -9) under a parent that does not reap")
    c.begin()
    no_reaper = [sys.executable, "-c",
                 "import subprocess, sys, time; subprocess.Popen(sys.argv[1:]); time.sleep(3600)"]
    zombie = c.start("--resume", first, parent=no_reaper)
    c.prompt("Say hello again [[scenario:hello]]")
    c.expect("a turn → done", zombie, is_done("Hello! Nothing to do."), after="Stop")
    agent_pid = ((c.sb(zombie) or {}).get("process") or {}).get("pid")
    report.check("the forwarder reported the agent's process", bool(agent_pid), brief(c.sb(zombie)))
    if agent_pid:
        os.kill(agent_pid, signal.SIGKILL)
        unreaped = harness.wait_until(lambda: process_state(agent_pid) == "Z", 5)
        report.check("the killed agent stays a zombie (its parent does not reap)", bool(unreaped),
                     process_state(agent_pid))
        ended = harness.wait_until(lambda: (lambda s: s if s and s["ended"] and s.get("exited") else None)(c.sb(zombie)), 10)
        report.check("the process watch ends the session though the zombie is not reaped", bool(ended),
                     f"{brief(c.sb(zombie))}; state {process_state(agent_pid)}")

