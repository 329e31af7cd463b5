#!/usr/bin/env python3
"""Bounds under floods, against a private `switchboard serve`:

  bench/flood.py ids [--count 1000000]   1,000,000 distinct session ids: RSS and db size after
  bench/flood.py idle [--conns 3000]     3,000 idle connections held open while 200 real hooks
                                         (one connection each, like the forwarder) are timed: p50/p99
  bench/flood.py snapshot                hook p99 while GET /sessions is fetched in a loop (5,000 sessions)
  bench/flood.py watch [--sessions 50]   idle CPU of serve while it watches transcripts and processes
  bench/flood.py sigterm [--count 1000000]
                                         that many new ids, then a SIGTERM 1 s later and a restart:
                                         live sessions lost, evicted ones back, RSS high-water
  bench/flood.py pipelined [--count 100000 --sessions 4000]
                                         events pipelined on 8 connections as fast as the socket
                                         takes them; then every session must be in its last status
  bench/flood.py inflight [--count 300000 --depth 64 --conns 1 --runs 3]
                                         that many new ids, each connection keeping --depth requests in
                                         flight (pipelined): serve's RSS high-water (VmHWM) and RSS after
  bench/flood.py forwarder               worst-case wall time of `switchboard hook` (stdin never closes,
                                         a server answering a byte a second, a FIFO endpoint.json)
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path


def start(bin_path):
    work = Path(tempfile.mkdtemp(prefix="sb-flood-"))
    env = {**os.environ, "SWITCHBOARD_HOME": str(work / "state"), "SWITCHBOARD_NO_NOTIFY": "1"}
    proc = subprocess.Popen([bin_path, "serve", "--no-notify"], env=env, stderr=subprocess.DEVNULL)
    while not (work / "state" / "endpoint.json").exists():
        time.sleep(0.05)
    endpoint = json.loads((work / "state" / "endpoint.json").read_text())
    return proc, work, env, endpoint


def rss_mib(pid, field="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0


def post_many(port, key, bodies):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for body in bodies:
        conn.request("POST", f"/hook/custom?key={key}", body, {"Content-Type": "application/json"})
        conn.getresponse().read()
    conn.close()


def one_hook(port, key, body):
    started = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    req = f"POST /hook/custom?key={key} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
    s.sendall(req.encode())
    while s.recv(4096):
        pass
    s.close()
    return (time.perf_counter() - started) * 1000


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def ids(args):
    proc, work, env, ep = start(args.bin)
    n, threads = args.count, 4
    started = time.time()
    chunks = [(json.dumps({"sessionId": f"id-{i}", "status": "working"}) for i in range(t, n, threads)) for t in range(threads)]
    ts = [threading.Thread(target=post_many, args=(ep["port"], ep["key"], c)) for c in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    took = time.time() - started
    time.sleep(2)
    db = sum(f.stat().st_size for f in (work / "state").glob("switchboard.db*"))
    print(f"{n} session ids in {took:.0f} s ({n / took:.0f}/s): serve RSS {rss_mib(proc.pid):.1f} MiB "
          f"(high-water {rss_mib(proc.pid, 'VmHWM'):.1f} MiB), "
          f"database {db / 1e6:.1f} MB (sessions capped at 5,000)")
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def sigterm(args):
    proc, work, env, ep = start(args.bin)

    def live(ep):
        c = http.client.HTTPConnection("127.0.0.1", ep["port"], timeout=60)
        c.request("GET", f"/sessions?key={ep['key']}")
        return {s["sessionId"] for s in json.loads(c.getresponse().read())["sessions"]}

    n, threads = args.count, 4
    started = time.time()
    chunks = [(json.dumps({"sessionId": f"id-{i}", "status": "working"}) for i in range(t, n, threads)) for t in range(threads)]
    ts = [threading.Thread(target=post_many, args=(ep["port"], ep["key"], c)) for c in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    took = time.time() - started
    before = live(ep)
    high = rss_mib(proc.pid, "VmHWM")
    time.sleep(1)
    stopping = time.time()
    proc.terminate()
    code = proc.wait()
    stopped = time.time() - stopping
    (work / "state" / "endpoint.json").unlink(missing_ok=True)
    proc = subprocess.Popen([args.bin, "serve", "--no-notify"], env=env, stderr=subprocess.DEVNULL)
    while not (work / "state" / "endpoint.json").exists():
        time.sleep(0.05)
    after = live(json.loads((work / "state" / "endpoint.json").read_text()))
    print(f"{n} new ids in {took:.0f} s: RSS high-water {high:.1f} MiB, {len(before)} live; SIGTERM 1 s later: exit {code} "
          f"in {stopped:.2f} s; after the restart {len(after)} sessions, {len(before - after)} live lost, "
          f"{len(after - before)} evicted back")
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def pipelined(args):
    """`--count` events over `--sessions` sessions, each session's statuses in a known order,
    written down 8 keep-alive connections without waiting for answers (HTTP/1.1 pipelining)."""
    proc, work, env, ep = start(args.bin)
    statuses = ["working", "blocked", "working", "waiting", "done"]
    last = {}
    per_conn = [[] for _ in range(8)]
    for i in range(args.count):
        sid = f"p-{i % args.sessions}"
        status = statuses[(i // args.sessions + i) % len(statuses)]
        last[sid] = status
        body = json.dumps({"sessionId": sid, "status": status})
        req = (f"POST /hook/custom?key={ep['key']} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n{body}")
        # One session's events on one connection: their order is the order sent.
        per_conn[(i % args.sessions) % 8].append(req.encode())

    def run(reqs):
        s = socket.create_connection(("127.0.0.1", ep["port"]))
        n = len(reqs)
        def read():
            mark, tail, seen = b"HTTP/1.1 ", b"", 0
            while seen < n:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                # A mark split over two reads is counted once: the tail is too short to hold one.
                seen += (tail + chunk).count(mark)
                tail = (tail + chunk)[-(len(mark) - 1):]
        reader = threading.Thread(target=read)
        reader.start()
        s.sendall(b"".join(reqs))
        reader.join()
        s.close()

    started = time.time()
    ts = [threading.Thread(target=run, args=(reqs,)) for reqs in per_conn]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    took = time.time() - started
    # Settled: the snapshot stops changing.
    def snap():
        c = http.client.HTTPConnection("127.0.0.1", ep["port"])
        c.request("GET", f"/sessions?key={ep['key']}")
        return json.loads(c.getresponse().read())["sessions"]
    got, before = snap(), None
    while got != before:
        time.sleep(0.5)
        before, got = got, snap()
    status = {s["sessionId"]: s["status"] for s in got}
    wrong = sum(1 for sid, want in last.items() if status.get(sid) != want)
    print(f"{args.count} events over {args.sessions} sessions in {took:.2f} s ({args.count / took:.0f}/s): "
          f"{wrong} sessions ({100 * wrong / len(last):.1f} %) not in their last status; RSS {rss_mib(proc.pid):.1f} MiB")
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def inflight(args):
    """New ids as fast as the server answers, with `--depth` requests in flight on each of `--conns`
    keep-alive connections: a new one is written as soon as an answer comes, so the server always has
    `--depth` waiting per connection however fast it goes. Its RSS high-water is the bound asked for."""
    for run in range(args.runs):
        proc, work, env, ep = start(args.bin)
        base = rss_mib(proc.pid)
        conns = args.conns or 1
        per = args.count // conns

        def run_conn(c):
            s = socket.create_connection(("127.0.0.1", ep["port"]))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            head = f"POST /hook/custom?key={ep['key']} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"

            def req(i):
                body = json.dumps({"sessionId": f"f{run}-{c}-{i}", "status": "working"})
                return (head + f"Content-Length: {len(body)}\r\n\r\n{body}").encode()

            sent = min(args.depth, per)
            s.sendall(b"".join(req(i) for i in range(sent)))
            mark, tail, seen = b"HTTP/1.1 ", b"", 0
            while seen < per:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data = tail + chunk
                got = data.count(mark)
                tail = data[-(len(mark) - 1):]
                seen += got
                more = min(got, per - sent)
                if more:
                    s.sendall(b"".join(req(i) for i in range(sent, sent + more)))
                    sent += more
            s.close()

        high, stop = [0.0], threading.Event()

        def sample():
            while not stop.is_set():
                high[0] = max(high[0], rss_mib(proc.pid))
                time.sleep(0.05)
        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.time()
        ts = [threading.Thread(target=run_conn, args=(c,)) for c in range(conns)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        took = time.time() - started
        time.sleep(2)
        stop.set(); sampler.join()
        print(f"run {run + 1}: {per * conns} new ids, {args.depth} in flight on each of {conns} connection(s), "
              f"in {took:.1f} s ({per * conns / took:,.0f}/s): serve RSS at start {base:.1f} MiB, "
              f"high-water {rss_mib(proc.pid, 'VmHWM'):.1f} MiB (sampled max {high[0]:.1f}), "
              f"2 s after {rss_mib(proc.pid):.1f} MiB", flush=True)
        proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def idle(args):
    proc, work, env, ep = start(args.bin)
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held = []
    for _ in range(args.conns or 3000):
        try:
            held.append(socket.create_connection(("127.0.0.1", ep["port"]), timeout=5))
        except OSError:
            break
    times = [one_hook(ep["port"], ep["key"], json.dumps({"sessionId": f"real-{i}", "status": "blocked"})) for i in range(200)]
    time.sleep(1)
    conn = http.client.HTTPConnection("127.0.0.1", ep["port"]); conn.request("GET", f"/sessions?key={ep['key']}")
    arrived = len([s for s in json.loads(conn.getresponse().read())["sessions"] if s["sessionId"].startswith("real-")])
    print(f"{len(held)} idle connections held: 200 real hooks, {arrived} arrived, p50 {pct(times, 50):.2f} ms, "
          f"p99 {pct(times, 99):.2f} ms, max {max(times):.2f} ms")
    for s in held:
        s.close()
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def snapshot(args):
    proc, work, env, ep = start(args.bin)
    post_many(ep["port"], ep["key"], (json.dumps({"sessionId": f"s-{i}", "status": "done", "message": "m" * 2000}) for i in range(5000)))
    stop = threading.Event()

    def fetch():
        while not stop.is_set():
            c = http.client.HTTPConnection("127.0.0.1", ep["port"]); c.request("GET", f"/sessions?key={ep['key']}"); c.getresponse().read()
    t = threading.Thread(target=fetch); t.start()
    times = [one_hook(ep["port"], ep["key"], json.dumps({"sessionId": f"s-{i % 5000}", "status": "working"})) for i in range(500)]
    stop.set(); t.join()
    print(f"hooks while /sessions (5,000 sessions, ~11 MB) is fetched in a loop: p50 {pct(times, 50):.2f} ms, "
          f"p99 {pct(times, 99):.2f} ms")
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def watch(args):
    """Idle CPU of serve while it watches `--sessions` working sessions (transcript + process)."""
    proc, work, env, ep = start(args.bin)
    me = os.getpid()
    start_ticks = int(open(f"/proc/{me}/stat").read().rsplit(")", 1)[1].split()[19])
    header = json.dumps({"pid": me, "start": start_ticks, "tty": None, "tmuxPane": None, "tmuxSocket": None,
                         "windowId": None, "termProgram": None})
    for i in range(args.sessions):
        transcript = work / f"t{i}.jsonl"
        transcript.write_text('{"type":"user"}\n')
        body = json.dumps({"hook_event_name": "PermissionRequest" if i % 2 else "UserPromptSubmit", "session_id": f"w{i}",
                           "transcript_path": str(transcript), "tool_name": "Bash", "tool_input": {"command": "x"}})
        s = socket.create_connection(("127.0.0.1", ep["port"]))
        s.sendall((f"POST /hook/claude?key={ep['key']} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
                   f"x-switchboard-process: {header}\r\nConnection: close\r\n\r\n{body}").encode())
        while s.recv(4096):
            pass
    time.sleep(3)
    ticks = lambda: sum(int(x) for x in open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()[11:13])
    hz = os.sysconf("SC_CLK_TCK")
    before, t0 = ticks(), time.time()
    time.sleep(args.seconds)
    used = (ticks() - before) / hz
    print(f"serve watching {args.sessions} sessions (half working, half blocked; transcript + process each): "
          f"{100 * used / (time.time() - t0):.2f} % of a core over {args.seconds} s")
    proc.terminate(); proc.wait(); shutil.rmtree(work, ignore_errors=True)


def forwarder(args):
    work = Path(tempfile.mkdtemp(prefix="sb-fwd-"))
    results = []
    env = {**os.environ, "SWITCHBOARD_HOME": str(work)}
    # stdin that never closes
    r, w = os.pipe()
    t0 = time.perf_counter(); subprocess.run([args.bin, "hook", "claude"], stdin=r, env=env); results.append(("stdin never closes", time.perf_counter() - t0))
    os.close(r); os.close(w)
    # a byte a second
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(); port = srv.getsockname()[1]
    (work / "endpoint.json").write_text(json.dumps({"port": port, "key": "k", "pid": os.getpid()})); os.chmod(work / "endpoint.json", 0o600)

    def slow():
        c, _ = srv.accept(); c.recv(65536)
        for b in b"HTTP/1.1 204 No Content\r\n\r\n":
            try:
                c.send(bytes([b])); time.sleep(1)
            except OSError:
                return
    threading.Thread(target=slow, daemon=True).start()
    t0 = time.perf_counter(); subprocess.run([args.bin, "hook", "claude"], input=b'{"hook_event_name":"Stop","session_id":"s"}', env=env); results.append(("server answers a byte a second", time.perf_counter() - t0))
    # FIFO endpoint
    os.remove(work / "endpoint.json"); os.mkfifo(work / "endpoint.json", 0o600)
    t0 = time.perf_counter(); subprocess.run([args.bin, "hook", "claude"], input=b"{}", env=env); results.append(("endpoint.json is a FIFO", time.perf_counter() - t0))
    for what, took in results:
        print(f"forwarder, {what}: {took * 1000:.0f} ms")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["ids", "inflight", "idle", "snapshot", "forwarder", "watch", "pipelined", "sigterm"])
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--bin", default="target/release/switchboard")
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--conns", type=int, default=None, help="idle: 3000; inflight: 1")
    ap.add_argument("--depth", type=int, default=64)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    {"ids": ids, "inflight": inflight, "sigterm": sigterm, "pipelined": pipelined, "idle": idle, "snapshot": snapshot, "forwarder": forwarder, "watch": watch}[args.what](args)
