"""A stand-in ntfy server and a stand-in phone (issue 49), on 127.0.0.1, written to ntfy's
published API (docs.ntfy.sh: publish, subscribe/api, "action buttons").

The server (a daemon thread, like the fake model servers) follows:
- publishing with `POST`/`PUT /<topic>`: the body is the message; `Title`, `Tags`, `Priority` and
  `Actions` (or `X-…`) headers, RFC 2047 `=?UTF-8?B?…?=` words decoded; or as JSON to `/` with a
  `topic` field. A malformed `Actions` header is a 400, as ntfy answers it. The answer is the
  stored message as JSON.
- `GET /<topic>/json`: newline-delimited JSON, chunked — `open`, then the topic's messages from
  `since=` (a message id: those after it; a Unix time: those at or after it; `all`; none: only new
  ones) as they come, `keepalive` while none do; `poll=1` sends what is cached and ends.
- a topic can require `Authorization: Bearer <token>` (403 without, 401 with a wrong one).
Every message published is kept, per topic. Not followed: attachments, caching limits, rate
limits, e-mail, `since=<duration>`, the SSE and raw streams, `view`/`broadcast` actions' effects.

The phone reads a topic as ntfy's apps do (`/json?poll=1`, each message's `actions`) and, when a
button is tapped, sends that `http` action's request — method, URL, headers, body — itself.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Optional

KEEPALIVE_S = 5.0


def decode_word(value: str) -> str:
    """An RFC 2047 `=?UTF-8?B?…?=` header value decoded; any other value as it is."""
    if value.startswith("=?UTF-8?B?") and value.endswith("?="):
        try:
            return base64.b64decode(value[len("=?UTF-8?B?"):-2]).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return value
    return value


def parse_actions(text: str) -> list[dict]:
    """ntfy's simple `Actions` format into its JSON actions (ntfy's `server/actions.go`, as the
    Rust stand-in `phone/standin/actions.rs` ports it): sections apart by `,`, actions by `;`,
    values quoted with `"` or `'` and `\\` before a quote of the same kind; `action`, `label` and,
    for `view` and `http`, `url` may go without their key; at most three. Raises ValueError."""
    chars = text.strip()
    n = len(chars)
    pos = 0
    actions: list[dict] = []

    def skip_spaces(at: int) -> int:
        while at < n and chars[at].isspace():
            at += 1
        return at

    while pos < n:
        action = {"action": "", "label": "", "clear": False, "headers": {}, "method": "", "body": ""}
        section = 0
        while True:
            pos = skip_spaces(pos)
            key = ""
            key_len = 0
            while pos + key_len < n and (chars[pos + key_len].isalnum() or chars[pos + key_len] in "_-."):
                key_len += 1
            after = skip_spaces(pos + key_len)
            if key_len > 0 and after < n and chars[after] == "=":
                key = chars[pos:pos + key_len]
                pos = skip_spaces(after + 1)
            if pos < n and chars[pos] in "\"'":
                quote = chars[pos]
                pos += 1
                start = pos
                while pos < n and not (chars[pos] == quote and chars[pos - 1] != "\\"):
                    pos += 1
                if pos >= n:
                    raise ValueError(f"unexpected end of input, quote started at position {start}")
                value = chars[start:pos].replace("\\" + quote, quote)
                pos = skip_spaces(pos + 1)
                if pos < n and chars[pos] not in ",;":
                    raise ValueError(f"unexpected character '{chars[pos]}' at position {pos}")
                last = pos >= n or chars[pos] == ";"
                pos += 1
            else:
                start = pos
                while pos < n and chars[pos] not in ",;":
                    pos += 1
                last = pos >= n or chars[pos] == ";"
                value = chars[start:pos].strip()
                pos += 1
            kind = action["action"]
            if not key:
                if section == 0:
                    key = "action"
                elif section == 1:
                    key = "label"
                elif section == 2 and kind in ("view", "http"):
                    key = "url"
                else:
                    raise ValueError(f"term '{value}' unknown")
            if key.startswith("headers."):
                action["headers"][key[len("headers."):]] = value
            else:
                lower = key.lower()
                if lower == "clear":
                    action["clear"] = value.lower() in ("true", "yes", "1")
                elif lower in ("action", "label", "url", "method", "body"):
                    action[lower] = value
                else:
                    raise ValueError(f"key '{lower}' unknown")
            section += 1
            if last:
                break
        method = action["method"].upper()
        action["method"] = "POST" if not method and action["action"] == "http" else method
        action["id"] = f"a{len(actions)}"
        actions.append(action)
    if len(actions) > 3:
        raise ValueError("only 3 actions allowed")
    return actions


class FakeNtfy:
    """The server; `messages` keeps every published message (ntfy's JSON form), in order."""

    def __init__(self):
        self.messages: list[dict] = []
        self.tokens: dict[str, str] = {}
        # Each subscription asked for (not the phone's polls): (request target, let in).
        self.subscriptions: list[tuple[str, bool]] = []
        self.cond = threading.Condition()
        self.closing = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                fake._publish(self)

            def do_PUT(self):
                fake._publish(self)

            def do_GET(self):
                fake._get(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, topic: str) -> str:
        return f"{self.base}/{topic}"

    def protect(self, topic: str, token: str):
        """The topic takes only `Authorization: Bearer <token>`."""
        self.tokens[topic] = token

    def on(self, topic: str) -> list[dict]:
        with self.cond:
            return [m for m in self.messages if m["topic"] == topic]

    def find(self, topic: str, match: Callable[[dict], bool], nth: int = 1) -> Optional[dict]:
        hits = [m for m in self.on(topic) if match(m)]
        return hits[nth - 1] if len(hits) >= nth else None

    def subscribed(self, topic: str) -> list[tuple[str, bool]]:
        """The subscriptions to `topic` that were let in."""
        with self.cond:
            return [(t, ok) for t, ok in self.subscriptions if ok and t.startswith(f"/{topic}/json")]

    def stop(self):
        with self.cond:
            self.closing = True
            self.cond.notify_all()
        self.server.shutdown()
        self.server.server_close()

    # --- the server's side -------------------------------------------------------------------
    @staticmethod
    def _answer(handler, status: int, body: dict):
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _allowed(self, handler, topic: str) -> bool:
        token = self.tokens.get(topic)
        if token is None:
            return True
        given = handler.headers.get("Authorization")
        if given is None:
            self._answer(handler, 403, {"code": 40301, "http": 403, "error": "forbidden"})
            return False
        if decode_word(given) != f"Bearer {token}":
            self._answer(handler, 401, {"code": 40101, "http": 401, "error": "unauthorized"})
            return False
        return True

    def _publish(self, handler):
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path = urllib.parse.urlsplit(handler.path).path
        topic = path.strip("/").split("/")[0]
        header = lambda name: decode_word(handler.headers.get(name) or handler.headers.get(f"X-{name}") or "")
        if not topic:  # JSON publishing
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._answer(handler, 400, {"code": 40017, "http": 400, "error": "invalid request: body is not JSON"})
            topic = str(body.get("topic") or "")
            fields = {"title": body.get("title", ""), "tags": body.get("tags", ""),
                      "priority": body.get("priority", ""), "message": body.get("message", "")}
            actions = body.get("actions") or []
        else:
            fields = {"title": header("Title"), "tags": header("Tags"), "priority": header("Priority"),
                      "message": raw.decode("utf-8", "replace")}
            try:
                actions = parse_actions(header("Actions")) if header("Actions") else []
            except ValueError as why:
                return self._answer(handler, 400, {"code": 40018, "http": 400, "error": str(why)})
        if not self._allowed(handler, topic):
            return
        message = {"id": secrets.token_hex(6), "time": int(time.time()), "event": "message", "topic": topic,
                   **fields, "actions": actions}
        with self.cond:
            self.messages.append(message)
            self.cond.notify_all()
        self._answer(handler, 200, message)

    def _get(self, handler):
        split = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(split.query))
        parts = split.path.strip("/").split("/")
        if len(parts) != 2 or parts[1] != "json":
            return self._answer(handler, 404, {"code": 40401, "http": 404, "error": "page not found"})
        topic = parts[0]
        poll = query.get("poll") in ("1", "true", "yes")
        if not self._allowed(handler, topic):
            if not poll:
                with self.cond:
                    self.subscriptions.append((handler.path, False))
            return
        since = query.get("since")
        with self.cond:
            if not poll:
                self.subscriptions.append((handler.path, True))
                self.cond.notify_all()
            if since == "all" or (since is None and poll):
                at = 0
            elif since is None or since == "none":
                at = len(self.messages)
            else:
                ids = [m["id"] for m in self.messages]
                if since in ids:
                    at = ids.index(since) + 1
                elif since.isdigit():
                    at = next((i for i, m in enumerate(self.messages) if m["time"] >= int(since)), len(self.messages))
                else:
                    at = len(self.messages)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()

        def chunk(event: dict):
            line = (json.dumps(event) + "\n").encode()
            handler.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            handler.wfile.flush()

        try:
            chunk({"id": secrets.token_hex(6), "time": int(time.time()), "event": "open", "topic": topic})
            while True:
                with self.cond:
                    if at >= len(self.messages) and not self.closing and not poll:
                        self.cond.wait(KEEPALIVE_S)
                    fresh = [m for m in self.messages[at:] if m["topic"] == topic]
                    at = len(self.messages)
                    closing = self.closing
                for message in fresh:
                    chunk(message)
                if poll or closing:
                    handler.wfile.write(b"0\r\n\r\n")
                    handler.wfile.flush()
                    return
                if not fresh:
                    chunk({"id": secrets.token_hex(6), "time": int(time.time()), "event": "keepalive",
                           "topic": topic})
        except (BrokenPipeError, ConnectionResetError, OSError):
            handler.close_connection = True


