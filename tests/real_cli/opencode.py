"""OpenCode (`opencode-ai`), driven in its interactive screen against a fake OpenAI-compatible
server (fake_openai.py) as a custom provider, offline, as docs/model.md §1.8 found it
runs. OpenCode runs no hook commands: `switchboard install opencode` writes Switchboard's plugin,
which runs them. Its permission dialog is drawn at once, also while the board holds the
permission (whichever answer comes first wins). It keeps its sessions in SQLite: the usage
scenario checks what the board read there against what the fake reported, each answer its own
numbers. Its own scenario starts it with `--port N`, as scripts and editors do. The other
scenarios are `openai_tui.py`'s.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Optional

import harness
import openai_tui
from fake_openai import call, slow, text

PACKAGE = "opencode-ai"
VERSION = "1.18.33"


class OpenCode(openai_tui.Run):
    agent = "opencode"
    name = "OpenCode"
    ready = "Fake Model"  # the composer names the model, also once a session is open
    busy = "esc interrupt"
    dialog = r"Permission required"
    exit_command = "/exit"
    interrupt_keys = ["Escape", "Escape"]  # the first Esc only arms it
    model = "fake-model"
    error_event = "session.idle"
    shell_tool = "bash"
    ask_call = call("question", questions=[{
        "question": openai_tui.ASK, "header": "Database", "multiple": False,
        "options": [{"label": "PostgreSQL", "description": "Relational server"},
                    {"label": "SQLite", "description": "Embedded file"}]}])
    dialog_while_held = True
    usage_file = False  # its usage is checked from its database, in after_first_turn
    port: Optional[int] = None  # started with `--port <port>` when set

    @property
    def config(self) -> Path:
        return self.home / ".config" / "opencode"

    def set_up_home(self):
        package = harness.npm_package(PACKAGE, VERSION)
        # The launcher package's postinstall links the native binary for this machine here.
        self.binary = package / "bin" / "opencode.exe"
        self.config.mkdir(parents=True)
        # At every start OpenCode npm-installs its plugin package into its config folder unless it
        # is there: offline that hangs ~70 s. Seeded as installed.
        (self.config / "node_modules").mkdir()
        (self.config / "package-lock.json").write_text(json.dumps(
            {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": VERSION}}}}))
        (self.home / ".npmrc").write_text("registry=http://127.0.0.1:9/\noffline=true\nfetch-retries=0\n")

    def configure(self):
        # Each answer reports its own numbers, a part of the prompt read from the cache.
        self.fake.usage_of = lambda n: {"prompt_tokens": 1000 + 37 * n, "completion_tokens": 20 + 3 * n,
                                        "total_tokens": 1020 + 40 * n,
                                        "prompt_tokens_details": {"cached_tokens": 200 + n}}
        (self.config / "opencode.json").write_text(json.dumps({
            "model": "fake/fake-model", "small_model": "fake/fake-model", "autoupdate": False,
            "share": "disabled", "enabled_providers": ["fake"],
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": self.fake.url, "apiKey": "sk-fake-not-a-secret"},
                                  "models": {"fake-model": {"name": "Fake Model", "tool_call": True,
                                                            "limit": {"context": 128000, "output": 4096}}}}},
            "permission": {"bash": "ask", "edit": "ask"}}))

    def check_install(self, out: subprocess.CompletedProcess) -> Path:
        hooks_file = self.config / "switchboard-hooks.json"
        installed = json.loads(hooks_file.read_text()) if hooks_file.exists() else {}
        held = (installed.get("hooks", {}).get("permission.asked") or [{}])[0]
        plugin = self.config / "plugin" / "switchboard.js"
        self.report.check("`switchboard install opencode` wrote its hooks file and the plugin that runs it",
                          out.returncode == 0 and installed.get("version") == 1 and held.get("timeout") == 130
                          and plugin.exists() and "session.idle" in installed.get("hooks", {}),
                          out.stdout + out.stderr)
        return hooks_file

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "SWITCHBOARD_HOME": str(self.serve.state)}

    def serve_env(self) -> dict[str, str]:
        # Serve finds OpenCode's database as OpenCode does, under its data folder.
        return {"XDG_DATA_HOME": str(self.home / ".local" / "share")}

    def command(self) -> list[str]:
        return [str(self.binary), *(["--port", str(self.port)] if self.port else [])]

    def after_first_turn(self):
        """Usage read from its database equals what the fake reported for the turn's answers (the
        title request is OpenCode's own, not stored with the session)."""
        report = self.report
        report.scenario("usage from its database")
        sent = [u["usage"] for u in self.fake.usages if not u["title"]]
        prompt = sum(u["prompt_tokens"] for u in sent)
        cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in sent)
        last = sent[-1] if sent else {}
        expected = {"requests": len(sent), "inputTokens": prompt - cached, "cacheReadTokens": cached,
                    "cacheWriteTokens": 0, "outputTokens": sum(u["completion_tokens"] for u in sent),
                    "contextTokens": last.get("prompt_tokens", 0) + last.get("completion_tokens", 0),
                    "model": self.model}
        matches = lambda s: all((s.get("usage") or {}).get(k) == v for k, v in expected.items())
        got = harness.wait_until(lambda: (lambda s: s if s and matches(s) else None)(self.session()), 15)
        usage = (got or self.session() or {}).get("usage")
        report.check("the session's usage is the fake's counts for the turn", bool(got) and len(sent) == 1,
                     f"{usage}; expected {expected}")
        print(f"    usage: {usage}; the fake sent {sent}", flush=True)

    def own_scenarios(self):
        """Started with `--port N` (its HTTP server on that port), as scripts and editors start it."""
        report = self.report
        report.scenario("started with --port: its session, status and permission on the board")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        report.check(f"{self.agent} --port {self.port} starts at its prompt", self.launch(), self.tmux.screen())
        self.fake.scripts["port-slow"] = [slow("Taking my time ", seconds=3)]
        self.prompt("Take your time [[scenario:port-slow]]")
        found = self.serve.wait_session(lambda s: s["status"] == "working", 30, agent=self.agent,
                                        since_ms=int(self.since))
        report.check("its session appears, working", found is not None, openai_tui.brief(self.serve.session(agent=self.agent)))
        if found is None:
            return
        self.sid = found["sessionId"]
        self.expect("its turn ends → done", lambda s: s["status"] == "done"
                    and (s.get("message") or "").startswith("Taking my time"), 30)
        self.idle()
        self.fake.scripts["port-allow"] = [call(self.shell_tool, **openai_tui.shell("touch sb_port.txt")),
                                           text("Created sb_port.txt.")]
        self.prompt("Create a file from the board [[scenario:port-allow]]")
        held = self.expect("blocked at its permission, with the command, Allow / Deny on offer",
                           lambda s: s["status"] == "blocked" and s.get("command") == "touch sb_port.txt"
                           and isinstance(s.get("decision"), int), 30)
        if held:
            report.check("the board's Allow is accepted", self.serve.decide(self.sid, held["decision"], "allow") == 204)
            self.expect("allowed → the command runs → done", self.done_with("Created sb_port.txt."), 30)
            report.check("the command ran", (self.ws / "sb_port.txt").exists())
        self.idle()
        self.question_through_its_server()
        self.port = None  # the next start (after /exit) is a plain one

    def question_through_its_server(self):
        """Issue 48: its question held for the board like a permission, and the board's option
        given to OpenCode's own server (`/question/{id}/reply`), as its dialog does: nothing
        typed; OpenCode's `question.replied` closes it."""
        report = self.report
        report.scenario("a question answered from the board through its own server, nothing typed")
        self.fake.scripts["port-ask"] = [self.ask_call, text("Noted the choice from afar.")]
        self.prompt("Ask me through the server [[scenario:port-ask]]")
        held = self.expect("held → waiting with the question, the board's answer awaited",
                           lambda s: s["status"] == "waiting" and s.get("question") == openai_tui.ASK
                           and isinstance(s.get("decision"), int), 30)
        if held is None:
            return
        self.tmux.wait_text(openai_tui.CHOICES[1], 20)
        results = len(self.fake.tool_results)
        code, said = self.serve.answer(self.sid, "2")
        report.check("`switchboard answer 2` exits 0: answered through its hook, not typed",
                     code == 0 and "through" in said and "hook" in said and "typed" not in said, said)
        self.expect("its question.replied → the second option → done", self.done_with("Noted the choice from afar."), 30)
        report.check("the model got the second option", harness.wait_until(
            lambda: any(openai_tui.CHOICES[1] in t for t in self.fake.tool_results[results:]), 10),
            self.fake.tool_results[results:])
        self.idle()


def run(ctx, report: harness.Report):
    openai_tui.run(OpenCode(ctx, report))
