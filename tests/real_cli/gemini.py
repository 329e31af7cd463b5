"""Gemini CLI, driven in its interactive screen against a fake Gemini API (fake_gemini.py).

One `gemini` process runs most scenarios as successive prompts in one session (start-up costs a
few seconds); /clear, /quit and `--resume latest` close the run. Each step waits on the screen
(what the user sees) and then asserts Switchboard's view of the session (docs/model.md §8 for
Gemini).
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

import harness
from fake_gemini import FakeGemini, call, delayed, error, slow, text

PACKAGE = "@google/gemini-cli"
VERSION = "0.61.0"

MODEL = "gemini-2.5-flash"
ASK = "Which database should I use?"
PLAIN_QUESTION = "Which file should I edit first?"
BIG_CONTENT = ("x" * 99 + "\n") * 4000  # ~400 KB: the edit confirmation carries it twice
TRANSCRIPTS = harness.ROOT / "tests" / "fixtures" / "real-transcripts" / "gemini"

SCRIPTS = {
    "read": [call("read_file", file_path="hello.txt"), text("The file says: ", "hello from the workspace.")],
    "perm": [call("run_shell_command", command="sleep 2 && touch sb_marker.txt", description="Create a marker"),
             delayed(text("Created the marker."), 1.5)],
    "refuse": [call("run_shell_command", command="touch sb_refused.txt", description="Create a marker"),
               text("Not reached.")],
    "write": [call("write_file", file_path="notes.txt", content="written by the fake model\n"),
              text("Wrote notes.txt.")],
    "big": [call("write_file", file_path="big.txt", content=BIG_CONTENT), text("Wrote big.txt.")],
    "ask": [call("ask_user", questions=[{"question": ASK, "header": "Database", "type": "choice", "options": [
        {"label": "PostgreSQL", "description": "Relational server"},
        {"label": "SQLite", "description": "Embedded file"}]}]),
            delayed(text("Going with ", "PostgreSQL."), 1.5)],
    "plain": [text(PLAIN_QUESTION)],
    "sleep": [call("run_shell_command", command="sleep 30", description="Wait"), text("Slept.")],
    "stream": [slow("Let me think about this carefully ")],
    "e400": [error(400)],
    "e429": [error(429, times=1, then=text("Answered after a 429."))],
    "e500": [error(500, times=1, then=text("Answered after a 500."))],
    "sub": [call("invoke_agent", agent_name="generalist", prompt="Read hello.txt and report it [[scenario:child]]"),
            text("The subagent reports: ", "hello from the workspace.")],
    "child": [delayed(call("read_file", file_path="hello.txt"), 2),
              call("complete_task", result={"response": "hello from the workspace"})],
    "hello": [text("Hello!", " How can I help?")],
    "reply": [text("Got your reply.")],
}


class RecordingGemini(FakeGemini):
    """The fake API, also keeping the user text each streamed request carried (issue 33: what a
    reply typed from the board delivered), one list of texts per request."""

    def __init__(self, scripts: dict[str, list[dict]]):
        super().__init__(scripts)
        self.user_texts: list[list[str]] = []

    def handle(self, handler, body: dict):
        if ":streamGenerateContent" in handler.path:
            texts = [part["text"] for item in body.get("contents") or [] if item.get("role") == "user"
                     for part in item.get("parts") or [] if isinstance(part, dict) and isinstance(part.get("text"), str)]
            with self.lock:
                self.user_texts.append(texts)
        super().handle(handler, body)

    def got(self, text_: str, start: int = 0) -> bool:
        """Whether a streamed request since the `start`-th carried `text_` in a user part."""
        with self.lock:
            return any(text_ in t for texts in self.user_texts[start:] for t in texts)


def write_settings(home: Path, ws: Path):
    """Gemini's settings before `switchboard install`: an API key, no telemetry or updates, `ws`
    (created here) a trusted folder."""
    (home / ".gemini").mkdir(parents=True)
    ws.mkdir()
    (ws / "hello.txt").write_text("hello from the workspace\n")
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": MODEL},
        "telemetry": {"enabled": False},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "ide": {"enabled": False},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))


class Run:
    """The fixtures of one module run: the temp tree, the fake API, serve, and the CLI's tmux."""

    def __init__(self, ctx, report: harness.Report):
        self.ctx, self.report = ctx, report
        self.root = harness.temp_dir("gemini-")
        self.home, self.ws = self.root / "home", self.root / "ws"
        self.tmux: Optional[harness.Tmux] = None
        self.pids: list[int] = []  # every CLI process started, for the clean-up
        self.launched: list[int] = []  # those of the last launch
        self.fake: Optional[RecordingGemini] = None
        self.serve: Optional[harness.Serve] = None
        self.sid: Optional[str] = None
        self.since = 0.0  # Unix ms of the last prompt: a state older than that is the previous turn's
        self.socket = f"sb-gemini-{os.getpid()}"

    # --- set-up ----------------------------------------------------------------------------------

    def prepare(self):
        package = harness.npm_package(PACKAGE, VERSION)
        self.script = package / "bundle" / "gemini.js"
        write_settings(self.home, self.ws)
        out = subprocess.run([str(self.ctx.bin), "install", "gemini"], capture_output=True, text=True,
                             env={**os.environ, "HOME": str(self.home)}, timeout=30)
        installed = json.loads((self.home / ".gemini" / "settings.json").read_text())
        self.report.check("`switchboard install gemini` registered the hooks and turned them on",
                          out.returncode == 0 and installed.get("hooksConfig", {}).get("enabled") is True
                          and "AfterAgent" in installed.get("hooks", {}), out.stdout + out.stderr)
        self.fake = RecordingGemini(SCRIPTS).start()
        self.serve = harness.Serve(self.ctx.workdir)

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "COLORTERM": "truecolor", "LANG": "C.UTF-8", "GEMINI_API_KEY": "fake-gemini-key",
                "GOOGLE_GEMINI_BASE_URL": self.fake.url, "SWITCHBOARD_HOME": str(self.serve.state),
                "NO_BROWSER": "1"}

    def launch(self, *args: str) -> bool:
        self.tmux = harness.Tmux(self.socket, ["node", str(self.script), *args], self.env(), self.ws)
        pid = self.tmux.pane_pid()
        self.launched = [pid] if pid else []
        ready = bool(self.tmux.wait_text(r"Type your message", 40))
        if pid:
            # Gemini CLI relaunches itself as a child node (--max-old-space-size): keep its pid too,
            # it outlives its parent if only the parent is signalled.
            self.launched.extend(p for p in harness.descendants(pid) if is_gemini(p))
        self.pids.extend(self.launched)
        return ready

    # --- driving ---------------------------------------------------------------------------------

    def idle(self, timeout: float = 30) -> bool:
        """The prompt is back: the input box shows and nothing runs ("esc to cancel")."""
        def check():
            screen = self.tmux.screen()
            return "Type your message" in screen and "esc to cancel" not in screen and "Executing Hook" not in screen
        return bool(harness.wait_until(check, timeout, 0.2))

    def prompt(self, text_: str):
        """Types a prompt; later waits only accept events from this turn on."""
        self.since = time.time() * 1000
        self.tmux.type(text_)

    def command(self, text_: str):
        self.since = time.time() * 1000
        self.tmux.type(text_)

    def session(self, sid: Optional[str] = None) -> Optional[dict]:
        return self.serve.session(session_id=sid or self.sid)

    def wait(self, predicate: Callable[[dict], bool], timeout: float = 15, sid: Optional[str] = None):
        def check():
            s = self.session(sid)
            return s if s is not None and s["lastEventAt"] >= self.since and predicate(s) else None
        return harness.wait_until(check, timeout, 0.1)

    def expect(self, what: str, predicate: Callable[[dict], bool], timeout: float = 15,
               sid: Optional[str] = None) -> Optional[dict]:
        found = self.wait(predicate, timeout, sid)
        detail = f"session is {brief(self.session(sid))}"
        if found is None and self.tmux:
            lines = [line for line in self.tmux.screen().splitlines() if line.strip()]
            detail += "\n      screen: " + "\n      ".join(lines[-12:])
        self.report.check(what, found is not None, detail)
        return found

    def exited(self, timeout: float) -> bool:
        """The CLI of the last launch and its relaunched child are gone."""
        return bool(harness.wait_until(lambda: not any(is_gemini(p) for p in self.launched), timeout, 0.2))

    # --- transcripts (for the scenarios no hook settles) -----------------------------------------

    def transcript(self, sid: Optional[str] = None) -> Optional[Path]:
        sid = sid or self.sid
        if not sid:
            return None
        found = sorted(self.home.glob(f".gemini/tmp/*/chats/session-*-{sid[:8]}.jsonl"))
        return found[-1] if found else None

    def transcript_lines(self) -> int:
        path = self.transcript()
        return len(path.read_text().splitlines()) if path else 0

    def save_transcript(self, name: str, start: int, what_user_did: str):
        path = self.transcript()
        if path is None:
            self.report.check(f"found the chat file of {self.sid}", False, "no session-*.jsonl under the temp HOME")
            return
        # Recorded fixtures are rewritten only on request, so a test run leaves the tree as it was.
        if (TRANSCRIPTS / f"{name}.jsonl").exists() and os.environ.get("SWITCHBOARD_SAVE_TRANSCRIPTS") != "1":
            return
        lines = path.read_text().splitlines()[start:]
        TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
        body = "\n".join(lines).replace(str(self.root), "/home/dev")
        (TRANSCRIPTS / f"{name}.jsonl").write_text(body + "\n")
        readme = TRANSCRIPTS / "README.md"
        entries = {}
        if readme.exists():
            for line in readme.read_text().splitlines():
                m = re.match(r"- `([^`]+)\.jsonl`: (.*)", line)
                if m:
                    entries[m.group(1)] = m.group(2)
        entries[name] = what_user_did
        readme.write_text(
            f"Lines Gemini CLI {VERSION} appended to its chat file (~/.gemini/tmp/<project>/chats/session-*.jsonl)"
            " from the prompt on, written by tests/real_cli/gemini.py; temp paths rewritten to /home/dev.\n\n"
            + "".join(f"- `{k}.jsonl`: {v}\n" for k, v in sorted(entries.items())))

    # --- tear-down -------------------------------------------------------------------------------

    def close(self):
        for pid in reversed(self.pids):
            kill_tree(pid)
        # A quitting CLI still writes its chat file: let it finish before the tree goes.
        if not harness.wait_until(lambda: not any(is_gemini(p) for p in self.pids), 5, 0.1):
            for pid in self.pids:
                if is_gemini(pid):
                    os.kill(pid, signal.SIGKILL)
        if self.tmux:
            self.tmux.kill()
        # A server whose only program exited can leave its socket file behind.
        (Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / self.socket).unlink(missing_ok=True)
        if self.serve:
            self.serve.stop()
        if self.fake:
            self.fake.stop()
        harness.remove_tree(self.root)


