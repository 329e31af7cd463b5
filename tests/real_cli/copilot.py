"""GitHub Copilot CLI, driven in its interactive screen against a fake OpenAI-compatible server
(fake_openai.py): it runs with no GitHub account in its offline mode with a local provider
(`COPILOT_OFFLINE`, `COPILOT_PROVIDER_BASE_URL`), as docs/model.md §1.6 found. The
scenarios are `openai_tui.py`'s; what is Copilot's own is here.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Callable

import harness
import openai_tui
from fake_openai import call

PACKAGE = "@github/copilot"
VERSION = "1.0.102"
# Its first start unpacks ~235 MB: shared between runs.
XDG_CACHE = harness.CACHE / "copilot-xdg"


class Copilot(openai_tui.Run):
    agent = "copilot"
    name = "Copilot CLI"
    ready = "Manual Approval"  # the footer while idle
    busy = "Working"  # the footer while busy
    dialog = r"1\. Yes"
    exit_command = "/exit"
    interrupt_keys = ["Escape", "Escape"]  # "esc esc interrupt"
    model = "gpt-4.1"
    error_event = "errorOccurred"
    shell_tool = "bash"
    # Its ask_user form picks with ↑/↓ from wherever its cursor is (a typed `2` does nothing): the
    # board reads the cursor's line off the form and presses the arrows to the option, then Enter.
    cursor_line = "❯ {label}"
    ask_call = call("ask_user", message=openai_tui.ASK, requestedSchema={"properties": {"database": {
        "type": "string", "title": "Database", "enum": openai_tui.CHOICES}}})

    def set_up_home(self):
        package = harness.npm_package(PACKAGE, VERSION)
        # The npm loader only spawns the native binary: run it directly.
        self.binary = package.parent / "copilot-linux-x64" / "copilot"
        XDG_CACHE.mkdir(parents=True, exist_ok=True)
        (self.home / ".copilot").mkdir()
        (self.home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(self.ws)]}))
        (self.home / ".copilot" / "settings.json").write_text(json.dumps({"banner": "never", "autoUpdate": False}))

    def check_install(self, out: subprocess.CompletedProcess) -> Path:
        hooks_file = self.home / ".copilot" / "hooks" / "switchboard.json"
        installed = json.loads(hooks_file.read_text()) if hooks_file.exists() else {}
        held = (installed.get("hooks", {}).get("permissionRequest") or [{}])[0]
        self.report.check("`switchboard install copilot` wrote its own hooks file, each entry naming its event",
                          out.returncode == 0 and installed.get("version") == 1 and held.get("timeoutSec") == 130
                          and held.get("env") == {"SWITCHBOARD_HOOK_EVENT": "permissionRequest"}
                          and "bash" in held, out.stdout + out.stderr)
        return hooks_file

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
                "LANG": "C.UTF-8", "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
                "COPILOT_PROVIDER_BASE_URL": self.fake.url, "COPILOT_PROVIDER_API_KEY": "fake-key",
                "COPILOT_MODEL": "gpt-4.1", "SWITCHBOARD_HOME": str(self.serve.state),
                "XDG_CACHE_HOME": str(XDG_CACHE)}

    def command(self) -> list[str]:
        return [str(self.binary)]

    def done_with(self, answer: str) -> Callable[[dict], bool]:
        # Its agentStop does not carry the answer (and its event log has it only later): the card
        # says so plainly; the side effects and the fake's requests carry the checks.
        return lambda s: s["status"] == "done" and s.get("message") == "Finished its turn"


def run(ctx, report: harness.Report):
    openai_tui.run(Copilot(ctx, report))
