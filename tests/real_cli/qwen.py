"""Qwen Code, driven in its interactive screen against a fake OpenAI-compatible server
(fake_openai.py), as docs/model.md §1.5 found it runs offline. The scenarios are
`openai_tui.py`'s; what is Qwen's own is here.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import harness
import openai_tui
from fake_openai import call

PACKAGE = "@qwen-code/qwen-code"
VERSION = "0.24.4"


class Qwen(openai_tui.Run):
    agent = "qwen"
    name = "Qwen Code"
    ready = "Type your message"
    busy = "esc to cancel"
    dialog = r"allow once"
    exit_command = "/quit"
    interrupt_keys = ["Escape"]
    model = "fake-model"
    error_event = "StopFailure"
    shell_tool = "run_shell_command"
    ask_call = call("ask_user_question", questions=[{
        "question": openai_tui.ASK, "header": "Database", "multiSelect": False,
        "options": [{"label": "PostgreSQL", "description": "Relational server"},
                    {"label": "SQLite", "description": "Embedded file"}]}])

    def set_up_home(self):
        package = harness.npm_package(PACKAGE, VERSION)
        self.script = package / "cli.js"
        # The tarball ships its ripgrep without the execute bit.
        for rg in package.glob("vendor/ripgrep/*/rg"):
            rg.chmod(0o755)
        (self.home / ".qwen").mkdir()
        settings = {
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"name": "fake-model", "generationConfig": {"maxRetries": 0}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False},
            "ide": {"enabled": False},
            "tools": {"approvalMode": "default"},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "ui": {"enableFollowupSuggestions": False, "enableUserFeedback": False},
        }
        self.settings_file.write_text(json.dumps(settings, indent=2))

    @property
    def settings_file(self) -> Path:
        return self.home / ".qwen" / "settings.json"

    @property
    def notifications(self) -> Path:
        return self.root / "notifications.jsonl"

    def check_install(self, out: subprocess.CompletedProcess) -> Path:
        installed = json.loads(self.settings_file.read_text())
        hooks = installed.get("hooks", {})
        held = (hooks.get("PermissionRequest") or [{}])[0].get("hooks", [{}])[0]
        self.report.check("`switchboard install qwen` registered the hooks, the permission hook outlasting a hold",
                          out.returncode == 0 and "Notification" in hooks and held.get("timeout") == 130
                          and installed["model"]["name"] == "fake-model", out.stdout + out.stderr)
        return self.settings_file

    def prepare(self):
        super().prepare()
        # A recorder after our hook in the Notification group, run one after the other: when it has
        # written a notice, Switchboard's hook for it has returned.
        settings = json.loads(self.settings_file.read_text())
        group = settings["hooks"]["Notification"][0]
        group["sequential"] = True
        group["hooks"].append({"type": "command", "timeout": 5,
                               "command": f"cat >> '{self.notifications}'; echo >> '{self.notifications}'"})
        self.settings_file.write_text(json.dumps(settings, indent=2))

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "OPENAI_API_KEY": "fake-key", "OPENAI_BASE_URL": self.fake.url,
                "OPENAI_MODEL": "fake-model", "SWITCHBOARD_HOME": str(self.serve.state)}

    def command(self) -> list[str]:
        return ["node", str(self.script)]

    def after_first_turn(self):
        # Its idle notice follows Stop by up to a second, every time: it must leave a done turn as
        # it is. Waited for (the recorder saw it), then past a barrier (serve applied it).
        def idle_notices() -> int:
            lines = self.notifications.read_text().splitlines() if self.notifications.exists() else []
            return sum(1 for line in lines if '"idle_prompt"' in line)
        seen = harness.wait_until(lambda: idle_notices() >= 1, 15)
        self.barrier()
        s = self.session() or {}
        self.report.check("its idle notice after Stop leaves done as it is (not interrupted)",
                          bool(seen) and s.get("status") == "done" and not s.get("interrupted"),
                          f"idle notices seen: {idle_notices()}; {openai_tui.brief(s)}")


def run(ctx, report: harness.Report):
    openai_tui.run(Qwen(ctx, report))
