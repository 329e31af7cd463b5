"""A fake Anthropic Messages API for the real Claude Code: `POST /v1/messages` answered with
scripted SSE streams, picked by a `[[scenario:<name>]]` marker in the user's prompt.

Standard library only. Each scenario is a list of turns; turn N answers the N-th model call after
the prompt (the prompt itself, then each tool result). A request whose newest user message
carries no marker and no tool result (a title, a compaction summary, a side query) gets a short
plain answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

from harness import read_request

MARKER = re.compile(r"\[\[scenario:([a-z0-9_-]+)\]\]")
DEFAULT_TEXT = "Fake session"


def text(body: str, delay: float = 0.0) -> dict:
    """A text answer; `delay` seconds between words makes a slow stream (for Esc)."""
    return {"text": body, "delay": delay}


def tool(name: str, tool_input: dict) -> dict:
    return {"tool": name, "input": tool_input}


def error(status: int, kind: str, message: str) -> dict:
    return {"error": status, "kind": kind, "message": message}


QUESTION = "Which color should the button be?"
SLOW_STORY = " ".join(["Once upon a time there was a very long story that went on and on."] * 40)

SCENARIOS: dict[str, list[dict]] = {
    "read": [tool("Read", {"file_path": "{cwd}/notes.txt"}), text("The notes file says hello. All done.")],
    # The answer after the tool streams slowly, so that the node shows `working` for a moment.
    "perm": [tool("Bash", {"command": "touch created-by-claude.txt", "description": "Create an empty file"}),
             text("Created the file created-by-claude.txt.", delay=0.8)],
    "perm2": [tool("Bash", {"command": "touch second-file.txt", "description": "Create another file"}),
              text("Created second-file.txt.")],
    # Issue 14: permissions answered from Switchboard, at the terminal while held, and with the
    # app closed. The answer after a deny is what the model says to the refusal.
    "board-allow": [tool("Bash", {"command": "touch allowed-from-board.txt", "description": "Create a file"}),
                    text("Created allowed-from-board.txt.")],
    # Issue 49: the same, allowed by a tap on the phone's push (ntfy's action button).
    "board-phone": [tool("Bash", {"command": "touch allowed-from-phone.txt", "description": "Create a file"}),
                    text("Created allowed-from-phone.txt.")],
    # Issue 23: the same, answered from another machine's board following this one.
    # Issue 48: the same, in a session Claude runs in the background (`claude --bg`).
    "board-bg": [tool("Bash", {"command": "touch allowed-in-the-background.txt", "description": "Create a file"}),
                 text("Created allowed-in-the-background.txt.")],
    "board-remote": [tool("Bash", {"command": "touch allowed-from-afar.txt", "description": "Create a file"}),
                     text("Created allowed-from-afar.txt.")],
    # Issue 49: the same, from the phone, for a session on a remote box.
    "phone-remote": [tool("Bash", {"command": "touch allowed-from-afar-by-phone.txt", "description": "Create a file"}),
                     text("Created allowed-from-afar-by-phone.txt.")],
    "board-deny": [tool("Bash", {"command": "touch denied-from-board.txt", "description": "Create a file"}),
                   text("Understood, I did not create the file.")],
    "board-terminal": [tool("Bash", {"command": "touch answered-in-terminal.txt", "description": "Create a file"}),
                       text("Created answered-in-terminal.txt.")],
    "board-closed": [tool("Bash", {"command": "touch app-closed.txt", "description": "Create a file"}),
                     text("Created app-closed.txt.")],
    "ask": [tool("AskUserQuestion", {"questions": [{
        "question": QUESTION, "header": "Color", "multiSelect": False,
        "options": [{"label": "Red", "description": "A red button"},
                    {"label": "Blue", "description": "A blue button"}]}]}),
            text("Great, I will make the button that color.", delay=0.5)],
    "askplain": [text("Do you want me to use tabs or spaces? Please tell me.")],
    "sleep": [tool("Bash", {"command": "./slow.sh", "description": "Run the slow script"}),
              text("The slow script finished.")],
    "slowtext": [text(SLOW_STORY, delay=0.25)],
    "hello": [text("Hello! Nothing to do.")],
    "err400": [error(400, "invalid_request_error", "Bad request (fake)")],
    "err429": [error(429, "rate_limit_error", "Rate limited (fake)")],
    "err500": [error(500, "api_error", "Internal server error (fake)")],
    "sub": [tool("Agent", {"description": "Read the notes", "subagent_type": "general-purpose",
                           "prompt": "Read notes.txt and report. [[scenario:subchild]]"}),
            text("I started a background agent to read the notes.")],
    # The child is slow on purpose: the node must show the running subagent for a while.
    "subchild": [tool("Read", {"file_path": "{cwd}/notes.txt"}),
                 text("notes.txt says hello, and there is nothing else in it at all.", delay=0.5)],
}
# After the child finishes, Claude starts a turn by itself with a <task-notification> prompt.
TASK_NOTIFICATION_ANSWER = "The background agent finished: the notes say hello."


class FakeAnthropic:
    """The server, in a daemon thread; `log` keeps a short line per request for diagnostics."""

    def __init__(self, cwd: str):
        self.cwd = cwd
        self.log: list[str] = []
        # Every tool result the CLI sent back, as JSON text (issue 24: what an answer delivered).
        self.tool_results: list[str] = []
        # The usage sent with every response (issue 25): (label, had tools, input, output tokens).
        self.usage: list[tuple[str, bool, int, int]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                self._json(200, {})

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                raw, body = read_request(self)
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": 100})
                    return
                if not path.endswith("/v1/messages"):
                    self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
                    return
                turn, label = fake.pick(body)
                with fake.lock:
                    fake.log.append(f"{time.strftime('%H:%M:%S')} {label}")
                if "error" in turn:
                    self._json(turn["error"], {"type": "error",
                                               "error": {"type": turn["kind"], "message": turn["message"]}})
                    return
                try:
                    if body.get("stream"):
                        self._stream(body, turn, label)
                    else:
                        self._json(200, fake.message(body, turn, label))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the user pressed Esc: the CLI closed the stream

            def _json(self, status: int, obj: dict):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                self.wfile.write(data)

            def _event(self, name: str, data: dict):
                chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()

            def _stream(self, body: dict, turn: dict, label: str):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                message = fake.message(body, turn, label)
                content = message.pop("content")
                stop_reason = message["stop_reason"]
                message.update(content=[], stop_reason=None)
                self._event("message_start", {"type": "message_start", "message": message})
                for index, block in enumerate(content):
                    if block["type"] == "text":
                        self._event("content_block_start", {"type": "content_block_start", "index": index,
                                                            "content_block": {"type": "text", "text": ""}})
                        words = block["text"].split(" ")
                        step = 8 if not turn.get("delay") else 2
                        for i in range(0, len(words), step):
                            piece = " ".join(words[i:i + step]) + (" " if i + step < len(words) else "")
                            self._event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                                "delta": {"type": "text_delta", "text": piece}})
                            if turn.get("delay"):
                                time.sleep(turn["delay"])
                    else:
                        self._event("content_block_start", {"type": "content_block_start", "index": index,
                                                            "content_block": {**block, "input": {}}})
                        self._event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                            "delta": {"type": "input_json_delta",
                                                                      "partial_json": json.dumps(block["input"])}})
                    self._event("content_block_stop", {"type": "content_block_stop", "index": index})
                self._event("message_delta", {"type": "message_delta",
                                              "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                              "usage": {"output_tokens": message["usage"]["output_tokens"]}})
                self._event("message_stop", {"type": "message_stop"})
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pick(self, body: dict) -> tuple[dict, str]:
        """The scripted turn for this request, and a label for the log."""
        messages = [m for m in body.get("messages", []) if m.get("role") in ("user", "assistant")]
        if not messages or messages[-1].get("role") != "user":
            return text(DEFAULT_TEXT), "default (no user message)"
        last = messages[-1]
        prompt = _text_of(last)
        found = find_marker(prompt)
        if found and body.get("tools"):
            # A new prompt. After a refused or interrupted tool or a failed call it rides in one
            # user message with what came before: the newest marker wins.
            return self._turn(found, 0)
        if body.get("tools") and _has_tool_result(last):
            with self.lock:
                self.tool_results.append(json.dumps(last.get("content")))
            # A tool result: find the prompt that started this turn, count the calls since.
            for index in range(len(messages) - 1, -1, -1):
                message = messages[index]
                found = find_marker(_text_of(message)) if message["role"] == "user" else None
                if found:
                    steps = sum(1 for m in messages[index + 1:] if m["role"] == "assistant")
                    return self._turn(found, steps)
                if message["role"] == "user" and not _has_tool_result(message):
                    break  # a prompt without a marker: not ours
            return text(DEFAULT_TEXT), "default (tool result)"
        if "<task-notification>" in prompt and body.get("tools"):
            return text(TASK_NOTIFICATION_ANSWER), "task-notification"
        return text(DEFAULT_TEXT), "default" + (" (no tools)" if not body.get("tools") else "")

    def _turn(self, scenario: str, step: int) -> tuple[dict, str]:
        turns = SCENARIOS.get(scenario)
        if not turns:
            return text(DEFAULT_TEXT), f"unknown scenario {scenario}"
        turn = turns[min(step, len(turns) - 1)]
        return turn, f"{scenario}#{step}"

    def message(self, body: dict, turn: dict, label: str = "") -> dict:
        if "tool" in turn:
            tool_input = json.loads(json.dumps(turn["input"]).replace("{cwd}", self.cwd))
            content = [{"type": "tool_use", "id": "toolu_fake_" + uuid.uuid4().hex[:16], "name": turn["tool"],
                        "input": tool_input}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": turn["text"]}]
            stop = "end_turn"
        # Tokens that differ per response and fill a real share of the window (issue 25 checks
        # the board's sums and context % against what was sent here).
        with self.lock:
            tokens = (30_000 + 7 * len(self.usage), 20 + len(self.usage) % 5)
            self.usage.append((label, bool(body.get("tools")), *tokens))
        return {"id": "msg_fake_" + uuid.uuid4().hex[:16], "type": "message", "role": "assistant",
                "model": body.get("model") or "claude-fake", "content": content, "stop_reason": stop,
                "stop_sequence": None, "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1],
                                                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def _has_tool_result(message: dict) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def find_marker(text_: str) -> Optional[str]:
    """The newest `[[scenario:…]]` marker in a message."""
    found = MARKER.findall(text_)
    return found[-1] if found else None
