"""A fake Gemini API (generativelanguage v1beta) for the real-CLI tests: standard library only.

Gemini CLI posts every model step to `/v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE
`data:` lines of GenerateContentResponse) and one-shot calls (a start-up summary on a "lite"
model, `/compress`) to `:generateContent`. The answer is scripted by a marker in the user's
prompt, `[[scenario:<name>]]`: step N of a scenario is the answer to the N-th model call after
the prompt (tool results come back as function responses, so N = model turns since the prompt).
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
    """A streamed text answer, one SSE event per chunk (several chunks garble AfterAgent)."""
    return {"chunks": list(chunks)}


def call(name: str, **args) -> dict:
    return {"call": (name, args)}


def slow(first: str, seconds: float = 40) -> dict:
    """A stream that sends `first` and then trickles for `seconds` (for Esc while streaming)."""
    return {"chunks": [first], "trickle": seconds}


def delayed(answer: dict, seconds: float) -> dict:
    """`answer`, sent after `seconds` (so a status between two model steps can be observed)."""
    return {**answer, "delay": seconds}


def error(status: int, times: int = 1_000_000, then: Optional[dict] = None) -> dict:
    """An HTTP error for the first `times` attempts of this step, then the answer `then`."""
    return {"error": status, "times": times, "then": then or text("Recovered.")}


class FakeGemini:
    def __init__(self, scripts: dict[str, list[dict]]):
        self.scripts = scripts
        self.requests: list[dict] = []  # {path, scenario, step}, for debugging a failed run
        # Every function response the CLI sent back, as JSON text (issue 24: what an answer delivered).
        self.tool_results: list[str] = []
        self.errors_sent: dict[tuple[str, int], int] = {}
        # The usage sent with every streamed answer (issue 25): (prompt tokens, answer tokens).
        self.usage: list[tuple[int, int]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw, body = read_request(self)
                # Token counts in proportion to the request, so /compress finds compressing worth it.
                self.prompt_tokens = max(100, len(raw) // 4)
                fake.handle(self, body)

            def do_GET(self):
                self._json(404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})

            def _json(self, status: int, obj: dict):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.handler = Handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> "FakeGemini":
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- choosing the answer -------------------------------------------------------------------

    @staticmethod
    def locate(body: dict) -> tuple[Optional[str], int]:
        """The scenario of the latest marked user prompt and how many model turns followed it."""
        contents = body.get("contents") or []
        for index in range(len(contents) - 1, -1, -1):
            item = contents[index]
            if item.get("role") != "user":
                continue
            for part in item.get("parts") or []:
                found = MARKER.search(part.get("text") or "") if isinstance(part, dict) else None
                if found:
                    step = sum(1 for later in contents[index + 1:] if later.get("role") == "model")
                    return found.group(1), step
        return None, 0

    def handle(self, handler: BaseHTTPRequestHandler, body: dict):
        path = handler.path
        streamed = ":streamGenerateContent" in path
        scenario, step = self.locate(body) if streamed else (None, 0)
        last = (body.get("contents") or [{}])[-1]
        responses = [p["functionResponse"] for p in last.get("parts") or [] if isinstance(p, dict) and "functionResponse" in p]
        with self.lock:
            self.requests.append({"path": path, "scenario": scenario, "step": step})
            self.tool_results.extend(json.dumps(response) for response in responses)
        if not streamed:
            # Start-up summary, /compress, any other one-shot helper call: a short plain answer.
            handler._json(200, response([{"text": "A short summary of the conversation so far."}], tokens=50))
            return
        script = self.scripts.get(scenario or "", [])
        answer = script[step] if step < len(script) else text("Done.")
        if "error" in answer:
            with self.lock:
                key = (scenario or "", step)
                sent = self.errors_sent.get(key, 0)
                if sent < answer["times"]:
                    self.errors_sent[key] = sent + 1
                    status = answer["error"]
                    names = {400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}
                    handler._json(status, {"error": {"code": status, "message": f"fake error {status}",
                                                      "status": names.get(status, "UNKNOWN")}})
                    return
            answer = answer["then"]
        self.stream(handler, answer)

    def stream(self, handler: BaseHTTPRequestHandler, answer: dict):
        time.sleep(answer.get("delay", 0))
        with self.lock:
            self.usage.append((handler.prompt_tokens, 10))
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        if "call" in answer:
            name, args = answer["call"]
            events = [response([{"functionCall": {"name": name, "args": args}}], finish=True,
                               tokens=handler.prompt_tokens)]
        else:
            chunks = answer["chunks"]
            events = [response([{"text": chunk}], finish=(i == len(chunks) - 1 and "trickle" not in answer),
                               tokens=handler.prompt_tokens)
                      for i, chunk in enumerate(chunks)]
        try:
            for event in events:
                handler.wfile.write(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
                handler.wfile.flush()
                time.sleep(0.02)
            deadline = time.monotonic() + answer.get("trickle", 0)
            while time.monotonic() < deadline:
                time.sleep(0.5)
                handler.wfile.write(b"data: " + json.dumps(response([{"text": "."}])).encode() + b"\r\n\r\n")
                handler.wfile.flush()
            if "trickle" in answer:
                handler.wfile.write(b"data: " + json.dumps(response([{"text": " end."}], finish=True)).encode()
                                    + b"\r\n\r\n")
                handler.wfile.flush()
        except OSError:
            pass  # the CLI hung up (Esc)


def response(parts: list[dict], finish: bool = True, tokens: int = 100) -> dict:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = "STOP"
    return {"candidates": [candidate],
            "usageMetadata": {"promptTokenCount": tokens, "candidatesTokenCount": 10, "totalTokenCount": tokens + 10},
            "modelVersion": "gemini-2.5-flash"}
