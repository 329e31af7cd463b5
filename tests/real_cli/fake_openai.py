"""A fake OpenAI-compatible chat-completions server for the real-CLI tests (Qwen Code): standard
library only.

The CLI posts every model step to `/v1/chat/completions` with `stream: true` and reads SSE
`data:` lines of `chat.completion.chunk`, a last chunk with `usage`, then `data: [DONE]`. The
answer is scripted by a marker in the latest user prompt, `[[scenario:<name>]]`: step N of a
scenario answers the N-th model call after that prompt (N = assistant messages since it).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

from harness import read_request

MARKER = re.compile(r"\[\[scenario:([a-z0-9-]+)\]\]")


def text(*chunks: str) -> dict:
    return {"chunks": list(chunks)}


def call(name: str, **args) -> dict:
    return {"call": (name, args)}


def slow(first: str, seconds: float = 40) -> dict:
    """A stream that sends `first` and then trickles for `seconds` (for Esc while streaming)."""
    return {"chunks": [first], "trickle": seconds}


def error(status: int) -> dict:
    """An HTTP error for every attempt of this step."""
    return {"error": status}


def content_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


class FakeOpenAI:
    def __init__(self, scripts: dict[str, list[dict]]):
        self.scripts = scripts
        self.requests: list[dict] = []  # {scenario, step}, for debugging a failed run
        self.user_texts: list[str] = []  # the latest user text of every request (what a reply delivered)
        self.tool_results: list[str] = []
        # The usage each answer reports, by the request's number (0, 1, …): 100 in and 10 out unless
        # a test wants each answer's own; what each answer reported is kept in `usages`.
        self.usage_of = lambda n: {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        self.usages: list[dict] = []  # {scenario, title, usage}
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                _, body = read_request(self)
                fake.handle(self, body)

            def do_GET(self):
                self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def _json(self, status: int, obj: dict):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status >= 400:
                    # A CLI that retries (OpenCode retries even this 400) does so at once.
                    self.send_header("retry-after-ms", "100")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @staticmethod
    def locate(messages: list) -> tuple[Optional[str], int]:
        for index in range(len(messages) - 1, -1, -1):
            item = messages[index]
            if item.get("role") != "user":
                continue
            # A prompt whose turn failed stays in the history, and the next one may be merged into
            # the same user message: the last marker is the newest prompt's.
            found = MARKER.findall(content_text(item.get("content")))
            if found:
                step = sum(1 for later in messages[index + 1:] if later.get("role") == "assistant")
                return found[-1], step
        return None, 0

    def handle(self, handler, body: dict):
        messages = body.get("messages") or []
        scenario, step = self.locate(messages)
        users = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
        with self.lock:
            self.requests.append({"scenario": scenario, "step": step, "stream": body.get("stream")})
            if users:
                self.user_texts.append(users[-1])
            if messages and messages[-1].get("role") == "tool":
                self.tool_results.append(content_text(messages[-1].get("content")))
        script = self.scripts.get(scenario or "", [])
        answer = script[step] if step < len(script) else text("Done.")
        # OpenCode asks for a session title on the side: no tools, its own system prompt.
        system = " ".join(content_text(m.get("content")) for m in messages if m.get("role") == "system")
        title = "title generator" in system and not body.get("tools")
        if title:
            answer = text("A test title")
        if "error" in answer:
            status = answer["error"]
            handler._json(status, {"error": {"message": f"fake error {status}", "type": "server_error",
                                             "code": str(status)}})
            return
        with self.lock:
            usage = self.usage_of(len(self.usages))
            self.usages.append({"scenario": scenario, "title": title, "usage": usage})
        if not body.get("stream"):
            handler._json(200, {"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake-model",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": "A short answer."}}],
                                "usage": usage})
            return
        self.stream(handler, answer, usage)

    def got(self, text_: str, start: int = 0) -> bool:
        with self.lock:
            return any(text_ in t for t in self.user_texts[start:])

    def stream(self, handler, answer: dict, usage: dict):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True

        def send(delta: dict, finish: Optional[str] = None, usage: Optional[dict] = None):
            chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": "fake-model", "choices": [] if usage else [{"index": 0, "delta": delta,
                                                                          "finish_reason": finish}]}
            if usage:
                chunk["usage"] = usage
            handler.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            handler.wfile.flush()

        try:
            if "call" in answer:
                name, args = answer["call"]
                send({"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{int(time.time() * 1000)}",
                                                           "type": "function",
                                                           "function": {"name": name, "arguments": json.dumps(args)}}]})
                send({}, "tool_calls")
            else:
                chunks = answer["chunks"]
                for i, chunk in enumerate(chunks):
                    send({"role": "assistant", "content": chunk} if i == 0 else {"content": chunk})
                    time.sleep(0.02)
                deadline = time.monotonic() + answer.get("trickle", 0)
                while time.monotonic() < deadline:
                    time.sleep(0.5)
                    send({"content": "."})
                send({}, "stop")
            send({}, usage=usage)
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.wfile.flush()
        except OSError:
            pass  # the CLI hung up (Esc)