class PhoneSetup:
    """A stand-in ntfy server with a protected reply topic, and Switchboard's Reach settings that
    push to it with "answer from the phone" on: `settings` is merged into a serve's settings.json
    (`apply`), `restore` puts the file back as it was."""

    def __init__(self, include_text: bool = False):
        self.ntfy = FakeNtfy()
        self.replies, self.token = secrets.token_hex(16), f"tk_{secrets.token_hex(8)}"
        self.ntfy.protect(self.replies, self.token)
        self.reach = {"ntfy": {"enabled": True, "url": self.ntfy.url("agents"), "includeText": include_text},
                      "answerFromPhone": True, "replyTopic": self.replies, "replyToken": self.token}
        self.phone = Phone(self.ntfy.url("agents"))
        self._before: dict = {}

    def apply(self, state_dir):
        """Writes the reach settings into `state_dir`/settings.json, keeping its other settings
        (a board's remotes among them). Start serve after this."""
        path = state_dir / "settings.json"
        before = path.read_text() if path.exists() else None
        self._before[str(path)] = before
        path.write_text(json.dumps({**json.loads(before or "{}"), "reach": self.reach}))

    def restore(self):
        for path, before in self._before.items():
            if before is None:
                Path(path).unlink(missing_ok=True)
            else:
                Path(path).write_text(before)
        self.ntfy.stop()

    def subscribed(self) -> bool:
        return bool(self.ntfy.subscribed(self.replies))

    @staticmethod
    def keep(message: dict, name: str):
        """Keeps a push as the phone received it, in target/phone-pushes/<name>.json: what
        scripts/phone-picture.py draws for the README."""
        folder = Path(__file__).resolve().parents[2] / "target" / "phone-pushes"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.json").write_text(json.dumps(message, indent=2))

    def said(self, what: str) -> Optional[dict]:
        """The follow-up push whose title says `what` ("Allowed from phone", "Already used", …)."""
        return self.ntfy.find("agents", lambda m: m.get("title", "").startswith("Switchboard:")
                              and what in m.get("title", ""))


