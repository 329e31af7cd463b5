"""The scenarios of a CLI that speaks OpenAI chat completions (fake_openai.py) in its interactive
screen (Qwen Code, Copilot CLI): one CLI process runs them as successive prompts in one session;
the board's Allow / Deny run with serve restarted under SWITCHBOARD_DECIDE=<cli>; its exit
command and kill -9 close the run. Each step waits on the screen (what the user sees) and then
asserts Switchboard's view. A CLI module subclasses `Run` with what is its own.
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
from fake_openai import FakeOpenAI, call, error, slow, text

ASK = "Which database should I use?"
CHOICES = ["PostgreSQL", "SQLite"]


def shell(command: str) -> dict:
    return {"command": command, "description": "Create a marker"}


def scripts(shell_tool: str, ask: dict) -> dict[str, list[dict]]:
    """The fake's answers, by the marker in the prompt; `ask` is the CLI's question-tool call."""
    return {
        "hello": [text("Hello!", " How can I help?")],
        "shell": [call(shell_tool, **shell("touch sb_terminal.txt")), text("Created the marker.")],
        "board-allow": [call(shell_tool, **shell("touch sb_allowed.txt")), text("Created sb_allowed.txt.")],
        "board-deny": [call(shell_tool, **shell("touch sb_denied.txt")), text("Understood, I did not create the file.")],
        "board-remote": [call(shell_tool, **shell("touch sb_remote.txt")), text("Created sb_remote.txt.")],
        "board-phone": [call(shell_tool, **shell("touch sb_phone.txt")), text("Created sb_phone.txt.")],
        "ask": [ask, text("Going with PostgreSQL.")],
        "ask-board": [ask, text("Noted your choice.")],
        "stream": [slow("Let me think about this carefully ")],
        "e400": [error(400)],
        "reply": [text("Got your reply.")],
    }


class Run:
    """The fixtures of one module run: the temp tree, the fake API, serve, and the CLI's tmux."""

    # What a CLI module sets.
    agent = ""
    name = ""
    ready = ""  # on screen while it waits for a prompt
    busy = ""  # on screen while it works
    dialog = ""  # its permission dialog (a regex)
    exit_command = ""
    interrupt_keys: list[str] = []  # what stops a stream
    model = ""  # the model its usage records name
    error_event = ""  # what reports the failed request
    shell_tool = ""
    ask_call: dict = {}
    asks_at_terminal = True  # it asks before a tool on its own (pi never does)
    question_tool = True  # it has a question tool (pi has none)
    # Its question form picks with ↑/↓ from wherever its cursor is: how the cursor's line looks on
    # screen (`{label}` for the option's), so a scenario can move it at the terminal first.
    cursor_line = ""
    dialog_while_held = False  # its own dialog is drawn while the board holds a permission (OpenCode)
    usage_file = True  # it keeps a session file the board counts tokens from (OpenCode: SQLite)

    def __init__(self, ctx, report: harness.Report):
        self.ctx, self.report = ctx, report
        self.root = harness.temp_dir(f"{self.agent}-")
        self.home, self.ws = self.root / "home", self.root / "ws"
        self.tmux: Optional[harness.Tmux] = None
        self.fake: Optional[FakeOpenAI] = None
        self.serve: Optional[harness.Serve] = None
        self.sid: Optional[str] = None
        self.since = 0.0  # Unix ms of the last prompt: a state older than that is the previous turn's
        self.pids: list[int] = []
        self.socket = f"sb-{self.agent}-{os.getpid()}"

    # --- what a CLI module fills in ----------------------------------------------------------------

    def set_up_home(self):
        """Its settings in `self.home`, before `switchboard install`."""

    def check_install(self, out: subprocess.CompletedProcess) -> Path:
        """Checks what `switchboard install <cli>` wrote; the file it wrote."""
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        raise NotImplementedError

    def configure(self):
        """Its settings that name the fake (`self.fake.url`), once the fake runs."""

    def serve_env(self) -> dict[str, str]:
        """Variables serve needs to find what the CLI writes in its temporary home."""
        return {}

    def command(self) -> list[str]:
        raise NotImplementedError

    def done_with(self, answer: str) -> Callable[[dict], bool]:
        """Done, with what its card says after that answer."""
        return lambda s: s["status"] == "done" and (s.get("message") or "") == answer

    def after_first_turn(self):
        """A check of its own once the first turn is done."""

    def own_scenarios(self):
        """Scenarios of its own, after the board's Allow / Deny and before it exits."""

    # --- set-up ----------------------------------------------------------------------------------

    def prepare(self):
        self.home.mkdir(parents=True)
        self.ws.mkdir()
        self.set_up_home()
        install = [str(self.ctx.bin), "install", self.agent]
        env = {**os.environ, "HOME": str(self.home)}
        written = self.check_install(subprocess.run(install, capture_output=True, text=True, env=env, timeout=30))
        before = written.read_text() if written.exists() else ""
        again = subprocess.run(install, capture_output=True, text=True, env=env, timeout=30)
        self.report.check("installing again changes nothing",
                          again.returncode == 0 and written.exists() and written.read_text() == before,
                          again.stdout + again.stderr)
        self.fake = FakeOpenAI(scripts(self.shell_tool, self.ask_call)).start()
        self.configure()
        self.serve = harness.Serve(self.ctx.workdir, self.serve_env())

    def launch(self) -> bool:
        if self.tmux:
            self.tmux.kill()
        self.tmux = harness.Tmux(self.socket, self.command(), self.env(), self.ws)
        pid = self.tmux.pane_pid()
        if pid:
            self.pids.append(pid)
        return bool(self.tmux.wait_text(self.ready, 60))

    # --- driving ---------------------------------------------------------------------------------

    def idle(self, timeout: float = 30) -> bool:
        def check():
            screen = self.tmux.screen()
            return self.ready in screen and self.busy not in screen
        return bool(harness.wait_until(check, timeout, 0.2))

    def prompt(self, text_: str):
        """Types a prompt, and Enter once the composer shows all of it: its start alone may be the
        previous prompt's, still on screen above (board-allow's before board-deny's)."""
        self.since = time.time() * 1000
        self.tmux.type(text_, enter=False)
        head, tail = text_.strip()[:16], text_.strip()[-16:]

        def drawn() -> bool:
            screen = self.tmux.screen()
            at = screen.rfind(head)
            return at >= 0 and tail in screen[at:]
        if not harness.wait_until(drawn, 20, 0.05):
            raise AssertionError(f"the screen never showed {text_!r}:\n{self.tmux.screen()}")
        time.sleep(harness.PASTE_WINDOW_S)
        self.tmux.send("Enter")

    def press_until(self, key: str, moved: Callable[[], bool]) -> bool:
        """Presses `key` once on a dialog just drawn — past the CLI's input window
        (`harness.PASTE_WINDOW_S`), as a key typed the instant a dialog is drawn can land before
        the dialog listens — and waits until `moved` says the CLI took it."""
        time.sleep(harness.PASTE_WINDOW_S)
        self.tmux.send(key)
        return bool(harness.wait_until(moved, 15))

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

    def barrier(self):
        """Returns once serve has applied every event sent before this call: a `custom` event sent
        now is applied after them (one hub, in order), and it is waited for."""
        marker = f"barrier-{time.monotonic_ns()}"
        payload = json.dumps({"sessionId": marker, "title": marker, "status": "done"})
        subprocess.run([str(harness.switchboard_bin()), "hook", "custom"], input=payload, text=True,
                       env=self.serve.env, timeout=10)
        harness.wait_until(lambda: self.serve.session(session_id=marker), 10)

    def close(self):
        for pid in self.pids:
            for p in [*reversed(harness.descendants(pid)), pid]:
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


