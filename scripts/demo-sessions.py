#!/usr/bin/env python3
"""Posts a dozen sessions in every state to a running Switchboard, as the CLIs would.

    SWITCHBOARD_HOME=... scripts/demo-sessions.py

Used for the README screenshot and to try the canvas without real agents.
"""
import json
import os
import pathlib
import time
import urllib.request

home = pathlib.Path(os.environ.get("SWITCHBOARD_HOME") or pathlib.Path.home() / ".local/share/dev.switchboard.app")
endpoint = json.loads((home / "endpoint.json").read_text())


def post(agent, body):
    url = f"http://127.0.0.1:{endpoint['port']}/hook/{agent}?key={endpoint['key']}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    urllib.request.urlopen(request, timeout=5).read()


def hook(agent, sid, event, cwd, **fields):
    post(agent, {"hook_event_name": event, "session_id": sid, "cwd": cwd, **fields})


H = "/home/ana/src"
# Claude: blocked on a permission
hook("claude", "c-auth", "SessionStart", f"{H}/webapp", session_title="auth-refactor")
hook("claude", "c-auth", "UserPromptSubmit", f"{H}/webapp")
hook("claude", "c-auth", "PermissionRequest", f"{H}/webapp", tool_name="Bash", tool_input={"command": "rm -rf dist && npm run build"})
# Claude: asks a question
hook("claude", "c-ui", "UserPromptSubmit", f"{H}/design-system")
hook("claude", "c-ui", "PreToolUse", f"{H}/design-system", tool_name="AskUserQuestion",
     tool_input={"questions": [{"question": "Should the Button keep its legacy `kind` prop as an alias?"}]})
# Codex: request_user_input held across Stop
hook("codex", "x-deploy", "UserPromptSubmit", f"{H}/infra")
hook("codex", "x-deploy", "PreToolUse", f"{H}/infra", tool_name="request_user_input",
     tool_input={"questions": [{"question": "Deploy to staging or production?"}]})
hook("codex", "x-deploy", "Stop", f"{H}/infra", last_assistant_message="Waiting for your choice.")
# Working sessions
hook("claude", "c-tests", "UserPromptSubmit", f"{H}/api", prompt="Make the API tests pass on CI")
hook("claude", "c-tests", "PreToolUse", f"{H}/api", tool_name="Bash", tool_input={"command": "cargo test"})
hook("claude", "c-tests", "SubagentStart", f"{H}/api", agent_id="a1")
hook("claude", "c-tests", "SubagentStart", f"{H}/api", agent_id="a2")
hook("gemini", "g-docs", "BeforeAgent", f"{H}/docs", prompt="Proofread the getting-started guide")
hook("gemini", "g-docs", "BeforeTool", f"{H}/docs", tool_name="read_file")
hook("codex", "x-parser", "UserPromptSubmit", f"{H}/parser", prompt="Benchmark the new parser against the old one")
hook("codex", "x-parser", "PreToolUse", f"{H}/parser", tool_name="Bash", tool_input={"command": "cargo bench"})
# Done
hook("claude", "c-readme", "UserPromptSubmit", f"{H}/webapp")
hook("claude", "c-readme", "Stop", f"{H}/webapp", last_assistant_message="Rewrote the README: install, usage and a troubleshooting section.")
hook("gemini", "g-lint", "BeforeAgent", f"{H}/mobile")
hook("gemini", "g-lint", "AfterAgent", f"{H}/mobile", prompt_response="Fixed 14 lint warnings; no behaviour change.")
# Errored
hook("claude", "c-migrate", "UserPromptSubmit", f"{H}/billing")
hook("claude", "c-migrate", "StopFailure", f"{H}/billing", error="rate_limit", last_assistant_message="API Error: Rate limit reached")
# Interrupted
hook("codex", "x-refactor", "UserPromptSubmit", f"{H}/cli")
hook("codex", "x-refactor", "Interrupt", f"{H}/cli")
# Gemini blocked
hook("gemini", "g-shell", "BeforeAgent", f"{H}/scripts")
hook("gemini", "g-shell", "Notification", f"{H}/scripts", notification_type="ToolPermission", message="Allow execution of: ./deploy.sh --force?")
# Ended
hook("claude", "c-old", "UserPromptSubmit", f"{H}/legacy")
hook("claude", "c-old", "Stop", f"{H}/legacy", last_assistant_message="Removed the deprecated v1 endpoints.")
hook("claude", "c-old", "SessionEnd", f"{H}/legacy", reason="prompt_input_exit")
# A custom script
post("custom", {"sessionId": "nightly", "agent": "nightly-build", "status": "working", "title": "Nightly build", "cwd": f"{H}/ci", "tool": "make"})
time.sleep(0.2)
print("posted 13 sessions")