def brief(s: Optional[dict]) -> str:
    if s is None:
        return "missing"
    keys = ["status", "tool", "message", "awaitingInput", "question", "interrupted", "errored", "ended", "unread"]
    return json.dumps({k: (s.get(k)[:120] if isinstance(s.get(k), str) else s.get(k)) for k in keys})


def kill_tree(pid: int):
    """Ends the CLI and whatever it started (a shell tool's `sleep`), children first, by pid."""
    if not is_gemini(pid):
        return  # gone already (its pid may since belong to someone else)
    for p in [*reversed(harness.descendants(pid)), pid]:
        try:
            os.kill(p, signal.SIGTERM)
        except OSError:
            pass


def run(ctx, report: harness.Report):
    r = Run(ctx, report)
    started = time.monotonic()
    try:
        report.scenario("setup and start-up")
        r.prepare()
        report.check("gemini starts at its prompt", r.launch(), r.tmux.screen() if r.tmux else "")
        scenarios(r)
    finally:
        r.close()
        print(f"    gemini module took {time.monotonic() - started:.0f} s", flush=True)


def scenarios(r: Run):
    report = r.report

    # --- a read-only turn ----------------------------------------------------------------------
    report.scenario("read-only turn")
    r.prompt("Read hello.txt and tell me what it says [[scenario:read]]")
    s = r.serve.wait_session(lambda s: True, 20, agent="gemini")
    report.check("the session appears", s is not None, "no gemini session")
    if s is None:
        return
    r.sid = s["sessionId"]
    # The first turn starts Gemini CLI's own machinery too: on a busy machine it took 15 s and more.
    r.expect("done after the answer", lambda s: s["status"] == "done", 60)
    r.idle()
    s = r.session()
    report.check("message = the answer, de-garbled", s and s.get("message") == "The file says: hello from the workspace.",
                 brief(s))

    # --- issue 25: tokens from the chat file ----------------------------------------------------
    report.scenario("usage: tokens and context from the chat file")
    with r.fake.lock:
        sent = list(r.fake.usage)
    expected = {"inputTokens": sum(i for i, _ in sent), "outputTokens": sum(o for _, o in sent),
                "requests": len(sent), "contextTokens": sum(sent[-1]) if sent else None}
    got = r.expect(f"tokens equal the {len(sent)} answers sent",
                   lambda s: all((s.get("usage") or {}).get(k) == v for k, v in expected.items()), 10)
    usage = ((got or r.session() or {}).get("usage")) or {}
    report.check("context % follows: the last answer's tokens of the model's window",
                 usage.get("contextWindow") == 1048576 and usage.get("contextTokens") == expected["contextTokens"],
                 f"{usage}; expected {expected}")
    print(f"    usage: {usage}", flush=True)

    # --- permission prompt approved --------------------------------------------------------------
    report.scenario("permission approved")
    start = r.transcript_lines()
    r.prompt("Create a marker file [[scenario:perm]]")
    # Polled every 20 ms: Enter follows the drawn prompt within ~0.1 s (issue 20.2's quick hand).
    r.tmux.wait_text(r"Allow execution", 20, interval=0.02)
    drawn = time.monotonic()
    r.expect("blocked at the shell permission prompt", lambda s: s["status"] == "blocked")
    r.expect("blocked message = the command", lambda s: s.get("message") == "sleep 2 && touch sb_marker.txt", 3)
    # Issue 20.2: Enter as soon as the prompt is drawn (a quick hand). The tool's process runs the
    # command the permission asked for, so it is seen however soon it starts after the hooks.
    r.tmux.send("Enter")
    print(f"    (Enter {time.monotonic() - drawn:.3f} s after the prompt was seen drawn)", flush=True)
    # No hook fires between Enter and AfterTool (the command may run long): the command's own
    # process, a new child of the CLI, tells Switchboard it was approved.
    r.expect("approved: the command's process → working within 2 s (no hook yet)",
             lambda s: s["status"] == "working", 2)
    r.expect("done at the end of the turn", lambda s: s["status"] == "done", 15)
    r.idle()
    r.save_transcript("permission-approved", start,
                      "approved `sleep 2 && touch sb_marker.txt` with Enter (allow once); the turn finished")
    report.check("the approved command ran", (r.ws / "sb_marker.txt").exists())

    # --- refused with Esc / with "No" -----------------------------------------------------------
    for name, key, how in [("refused with Esc", "Escape", "Esc"), ('refused with "No"', "3", '"3. No, suggest changes"')]:
        report.scenario(name)
        start = r.transcript_lines()
        r.prompt("Create another marker [[scenario:refuse]]")
        r.tmux.wait_text(r"Allow execution", 20)
        r.expect("blocked at the permission prompt", lambda s: s["status"] == "blocked")
        r.tmux.send(key)
        report.check("the CLI shows the request cancelled", r.tmux.wait_text(r"Request cancelled", 10) is not None,
                     r.tmux.screen())
        # No hook fires on a refusal; the chat file's "Request cancelled." settles it.
        r.expect(f"refused with {how}: done + interrupted within 2 s (from the chat file)",
                 lambda s: s["status"] == "done" and s.get("interrupted") is True, 2)
        r.idle()
        slug = "refused-esc" if key == "Escape" else "refused-no"
        r.save_transcript(slug, start, f"refused `touch sb_refused.txt` at the permission prompt with {how}")
        report.check("the refused command did not run", not (r.ws / "sb_refused.txt").exists())

    # --- Esc while a tool runs ------------------------------------------------------------------
    report.scenario("Esc while a tool runs")
    start = r.transcript_lines()
    r.prompt("Wait for a while [[scenario:sleep]]")
    r.tmux.wait_text(r"Allow execution", 20)
    r.expect("blocked at the permission prompt", lambda s: s["status"] == "blocked")
    r.tmux.send("Enter")
    running = harness.wait_until(lambda: any("sleep 30" in cmdline(p) for p in harness.descendants(r.pids[0])), 10)
    report.check("`sleep 30` runs", running)
    time.sleep(0.5)
    r.tmux.send("Escape")
    r.expect("done + interrupted after AfterTool(\"Command cancelled by user.\")",
             lambda s: s["status"] == "done" and s.get("interrupted") is True, 10)
    r.idle()
    r.save_transcript("esc-during-tool", start, "approved `sleep 30`, then pressed Esc while it ran")

    # --- Esc while streaming --------------------------------------------------------------------
    report.scenario("Esc while streaming")
    start = r.transcript_lines()
    r.prompt("Write a long essay [[scenario:stream]]")
    r.tmux.wait_text(r"Let me think about this", 20)
    streaming = r.expect("working while the answer streams", lambda s: s["status"] == "working", 5)
    dot_before = bool(streaming and streaming.get("unread"))
    r.tmux.send("Escape")
    # AfterAgent carries the partial text and no marker; the chat file's "Request cancelled."
    # makes it the user's interrupt (issue 20.4): no "finished" notification and no new unread
    # dot — whichever of the two arrives first (a dot an earlier turn left stays until opened).
    s = r.expect("done · interrupted after Esc (AfterAgent + the chat file's Request cancelled.)",
                 lambda s: s["status"] == "done" and s.get("interrupted") is True
                 and (not s.get("unread") or dot_before), 10)
    report.check("message = the partial text", s and (s.get("message") or "").startswith("Let me think"), brief(s))
    r.idle()
    r.save_transcript("esc-during-stream", start, "pressed Esc while the answer streamed")

    # --- a question through ask_user ------------------------------------------------------------
    report.scenario("question tool (ask_user)")
    r.prompt("Set up a database [[scenario:ask]]")
    r.tmux.wait_text(r"Enter to select", 20)
    r.expect("waiting on the question (not blocked)",
             lambda s: s["status"] == "waiting" and s.get("awaitingInput") is True and s.get("question") == ASK)
    r.tmux.send("Enter")
    r.expect("working after the answer", lambda s: s["status"] == "working", 10)
    r.expect("done at the end of the turn", lambda s: s["status"] == "done" and not s.get("awaitingInput"), 15)
    r.idle()

    # --- the same question answered from the board (issue 24) ------------------------------------
    report.scenario("question answered from the board (`switchboard answer`)")
    r.prompt("Set up a database [[scenario:ask]]")
    r.tmux.wait_text(r"Enter to select", 20)
    asked = r.expect("waiting with the question's options",
                     lambda s: s["status"] == "waiting" and [o["label"] for o in (s.get("questions") or [{}])[0]
                                                            .get("options", [])] == ["PostgreSQL", "SQLite"])
    time.sleep(0.5)  # a key pressed the instant the dialog is drawn can be lost (a person is slower)
    before = len(r.fake.tool_results)
    started = time.monotonic()
    answered = subprocess.run([str(harness.switchboard_bin()), "answer", r.sid, "2"], env=r.serve.env,
                              capture_output=True, text=True, timeout=20)
    report.check("`switchboard answer <session> 2` types into its pane", answered.returncode == 0 and asked is not None,
                 answered.stdout + answered.stderr)
    got = harness.wait_until(lambda: next((t for t in r.fake.tool_results[before:] if "SQLite" in t), None), 15)
    report.check("the model gets the chosen option (SQLite) in the function response", got is not None,
                 f"{r.fake.tool_results[before:]}; screen:\n{r.tmux.screen()[-600:]}")
    print(f"    answer → the model's function response: {time.monotonic() - started:.2f} s", flush=True)
    r.expect("done at the end of the turn", lambda s: s["status"] == "done" and not s.get("awaitingInput"), 15)
    r.idle()

    # --- Esc at the ask_user question (issue 20.3) ------------------------------------------------
    report.scenario("Esc at the question (ask_user)")
    r.prompt("Set up a database [[scenario:ask]]")
    r.tmux.wait_text(r"Enter to select", 20)
    r.expect("waiting on the question", lambda s: s["status"] == "waiting" and s.get("question") == ASK)
    r.tmux.send("Escape")
    # No hook fires and the chat file gets no line: the tmux screen's "Request cancelled." settles it.
    r.expect("done · interrupted from the screen, the question gone",
             lambda s: s["status"] == "done" and s.get("interrupted") is True and not s.get("awaitingInput"), 10)
    r.idle()

    # --- a question as plain text ----------------------------------------------------------------
    report.scenario("question as plain text")
    r.prompt("Fix the bug [[scenario:plain]]")
    r.expect("done, with the question as the message",
             lambda s: s["status"] == "done" and s.get("message") == PLAIN_QUESTION)
    r.idle()

    # --- a reply from the board (issue 33) --------------------------------------------------------
    report.scenario("reply from the board (`switchboard reply`)")
    unique = f"Board reply {os.getpid()}-{time.time_ns()} [[scenario:hello]]"
    r.since = time.time() * 1000
    code, said = r.serve.reply(r.sid, unique)
    report.check("`switchboard reply` exits 0 and says Gemini took it", code == 0 and "took it" in said,
                 f"exit {code}: {said}")
    report.check("the fake API gets the reply", harness.wait_until(lambda: r.fake.got(unique), 15),
                 f"screen:\n{r.tmux.screen()[-800:]}")
    r.expect("the reply started a new turn (BeforeAgent)", lambda s: (s.get("turnStartedAt") or 0) >= r.since, 5)
    r.expect("done with the model's answer", lambda s: s["status"] == "done" and s.get("message") == "Hello! How can I help?")
    r.idle()

    # --- twin panes (issue 48) --------------------------------------------------------------------
    twins = harness.twin_panes(report, r.tmux, r.serve, "gemini", "Gemini CLI", r.sid, ["node", str(r.script)], r.env(), r.ws,
                       lambda screen: "Type your message" in screen and "esc to cancel" not in screen
                       and "Executing Hook" not in screen)
    r.idle()

    # --- a reply refused over the user's draft (issue 33.2) ---------------------------------------
    report.scenario("reply refused while the composer holds a draft")
    r.tmux.send("half a thought", literal=True)
    drawn = r.tmux.wait_text(r">\s+half a thought", 10)
    report.check("the draft is drawn in the input box", drawn, r.tmux.screen())
    unique = f"Board reply over a draft {os.getpid()}-{time.time_ns()} [[scenario:hello]]"
    start = len(r.fake.user_texts)
    code, said = r.serve.reply(r.sid, unique)
    report.check("`switchboard reply` fails, saying the composer holds text not sent yet",
                 code != 0 and "holds text not sent yet" in said, f"exit {code}: {said}")

    # What it typed is erased with Backspace as it refuses: the input box redraws a moment later.
    def draft_alone():
        screen = r.tmux.screen()
        return (any(re.fullmatch(r".*>\s+half a thought\s*│?", line.strip()) for line in screen.splitlines())
                and "Board reply over a draft" not in screen)
    report.check("the input box still shows the draft, and only it", harness.wait_until(draft_alone, 5), r.tmux.screen())
    sent = harness.wait_until(lambda: r.fake.got(unique, start) or r.fake.got("half a thought", start), 3)
    report.check("nothing was sent to the model", not sent, r.fake.user_texts[start:])
    r.tmux.send("C-c")  # Ctrl-C once clears a non-empty input (twice on an empty one quits)
    report.check("Ctrl-C clears the draft", harness.wait_until(
        lambda: "half a thought" not in r.tmux.screen() and "Type your message" in r.tmux.screen(), 5), r.tmux.screen())
    r.idle()

    # --- write_file edit confirmation, small and ~400 KB ------------------------------------------
    for name, scenario, file in [("edit confirmation", "write", "notes.txt"),
                                 ("edit confirmation ~400 KB", "big", "big.txt")]:
        report.scenario(name)
        r.prompt(f"Write {file} [[scenario:{scenario}]]")
        r.tmux.wait_text(r"Apply this change", 30)
        r.expect("blocked at the edit confirmation", lambda s: s["status"] == "blocked", 10)
        r.tmux.send("Enter")
        r.expect("done after the write", lambda s: s["status"] == "done", 20)
        report.check(f"{file} was written", harness.wait_until(lambda: (r.ws / file).exists(), 5))
        r.idle()

    # --- API errors --------------------------------------------------------------------------------
    for code, answer in [(400, None), (429, "Answered after a 429."), (500, "Answered after a 500.")]:
        report.scenario(f"API error {code}")
        r.prompt(f"Do something [[scenario:e{code}]]")
        s = r.expect(f"done after HTTP {code}", lambda s: s["status"] == "done", 30)
        if answer:
            report.check("the retry answered", s and s.get("message") == answer, brief(s))
        else:
            report.check("the CLI shows the API error", r.tmux.wait_text(r"API Error", 5) is not None, r.tmux.screen())
        r.idle()

    # --- a subagent ----------------------------------------------------------------------------------
    report.scenario("subagent")
    r.prompt("Ask a subagent to read hello.txt [[scenario:sub]]")
    r.expect("working while the subagent runs", lambda s: s["status"] == "working" and s.get("tool") == "invoke_agent",
             10)
    s = r.expect("done at the end of the main turn", lambda s: s["status"] == "done", 20)
    report.check("message = the main agent's answer",
                 s and s.get("message") == "The subagent reports: hello from the workspace.", brief(s))
    r.idle()

    # --- followed from another board (issue 48) ------------------------------------------------------
    remote_board_scenario(r)

    # --- compaction ----------------------------------------------------------------------------------
    report.scenario("compaction (/compress)")
    start = r.transcript_lines()
    before = r.session()
    r.command("/compress")
    report.check("the CLI answers /compress", r.tmux.wait_text(r"[Cc]ompress(ion|ed)", 20) is not None, r.tmux.screen())
    r.idle()
    s = r.wait(lambda s: s["lastEventAt"] > before["lastEventAt"], 10) if before else None
    report.check("PreCompress(manual) reached the session and kept its status",
                 s and s["status"] == before["status"] and not s.get("ended"), brief(s))
    r.save_transcript("compress", start, "typed /compress after a few turns")

    # --- /clear, /quit, --resume latest -----------------------------------------------------------
    report.scenario("/clear and resume")
    old = r.sid
    r.command("/clear")
    r.expect("the old session ended", lambda s: s.get("ended") is True, 10, sid=old)
    new = harness.wait_until(lambda: next((s for s in r.serve.sessions()
                                          if s["agent"] == "gemini" and s["sessionId"] not in {old, *twins}), None), 10)
    report.check("a new session id after /clear", new is not None, r.serve.sessions())
    r.idle()
    if new is None:
        return
    r.sid = new["sessionId"]
    r.prompt("Say hello [[scenario:hello]]")
    r.expect("the new session works and finishes", lambda s: s["status"] == "done")
    r.idle()

    r.command("/quit")
    r.expect("the session ended after /quit", lambda s: s.get("ended") is True, 15)
    report.check("gemini exited", r.exited(10), r.tmux.screen())
    r.tmux.kill()
    report.check("gemini --resume latest starts", r.launch("--resume", "latest"), r.tmux.screen())
    r.expect("--resume latest reports the same session id again, no longer ended",
             lambda s: s.get("ended") is False, 15)
    report.check("no third session appeared",
                 {s["sessionId"] for s in r.serve.sessions() if s["agent"] == "gemini"} - twins == {old, r.sid},
                 r.serve.sessions())
    # Keys typed while the resumed CLI still loads its history are dropped (seen under load): it
    # takes input once that history is drawn above its input box.
    report.check("the resumed session's history is drawn",
                 r.tmux.wait_text(r"Hello! How can I help\?", 30) is not None, r.tmux.screen())
    r.idle()

    # --- exit ----------------------------------------------------------------------------------------
    report.scenario("exit (/quit)")
    r.command("/quit")
    r.expect("ended after /quit", lambda s: s.get("ended") is True, 15)
    report.check("gemini exited", r.exited(10), r.tmux.screen())