def run(r: Run):
    report = r.report
    started = time.monotonic()
    try:
        report.scenario("setup and start-up")
        r.prepare()
        report.check(f"{r.agent} starts at its prompt", r.launch(), r.tmux.screen() if r.tmux else "")
        scenarios(r)
    finally:
        r.close()
        print(f"    {r.agent} module took {time.monotonic() - started:.0f} s", flush=True)


def scenarios(r: Run):
    report = r.report

    report.scenario("a plain turn")
    r.prompt("Say hello [[scenario:hello]]")
    s = r.serve.wait_session(lambda s: True, 30, agent=r.agent)
    report.check("the session appears with the first prompt", s is not None, f"no {r.agent} session")
    if s is None:
        return
    r.sid = s["sessionId"]
    r.expect("the turn ends → done", r.done_with("Hello! How can I help?"), 60)
    r.idle()
    r.after_first_turn()

    if r.usage_file:
        usage_scenario(r)

    scenarios_after_usage(r)


def usage_scenario(r: Run):
    report = r.report
    report.scenario("usage from its own record of the session")
    got = r.expect("tokens counted from its file: 100 in and 10 out per answer the fake sent",
                   lambda s: (lambda u: u.get("requests", 0) >= 1 and u.get("outputTokens") == 10 * u["requests"]
                              and u.get("inputTokens", 0) + u.get("cacheReadTokens", 0) == 100 * u["requests"]
                              and u.get("model") == r.model)(s.get("usage") or {}), 15)
    print(f"    usage: {(got or {}).get('usage')}", flush=True)


