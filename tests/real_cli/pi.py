"""pi (`@mariozechner/pi-coding-agent`), driven in its interactive screen against a fake
OpenAI-compatible server (fake_openai.py) as a custom provider, offline (`PI_OFFLINE`), as
docs/model.md §1.7 found it runs. pi runs no hook commands: `switchboard install pi`
writes Switchboard's extension, which runs them. pi never asks before a tool and has no question
tool, so its tool scenario checks the tool runs unasked, and its board scenarios check the hold the
extension makes when the user turned Allow / Deny on for pi. The scenarios are `openai_tui.py`'s.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import harness
import openai_tui
from fake_openai import call, text

PACKAGE = "@mariozechner/pi-coding-agent"
VERSION = "0.73.1"


class Pi(openai_tui.Run):
    agent = "pi"
    name = "pi"
    ready = "fake-model"  # the footer names the model
    busy = "Working"
    dialog = r"Allow bash"  # the extension's own dialog, drawn only when the board does not answer
    exit_command = "/quit"
    interrupt_keys = ["Escape"]
    model = "fake-model"
    error_event = "agent_end"
    shell_tool = "bash"
    asks_at_terminal = False
    question_tool = False

    def set_up_home(self):
        package = harness.npm_package(PACKAGE, VERSION)
        self.script = package / "dist" / "cli.js"
        agent = self.home / ".pi" / "agent"
        agent.mkdir(parents=True)
        (agent / "settings.json").write_text(json.dumps({
            "defaultProvider": "fake", "defaultModel": "fake-model", "enableInstallTelemetry": False,
            "quietStartup": True, "retry": {"enabled": False}}))

    def configure(self):
        (self.home / ".pi" / "agent" / "models.json").write_text(json.dumps({"providers": {"fake": {
            "baseUrl": self.fake.url, "api": "openai-completions", "apiKey": "FAKE_API_KEY",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "fake-model", "name": "Fake Model", "contextWindow": 128000, "maxTokens": 4096}]}}}))

    def check_install(self, out: subprocess.CompletedProcess) -> Path:
        agent = self.home / ".pi" / "agent"
        hooks_file = agent / "switchboard-hooks.json"
        installed = json.loads(hooks_file.read_text()) if hooks_file.exists() else {}
        held = (installed.get("hooks", {}).get("tool_call") or [{}])[0]
        extension = agent / "extensions" / "switchboard.ts"
        self.report.check("`switchboard install pi` wrote its hooks file and the extension that runs it",
                          out.returncode == 0 and installed.get("version") == 1 and held.get("timeout") == 130
                          and extension.exists() and "agent_end" in installed.get("hooks", {}),
                          out.stdout + out.stderr)
        return hooks_file

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0",
                "FAKE_API_KEY": "sk-fake-not-a-secret", "SWITCHBOARD_HOME": str(self.serve.state)}

    def own_scenarios(self):
        """A hold nobody answers: pi, which never asks by itself, asks in the extension's dialog."""
        report = self.report
        report.scenario("a hold nobody answers → pi asks in its own dialog")
        self.serve.halt()
        (self.serve.state / "settings.json").write_text(json.dumps({"decide": ["pi"], "holdSeconds": 5}))
        self.serve.start()
        self.fake.scripts["board-late"] = [call("bash", **openai_tui.shell("touch sb_late.txt")),
                                           text("Created sb_late.txt.")]
        self.prompt("Create a file while nobody watches [[scenario:board-late]]")
        self.expect("held → blocked, Allow / Deny on offer", lambda s: s["status"] == "blocked"
                    and isinstance(s.get("decision"), int), 30)
        asked = self.tmux.wait_text(self.dialog, 30)
        report.check("after the hold, pi's own dialog asks", bool(asked), self.tmux.screen()[-600:])
        report.check("nothing ran before the user answered", not (self.ws / "sb_late.txt").exists())
        self.press_until("Enter", lambda: (self.ws / "sb_late.txt").exists())
        self.expect("allowed in pi → the command runs → done", self.done_with("Created sb_late.txt."), 30)
        self.idle()

    def command(self) -> list[str]:
        return ["node", str(self.script)]


def run(ctx, report: harness.Report):
    openai_tui.run(Pi(ctx, report))