def is_gemini(pid: int) -> bool:
    return "gemini.js" in cmdline(pid)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def remote_board_scenario(r: Run):
    """Issue 48: this machine followed by another board as the remote `box` (`harness.Desk`). Gemini
    CLI 0.61 has no hook that can hold a tool for an answer, so the other board shows the session
    blocked with the command and offers no Allow / Deny; the user answers in Gemini's own dialog,
    and the other board follows the turn to done."""
    report = r.report
    report.scenario("followed from another board (remote): blocked there, answered at the terminal")
    desk = harness.Desk(r.root / "desk", r.serve, str(r.home))
    try:
        report.check("`switchboard remote add box -- …`", desk.added.returncode == 0,
                     desk.added.stdout + desk.added.stderr)
        linked = desk.wait(r.sid, lambda s: s.get("host") == "box" and s["status"] == "done", 30)
        report.check("the session is on the following board, done, host `box`", linked is not None,
                     [s["sessionId"] for s in desk.serve.sessions()])
        r.prompt("Create a marker file [[scenario:perm]]")
        drawn = r.tmux.wait_text(r"Allow execution", 20)
        blocked = desk.wait(r.sid, lambda s: s["status"] == "blocked"
                            and s.get("message") == "sleep 2 && touch sb_marker.txt", 20)
        report.check("blocked there, with the command", blocked is not None, brief(desk.session(r.sid)))
        report.check("no Allow / Deny on offer there (nothing holds Gemini's tool)",
                     blocked is not None and blocked.get("decision") is None, brief(blocked))
        if drawn is None:
            return
        time.sleep(harness.PASTE_WINDOW_S)
        r.tmux.send("Enter")
        done = desk.wait(r.sid, lambda s: s["status"] == "done" and s["lastEventAt"] >= r.since, 30)
        report.check("approved at the terminal → done there too", done is not None, brief(desk.session(r.sid)))
        r.idle()
    finally:
        desk.stop()