def scenarios_after_usage(r: Run):
    report = r.report

    if r.asks_at_terminal:
        report.scenario("a tool, approved at the terminal")
        r.prompt("Create a marker [[scenario:shell]]")
        r.tmux.wait_text(r.dialog, 20)
        r.expect("blocked at the permission prompt, with the command", lambda s: s["status"] == "blocked"
                 and s.get("command") == "touch sb_terminal.txt")
        r.press_until("Enter", lambda: (r.session() or {}).get("status") != "blocked")
    else:
        report.scenario(f"a tool, which {r.name} runs without asking")
        r.prompt("Create a marker [[scenario:shell]]")
    r.expect("the tool runs → done", r.done_with("Created the marker."), 30)
    report.check("the command ran", (r.ws / "sb_terminal.txt").exists())
    r.idle()

    if r.question_tool:
        report.scenario("a question")
        r.prompt("Ask me something [[scenario:ask]]")
        r.expect("waiting with the question and its options", lambda s: s["status"] == "waiting"
                 and s.get("question") == ASK and len((s.get("questions") or [{}])[0].get("options") or []) == 2)
        r.tmux.wait_text(CHOICES[0], 20)
        # Enter picks the highlighted (first) choice; a picker may select first and submit second.
        r.press_until("Enter", lambda: (r.session() or {}).get("status") != "waiting")
        r.expect("answered → working → done", r.done_with("Going with PostgreSQL."), 30)
        r.idle()

    if r.question_tool:
        report.scenario("a question answered from the board")
        r.prompt("Ask me again [[scenario:ask-board]]")
        r.expect("waiting with the question", lambda s: s["status"] == "waiting" and s.get("question") == ASK)
        r.tmux.wait_text(CHOICES[1], 20)
        results = len(r.fake.tool_results)
        # Answered once: the board types the option when the dialog stands still (issue 46).
        code, said = r.serve.answer(r.sid, "2")
        report.check(f"`switchboard answer 2` exits 0 once {r.name} took it", code == 0, said)
        print(f"    {said.strip()}", flush=True)
        if r.cursor_line:
            report.check("one ↓ from the cursor on the first option, then Enter", "↓ Enter" in said, said)
        r.expect("the second option → done", r.done_with("Noted your choice."), 30)
        report.check("the model got the second option", harness.wait_until(
            lambda: any(CHOICES[1] in t for t in r.fake.tool_results[results:]), 10), r.fake.tool_results[results:])
        r.idle()

    if r.question_tool and r.cursor_line:
        cursor_scenario(r)

    report.scenario("Esc while streaming")
    r.prompt("Think slowly [[scenario:stream]]")
    r.tmux.wait_text(r"think about this", 20)
    r.expect("working while it streams", lambda s: s["status"] == "working")
    # A CLI that stops on a second Esc says so after the first ("esc again to interrupt"): the
    # second is pressed once it does (both at once read as one Alt+Esc under load).
    first, *more = r.interrupt_keys
    r.tmux.send(first)
    for key in more:
        armed = r.tmux.wait_text(r"esc again to interrupt", 10, 0.02)
        report.check("the first Esc arms the interrupt (\"esc again to interrupt\")", armed is not None,
                     r.tmux.screen()[-400:])
        r.tmux.send(key)
    r.expect("no turn-end hook; done · interrupted", lambda s: s["status"] == "done" and s["interrupted"], 20)
    r.idle()
    r.tmux.send("C-u")  # the cancelled prompt may come back into the input box

    report.scenario("an API error")
    r.prompt("Fail please [[scenario:e400]]")
    r.expect(f"{r.error_event} → done · errored, saying what failed", lambda s: s["status"] == "done"
             and s["errored"] and "400" in (s.get("message") or ""), 60)
    r.idle(60)

    report.scenario("a reply from the board")
    start = len(r.fake.user_texts)
    code, out = r.serve.reply(r.sid, "Tell me you got this [[scenario:reply]]")
    report.check(f"`switchboard reply` exits 0 once {r.name} took it", code == 0, out)
    # The CLI confirms with its new-turn hook, which fires before its model request.
    report.check("the model received the reply's text",
                 harness.wait_until(lambda: r.fake.got("Tell me you got this", start), 20), r.fake.user_texts[start:])
    r.since = 0
    r.expect("the reply's turn ends done", r.done_with("Got your reply."), 30)
    r.idle()

    twin_scenario(r)
    board_scenarios(r)
    r.own_scenarios()

    report.scenario(f"exit with {r.exit_command}")
    r.prompt(r.exit_command)
    r.expect("its session-end hook → ended", lambda s: s["ended"], 20)

    report.scenario("agent killed (kill -9)")
    report.check(f"{r.agent} starts again", r.launch(), r.tmux.screen())
    r.sid = None
    r.prompt("Say hello again [[scenario:hello]]")
    fresh = r.serve.wait_session(lambda s: not s["ended"] and s["status"] == "done", 60, agent=r.agent,
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
            report.check("no session-end hook; the process watch ends the session", bool(ended), brief(r.session()))


def twin_scenario(r: Run):
    """Issue 48: twin panes (`harness.twin_panes`)."""
    harness.twin_panes(r.report, r.tmux, r.serve, r.agent, r.name, r.sid, r.command(), r.env(), r.ws,
                       lambda screen: r.ready in screen and r.busy not in screen)
    r.idle()


def cursor_scenario(r: Run):
    """Issue 48: a form that picks with ↑/↓ from wherever its cursor is. The user moved the cursor
    to the second option at the terminal; the board's option 1 (through the answer route the
    board's buttons and scripts use) counts the arrows from there, up, not from the top."""
    report = r.report
    report.scenario("a question answered from the board after its cursor moved at the terminal")
    r.prompt("Ask me once more [[scenario:ask-board]]")
    r.expect("waiting with the question", lambda s: s["status"] == "waiting" and s.get("question") == ASK)
    r.tmux.wait_text(r.cursor_line.format(label=CHOICES[0]), 20)
    on_second = r.cursor_line.format(label=CHOICES[1])
    r.press_until("Down", lambda: on_second in r.tmux.screen())
    report.check("the cursor is on the second option", on_second in r.tmux.screen(), r.tmux.screen()[-600:])
    results = len(r.fake.tool_results)
    status, said = r.serve.answer_route(r.sid, 1)
    report.check(f"the answer route's option 1 returns 200 once {r.name} took it, ↑ then Enter typed",
                 status == 200 and '"↑ Enter"' in said, f"{status} {said}")
    print(f"    POST /answer?option=1 → {status} {said}", flush=True)
    r.expect("the first option → done", r.done_with("Noted your choice."), 30)
    report.check("the model got the first option, not the one under the cursor", harness.wait_until(
        lambda: any(CHOICES[0] in t for t in r.fake.tool_results[results:]), 10)
        and not any(CHOICES[1] in t for t in r.fake.tool_results[results:]), r.fake.tool_results[results:])
    r.idle()


def board_scenarios(r: Run):
    """Its permission hook held for the board's answer (serve under SWITCHBOARD_DECIDE)."""
    report = r.report
    r.serve.halt()
    r.serve.start({"SWITCHBOARD_DECIDE": r.agent})
    for verdict in ("allow", "deny"):
        report.scenario(f"permission {'allowed' if verdict == 'allow' else 'denied'} from Switchboard")
        file = "sb_allowed.txt" if verdict == "allow" else "sb_denied.txt"
        r.prompt(f"Create a file from the board [[scenario:board-{verdict}]]")
        held = r.expect("its permission hook held → blocked, Allow / Deny on offer",
                        lambda s: s["status"] == "blocked" and s.get("command") == f"touch {file}"
                        and isinstance(s.get("decision"), int), 30)
        if not held:
            continue
        screen = r.tmux.screen()
        if r.dialog_while_held:
            shown = r.tmux.wait_text(r.dialog, 10)
            report.check("its own dialog is open too", bool(shown), screen[-600:])
        else:
            report.check("no dialog in the terminal while the board holds it",
                         not re.search(r.dialog, screen), screen[-600:])
        report.check("the answer is accepted", r.serve.decide(r.sid, held["decision"], verdict) == 204)
        if verdict == "allow":
            r.expect("allowed → the command runs → done", r.done_with("Created sb_allowed.txt."), 30)
            report.check("the command ran", (r.ws / file).exists())
        else:
            r.expect(f"denied → {r.name} goes on without it → done",
                     r.done_with("Understood, I did not create the file."), 30)
            report.check("the command did not run", not (r.ws / file).exists())
            report.check("the model was told the user denied it",
                         any("denied this from Switchboard" in t for t in r.fake.tool_results), r.fake.tool_results[-3:])
        r.idle()
    remote_board_scenario(r)
    phone_scenario(r)


def remote_board_scenario(r: Run):
    """Issue 48: this machine followed by another board as the remote `box` (`harness.Desk`): the
    session is there with its host, blocked with Allow / Deny on offer, and Allow from that board
    runs the command here."""
    report = r.report
    report.scenario("permission allowed from a board following this machine (remote)")
    desk = harness.Desk(r.root / "desk", r.serve, str(r.home))
    try:
        report.check("`switchboard remote add box -- …`", desk.added.returncode == 0,
                     desk.added.stdout + desk.added.stderr)
        linked = desk.wait(r.sid, lambda s: s.get("host") == "box" and s["status"] == "done", 30)
        report.check("the session is on the following board, done, host `box`", linked is not None,
                     [s["sessionId"] for s in desk.serve.sessions()])
        r.prompt("Create a file from another board [[scenario:board-remote]]")
        held = desk.wait(r.sid, lambda s: s["status"] == "blocked" and s.get("command") == "touch sb_remote.txt"
                         and isinstance(s.get("decision"), int), 30)
        report.check("blocked there, with the command, Allow / Deny on offer", held is not None,
                     brief(desk.session(r.sid)))
        if held is None:
            return
        report.check("Allow from that board is accepted", desk.decide(r.sid, held["decision"], "allow") == 204)
        done = desk.wait(r.sid, r.done_with("Created sb_remote.txt."), 30)
        report.check("→ the command runs → done there", done is not None, brief(desk.session(r.sid)))
        report.check("the command ran on this machine", (r.ws / "sb_remote.txt").exists())
        listed = desk.listed()
        report.check("`remote list` says connected, with its sessions",
                     listed.get("state") == "connected" and listed.get("sessions", 0) >= 1, listed)
        r.idle()
    finally:
        desk.stop()


def phone_scenario(r: Run):
    """Issue 49: the held permission answered by a tap on the phone's push — a stand-in ntfy
    server and phone (fake_ntfy.py), the session's words off: Allow and Deny as buttons, no
    command in the push; the tap runs the command here, and a follow-up push says so."""
    report = r.report
    report.scenario("permission allowed from the phone (ntfy)")
    setup = fake_ntfy.PhoneSetup()
    r.serve.halt()
    setup.apply(r.serve.state)
    r.serve.start({"SWITCHBOARD_DECIDE": r.agent})
    try:
        report.check("serve subscribes to the reply topic, with its token",
                     harness.wait_until(setup.subscribed, 10) is not None, setup.ntfy.subscriptions)
        r.prompt("Create a file from the phone [[scenario:board-phone]]")
        held = r.expect("its permission hook held → blocked, Allow / Deny on offer",
                        lambda s: s["status"] == "blocked" and s.get("command") == "touch sb_phone.txt"
                        and isinstance(s.get("decision"), int), 30)
        if not held:
            return
        with_buttons = lambda m: r.sid[:8] in m.get("title", "") + m.get("message", "") and setup.phone.labels(m)
        pushed = harness.wait_until(lambda: setup.phone.find(with_buttons), 10)
        report.check("the push reaches the phone with Allow and Deny",
                     pushed is not None and setup.phone.labels(pushed) == ["Allow", "Deny"], setup.ntfy.on("agents"))
        if pushed is None:
            return
        text_ = json.dumps(pushed)
        report.check("text off: no command in the push", "touch" not in text_ and "sb_phone" not in text_, text_)
        time.sleep(harness.PASTE_WINDOW_S)  # a person's tap is never the instant the push arrives
        tapped = time.monotonic()
        report.check("the phone taps Allow (ntfy takes it)", setup.phone.tap(pushed, "Allow") == 200)
        done = r.expect("allowed from the phone → the command runs → done", r.done_with("Created sb_phone.txt."), 30)
        if done:
            print(f"    tap → done on the board {1000 * (time.monotonic() - tapped):.0f} ms", flush=True)
        report.check("the command ran", (r.ws / "sb_phone.txt").exists())
        allowed = harness.wait_until(lambda: setup.said("Allowed from phone"), 10)
        report.check("a follow-up push says it was allowed from the phone, without the command",
                     allowed is not None and "touch" not in json.dumps(allowed), setup.ntfy.on("agents"))
        r.idle()
    finally:
        r.serve.halt()
        setup.restore()
        r.serve.start({"SWITCHBOARD_DECIDE": r.agent})
