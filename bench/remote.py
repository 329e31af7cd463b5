#!/usr/bin/env python3
"""Remotes over SSH on loopback (issue 23), as root: a private OpenSSH sshd on 127.0.0.1 and a
second Unix user as the box(es), like tests/remote.rs.

  bench/remote.py latency [--events 500]
      remote hook → the desktop's update, over `ssh … sh -s` + `switchboard link`: one event at a
      time, timed from the POST on the box to its `changed` frame on the desktop's own
      GET /updates stream (what the app's web view is told, before its 100 ms paint pacing).
  bench/remote.py load [--remotes 10 --sessions 100 --rate 50 --seconds 20]
      10 remotes (10 instances on the box, each its own state dir) × 100 sessions at 50 status
      changes a second in total: whether the desktop keeps up (each remote's last number applied vs
      sent), the desktop's local hook p50/p99 meanwhile vs before, and its RSS per remote.

Needs `make static` (the binary `remote install` sends) and `cargo build --bin switchboard`.
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "debug" / "switchboard"
USER = "switchboard-remote"


def sh(command, **kw):
    return subprocess.run(command, shell=True, check=True, capture_output=True, text=True, **kw).stdout


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait(check, timeout=60, interval=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = check()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("condition not met")


class Box:
    """The remote user, fresh, and an sshd that lets it in with one key."""

    def __init__(self):
        subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
        if subprocess.run(["id", "-u", USER], capture_output=True).returncode != 0:
            sh(f"useradd --create-home --shell /bin/sh {USER}")
        sh(f"usermod -p '*' {USER}")
        self.home = Path(sh(f"getent passwd {USER} | cut -d: -f6").strip())
        sh(f"find '{self.home}' -mindepth 1 -delete")
        self.dir = Path(tempfile.mkdtemp(prefix="sb-remote-bench-"))
        os.chmod(self.dir, 0o755)
        d = self.dir
        sh(f"ssh-keygen -q -t ed25519 -N '' -f {d}/host_key && ssh-keygen -q -t ed25519 -N '' -f {d}/client_key")
        shutil.copy(d / "client_key.pub", d / "authorized_keys")
        os.chmod(d / "authorized_keys", 0o644)
        os.makedirs("/run/sshd", exist_ok=True)
        self.port = free_port()
        (d / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n"
            f"AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"UsePAM no\nPermitRootLogin no\nAllowUsers {USER}\nStrictModes no\nLogLevel ERROR\n")
        (d / "known_hosts").write_text(f"[127.0.0.1]:{self.port} " + (d / "host_key.pub").read_text())
        self.sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(d / "sshd_config")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        wait(lambda: socket.create_connection(("127.0.0.1", self.port), timeout=1))

    def ssh(self):
        d = self.dir
        return ["ssh", "-F", "/dev/null", "-i", f"{d}/client_key", "-p", str(self.port),
                "-o", f"UserKnownHostsFile={d}/known_hosts", "-o", "StrictHostKeyChecking=yes",
                "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", f"{USER}@127.0.0.1"]

    def endpoint(self, state):
        path = state / "endpoint.json"
        return wait(lambda: path.exists() and json.loads(path.read_text()))

    def close(self):
        os.killpg(self.sshd.pid, 9)
        subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class Desktop:
    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="sb-desk-"))
        self.env = {**os.environ, "SWITCHBOARD_HOME": str(self.work), "SWITCHBOARD_NO_NOTIFY": "1"}
        self.proc = subprocess.Popen([str(BIN), "serve", "--no-notify"], env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait(lambda: (self.work / "endpoint.json").exists())
        self.endpoint = json.loads((self.work / "endpoint.json").read_text())

    def cli(self, *args):
        return subprocess.run([str(BIN), *args], env=self.env, capture_output=True, text=True, check=True).stdout

    def remotes(self):
        return json.loads(self.cli("remote", "list", "--json"))

    def rss_mib(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.work, ignore_errors=True)


def post(endpoint, agent, body):
    conn = http.client.HTTPConnection("127.0.0.1", endpoint["port"], timeout=10)
    conn.request("POST", f"/hook/{agent}?key={endpoint['key']}", json.dumps(body))
    conn.getresponse().read()
    conn.close()


def timed_post(endpoint, body):
    started = time.perf_counter()
    post(endpoint, "custom", body)
    return time.perf_counter() - started


def follow_updates(endpoint, seen, stop):
    """Reads the desktop's own link stream; records when each message first arrives."""
    s = socket.create_connection(("127.0.0.1", endpoint["port"]))
    s.sendall(f"GET /updates?key={endpoint['key']} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    buffer = b""
    while not stop.is_set():
        data = s.recv(65536)
        if not data:
            return
        buffer += data
        *lines, buffer = buffer.split(b"\n")
        now = time.perf_counter()
        for line in lines:
            if b'"changed"' in line:
                try:
                    frame = json.loads(line.strip())
                except ValueError:
                    continue  # a chunk-size line of the HTTP framing
                message = frame["session"].get("message") or ""
                seen.setdefault(message, now)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def add_remote(desk, box, name, state=None):
    command = box.ssh() + ([f"env SWITCHBOARD_HOME={state}"] if state else [])
    desk.cli("remote", "add", name, "--", *command)


def latency(args):
    box, desk = Box(), Desktop()
    try:
        add_remote(desk, box, "box")
        print(desk.cli("remote", "install", "box").splitlines()[0])
        wait(lambda: desk.remotes()[0]["state"] == "connected", 120)
        state = box.home / ".local/share/dev.switchboard.app"
        remote = box.endpoint(state)
        seen, stop = {}, threading.Event()
        threading.Thread(target=follow_updates, args=(desk.endpoint, seen, stop), daemon=True).start()
        samples = []
        for n in range(args.events):
            message = f"latency {n}"
            body = {"sessionId": f"l{n % 20}", "status": "done" if n % 2 else "working", "message": message}
            started = time.perf_counter()
            post(remote, "custom", body)
            arrived = wait(lambda: seen.get(message), 30, 0.0005)
            samples.append((arrived - started) * 1000)
        stop.set()
        print(f"remote hook → desktop update over ssh, {len(samples)} events one at a time: "
              f"p50 {pct(samples, 0.5):.1f} ms, p99 {pct(samples, 0.99):.1f} ms, max {max(samples):.1f} ms")
    finally:
        desk.close()
        box.close()


def load(args):
    box, desk = Box(), Desktop()
    try:
        add_remote(desk, box, "r0")
        desk.cli("remote", "install", "r0")
        base_rss = desk.rss_mib()
        local = [timed_post(desk.endpoint, {"sessionId": f"local{n % 10}", "status": "working"}) * 1000
                 for n in range(300)]
        print(f"desktop local hook before: p50 {pct(local, 0.5):.2f} ms, p99 {pct(local, 0.99):.2f} ms")
        desk.cli("remote", "remove", "r0")
        base_rss = desk.rss_mib()
        states = []
        for r in range(args.remotes):
            state = box.home / f".sb-r{r}"
            add_remote(desk, box, f"r{r}", state)
            states.append(state)
        wait(lambda: all(r["state"] == "connected" for r in desk.remotes()), 180)
        endpoints = [box.endpoint(state) for state in states]
        sent = [0] * args.remotes
        stop = threading.Event()
        local = []

        def drive():
            interval = 1.0 / args.rate
            n = 0
            next_at = time.monotonic()
            while not stop.is_set():
                r = n % args.remotes
                session = (n // args.remotes) % args.sessions
                post(endpoints[r], "custom", {"sessionId": f"s{session}", "status": "done" if n % 3 else "working",
                                              "message": f"change {n}"})
                sent[r] += 1
                n += 1
                next_at += interval
                time.sleep(max(0.0, next_at - time.monotonic()))

        # Every session first, then the steady rate.
        for r, endpoint in enumerate(endpoints):
            for s in range(args.sessions):
                post(endpoint, "custom", {"sessionId": f"s{s}", "status": "working"})
        driver = threading.Thread(target=drive, daemon=True)
        driver.start()
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            local.append(timed_post(desk.endpoint, {"sessionId": "local-under-load", "status": "working"}) * 1000)
            time.sleep(0.05)
        stop.set()
        driver.join()
        time.sleep(2)
        remotes = desk.remotes()
        sessions = sum(r["sessions"] for r in remotes)
        lags = [r.get("lagMs") or 0 for r in remotes]
        print(f"{args.remotes} remotes × {args.sessions} sessions, {args.rate} changes/s for {args.seconds} s: "
              f"{sessions} remote sessions on the desktop, {sum(sent)} changes sent")
        print("  each remote's last update applied: " + ", ".join(str(r["lastSeq"]) for r in remotes))
        print(f"  last change's lag per remote: max {max(lags)} ms")
        print(f"desktop local hook under that load: p50 {pct(local, 0.5):.2f} ms, p99 {pct(local, 0.99):.2f} ms "
              f"({len(local)} hooks)")
        rss = desk.rss_mib()
        print(f"desktop RSS: {base_rss:.1f} MiB without remotes, {rss:.1f} MiB with them: "
              f"{(rss - base_rss) / args.remotes:.2f} MiB per remote of {args.sessions} sessions")
    finally:
        desk.close()
        box.close()


def main():
    if os.geteuid() != 0:
        sys.exit("bench/remote.py needs root (a test user and sshd)")
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("latency")
    p.add_argument("--events", type=int, default=500)
    p = sub.add_parser("load")
    p.add_argument("--remotes", type=int, default=10)
    p.add_argument("--sessions", type=int, default=100)
    p.add_argument("--rate", type=float, default=50)
    p.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    {"latency": latency, "load": load}[args.mode](args)


if __name__ == "__main__":
    main()
