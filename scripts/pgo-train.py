#!/usr/bin/env python3
"""Training run for scripts/pgo.sh: posts every recorded hook payload of tests/fixtures (each
agent's own events and the real CLIs' recordings) to a running `switchboard serve`, spread over
many sessions and several keep-alive connections, then reads the board back.

    pgo-train.py PORT KEY [ROUNDS]

Not the benchmark's load: the benchmark's generator (bench/loadgen.rs) posts one synthetic mix of
Claude events, and a profile trained on it alone would flatter it. This is what the seven CLIs
send, so the optimizer learns the paths real hooks take.
"""

import http.client
import json
import pathlib
import sys
import threading

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures"
SESSIONS = 400
CONNECTIONS = 4


def agent_of(path):
    """The hook route's agent for a fixture: its folder (`claude`) or recording (`codex-0.171.0`)."""
    for part in path.relative_to(FIXTURES).parts:
        for agent in ("claude", "codex", "gemini", "qwen", "copilot", "opencode", "pi"):
            if part == agent or part.startswith(agent + "-"):
                return agent
    return None


def payloads():
    found = []
    for path in sorted(FIXTURES.rglob("*.json")):
        agent = agent_of(path)
        if agent is None:
            continue
        try:
            body = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(body, dict):
            found.append((agent, body))
    return found


def post_all(port, key, work, failures):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for agent, body in work:
        connection.request("POST", f"/hook/{agent}?key={key}", json.dumps(body).encode(),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 204:
            failures.append(response.status)
    connection.close()


def main():
    port, key = int(sys.argv[1]), sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    events = payloads()
    if not events:
        sys.exit(f"no hook payloads under {FIXTURES}")
    work = [[] for _ in range(CONNECTIONS)]
    n = 0
    for round_ in range(rounds):
        for session in range(SESSIONS // rounds or 1):
            sid = f"train-{round_}-{session}"
            for agent, body in events:
                body = dict(body)
                for field in ("session_id", "sessionId"):
                    if field in body:
                        body[field] = sid
                work[n % CONNECTIONS].append((agent, body))
                n += 1
    failures = []
    threads = [threading.Thread(target=post_all, args=(port, key, part, failures)) for part in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"/sessions?key={key}")
    sessions = json.loads(connection.getresponse().read()).get("sessions", [])
    print(f"trained: {n} hooks from {len(events)} payloads, {len(sessions)} sessions on the board")
    if failures:
        sys.exit(f"{len(failures)} hooks were not answered 204: {sorted(set(failures))}")


if __name__ == "__main__":
    main()