class Phone:
    """The ntfy app subscribed to one topic: what it received, and a tap on a button."""

    def __init__(self, topic_url: str):
        self.topic_url = topic_url

    def received(self) -> list[dict]:
        """Every message of the topic, as the app fetches them (`/json?poll=1&since=all`)."""
        with urllib.request.urlopen(f"{self.topic_url}/json?poll=1&since=all", timeout=5) as answer:
            lines = answer.read().decode().splitlines()
        events = [json.loads(line) for line in lines if line.strip()]
        return [e for e in events if e.get("event") == "message"]

    def find(self, match: Callable[[dict], bool]) -> Optional[dict]:
        return next((m for m in self.received() if match(m)), None)

    @staticmethod
    def labels(message: dict) -> list[str]:
        return [a.get("label", "") for a in message.get("actions") or []]

    def tap(self, message: dict, label: str) -> int:
        """Taps the button labelled `label`: the app sends its `http` action's request (method,
        URL, headers, body). The HTTP status it got."""
        action = next(a for a in message.get("actions") or [] if a.get("label") == label)
        if action.get("action") != "http":
            raise ValueError(f"not an http action: {action}")
        request = urllib.request.Request(action["url"], data=(action.get("body") or "").encode(),
                                         method=action.get("method") or "POST",
                                         headers=dict(action.get("headers") or {}))
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code
