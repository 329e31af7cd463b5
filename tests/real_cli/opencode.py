"""OpenCode (`opencode-ai`), driven in its interactive screen against a fake OpenAI-compatible
server (fake_openai.py) as a custom provider, offline, as docs/model.md §1.8 found it
runs. OpenCode runs no hook commands: `switchboard install opencode` writes Switchboard's plugin,
which runs them. Its permission dialog is drawn at once, also while the board holds the
permission (whichever answer comes first wins); it keeps its sessions in SQLite, so there is no
usage scenario. The scenarios are `openai_tui.py`'s.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import harness
import openai_tui
from fake_openai import call

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
    usage_file = False

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

    def prepare(self):
        super().prepare()
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

    def command(self) -> list[str]:
        return [str(self.binary)]


def run(ctx, report: harness.Report):
    openai_tui.run(OpenCode(ctx, report))
