"""A fake OpenAI Responses API for Codex CLI: `POST /v1/responses`, streamed as SSE.

Standard library only. The turn to replay is chosen by a marker in the newest user message,
`[[scenario:<name>]]`; the step within it by how many tool outputs follow that message. A request
without tools is Codex's title request (json_schema `{title}`, answered with a short title) or a
`/compact` summary request (answered with a summary).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

from harness import read_request

MARKER = re.compile(r"\[\[scenario:([a-z0-9_-]+)\]\]")


def _text(message: str) -> dict:
    return {"kind": "text", "text": message}


def _call(name: str, arguments: dict, namespace: Optional[str] = None) -> dict:
    return {"kind": "call", "name": name, "arguments": arguments, "namespace": namespace}


# Each scenario: the answer to each model request of the turn, in order (step = number of tool
# outputs since the user's message). A step is a dict, or a list of dicts streamed in one response.
SCENARIOS: dict[str, list] = {
    "read": [_call("exec_command", {"cmd": "cat README.txt"}), _text("The README says hello. Done.")],
    "perm": [
        _call("exec_command", {"cmd": "sleep 2 && touch approved-marker.txt",
                               "sandbox_permissions": "require_escalated",
                               "justification": "Create a marker file outside the read-only sandbox"}),
        _text("Marker created."),
    ],
    # Issue 14: permissions answered from Switchboard, and with the app closed.
    **{f"board-{name}": [
        _call("exec_command", {"cmd": f"touch {name}-from-board.txt", "sandbox_permissions": "require_escalated",
                               "justification": "Create a file outside the read-only sandbox"}),
        _text(answer),
    ] for name, answer in [("allow", "Board file created."), ("deny", "Understood, not created."),
                           ("closed", "Created with the app closed."), ("remote", "Created from afar.")]},
    "ask": [
        _call("request_user_input", {"questions": [{
            "header": "Color", "id": "color", "question": "Which color should I use?",
            "options": [{"label": "Red (Recommended)", "description": "Warm"},
                        {"label": "Blue", "description": "Cool"}]}]}),
        _text("Using that color. Done."),
    ],
    "askplain": [_text("Should I use red or blue? Please tell me which color you prefer.")],
    "slowtool": [_call("exec_command", {"cmd": "sleep 20"}), _text("Slept.")],
    "slowstream": [{"kind": "slow", "text": "Counting slowly: " + " ".join(str(i) for i in range(1, 200))}],
    "err500": [{"kind": "http", "status": 500}],
    "err429": [{"kind": "http", "status": 429}],
    "err400": [{"kind": "http", "status": 400}],
    "subagent": [
        _call("spawn_agent", {"message": "List the files here. [[scenario:child]]"}, "multi_agent_v1"),
        {"kind": "wait_agent"},
        _text("The child agent finished. Done."),
    ],
    "child": [_call("exec_command", {"cmd": "ls"}), {"kind": "slow_text", "text": "Child: there is one README."}],
    "hello": [_text("Hello there. Done.")],
}


class FakeResponses:
    """The server, run in a daemon thread; `requests` keeps every body received."""

    def __init__(self):
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.counter = 0
        self.spawned: list[str] = []
        # The usage sent with every response (issue 25): (had tools, prompt_cache_key, input,
        # cached input, output tokens).
        self.usage: list[tuple[bool, str, int, int, int]] = []
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_id(self) -> int:
        with self.lock:
            self.counter += 1
            return self.counter

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                body = b'{"data": [], "models": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                raw, body = read_request(self)
                with fake.lock:
                    fake.requests.append(body)
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_error(404)
                    return
                try:
                    fake.answer(self, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    # --- choosing the answer -------------------------------------------------------------

    def choose(self, body: dict):
        items = body.get("input") or []
        if not body.get("tools"):
            fmt = (body.get("text") or {}).get("format") or {}
            if fmt.get("type") == "json_schema":
                return {"kind": "title"}
            return _text("Summary: the user ran scripted test turns against a fake model.")
        scenario, step = None, 0
        for item in items:
            if item.get("type") == "message" and item.get("role") == "user":
                found = MARKER.findall(_content_text(item))
                if found:
                    scenario, step = found[-1], 0
            elif item.get("type") in ("function_call_output", "custom_tool_call_output"):
                step += 1
        script = SCENARIOS.get(scenario or "", SCENARIOS["hello"])
        return script[min(step, len(script) - 1)]

    def answer(self, handler: BaseHTTPRequestHandler, body: dict):
        step = self.choose(body)
        kind = step["kind"]
        if kind == "http":
            status = step["status"]
            payload = json.dumps({"error": {"message": f"fake upstream error {status}",
                                            "type": "server_error" if status >= 500 else "invalid_request_error",
                                            "code": None}}).encode()
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            if status == 429:
                handler.send_header("Retry-After", "0")
            handler.end_headers()
            handler.wfile.write(payload)
            return
        n = self.next_id()
        # Tokens that differ per response and fill a real share of the window.
        usage = (20_000 + 7 * n, 1_000, 20 + n % 5)
        with self.lock:
            self.usage.append((bool(body.get("tools")), str(body.get("prompt_cache_key") or ""), *usage))
        stream = SSE(handler, n, usage)
        if kind == "title":
            stream.message('{"title": "Fake session title"}')
        elif kind == "text":
            stream.message(step["text"])
        elif kind in ("slow", "slow_text"):
            # Slow streams give Esc something to interrupt; slow_text ends in time for the test.
            delay = 0.25 if kind == "slow" else 0.0
            words = step["text"].split(" ")
            stream.message(step["text"], chunks=[w + " " for w in words], delay=delay,
                           pause=3.0 if kind == "slow_text" else 0.0)
        elif kind == "call":
            stream.call(step["name"], step["arguments"], step.get("namespace"))
        elif kind == "wait_agent":
            targets = _spawned_ids(body)
            stream.call("wait_agent", {"targets": targets, "timeout_ms": 30000}, "multi_agent_v1")
        stream.done()


def _content_text(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _spawned_ids(body: dict) -> list[str]:
    """The agent ids spawn_agent returned in this conversation."""
    ids = []
    for item in body.get("input") or []:
        if item.get("type") == "function_call_output":
            output = item.get("output")
            if isinstance(output, dict):
                output = output.get("content") or ""
            try:
                data = json.loads(output) if isinstance(output, str) else None
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("agent_id"), str):
                ids.append(data["agent_id"])
    return ids[-1:]


class SSE:
    def __init__(self, handler: BaseHTTPRequestHandler, n: int, usage: tuple[int, int, int] = (100, 0, 20)):
        self.h = handler
        self.n = n
        self.usage = usage
        self.index = 0
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        self.send("response.created", {"response": {"id": f"resp_{n:04d}", "status": "in_progress", "output": []}})

    def send(self, event: str, data: dict):
        data = {"type": event, **data}
        self.h.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.h.wfile.flush()

    def message(self, text: str, chunks: Optional[list[str]] = None, delay: float = 0.0, pause: float = 0.0):
        item_id = f"msg_{self.n:04d}_{self.index}"
        item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
        self.send("response.output_item.added", {"output_index": self.index, "item": item})
        self.send("response.content_part.added", {"item_id": item_id, "output_index": self.index, "content_index": 0,
                                                  "part": {"type": "output_text", "text": "", "annotations": []}})
        for chunk in chunks or [text]:
            self.send("response.output_text.delta", {"item_id": item_id, "output_index": self.index,
                                                     "content_index": 0, "delta": chunk})
            if delay:
                time.sleep(delay)
        if pause:
            time.sleep(pause)
        part = {"type": "output_text", "text": text, "annotations": []}
        self.send("response.output_text.done", {"item_id": item_id, "output_index": self.index, "content_index": 0,
                                                "text": text})
        self.send("response.content_part.done", {"item_id": item_id, "output_index": self.index, "content_index": 0,
                                                 "part": part})
        done = {**item, "status": "completed", "content": [part]}
        self.send("response.output_item.done", {"output_index": self.index, "item": done})
        self.index += 1

    def call(self, name: str, arguments: dict, namespace: Optional[str] = None):
        call_id = f"call_{self.n:04d}"
        args = json.dumps(arguments)
        item = {"type": "function_call", "id": f"fc_{self.n:04d}", "call_id": call_id, "name": name,
                "arguments": "", "status": "in_progress"}
        if namespace:
            item["namespace"] = namespace
        self.send("response.output_item.added", {"output_index": self.index, "item": item})
        self.send("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": self.index,
                                                             "delta": args})
        self.send("response.function_call_arguments.done", {"item_id": item["id"], "output_index": self.index,
                                                            "arguments": args})
        self.send("response.output_item.done", {"output_index": self.index,
                                                "item": {**item, "arguments": args, "status": "completed"}})
        self.index += 1

    def done(self):
        (input_tokens, cached, output) = self.usage
        usage = {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached},
                 "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": input_tokens + output}
        self.send("response.completed", {"response": {"id": f"resp_{self.n:04d}", "status": "completed",
                                                      "output": [], "usage": usage}})
