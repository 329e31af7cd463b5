#!/usr/bin/env python3
"""Soak: N simulated agents drive a private `switchboard serve` through the real forwarder for a
while; RSS and open descriptors of serve are sampled every 10 s and plotted to a PNG.

    bench/soak.py [--minutes 30] [--agents 20] [--bin target/release/switchboard] [--out bench/out/soak]

Each agent runs turns like a real CLI: UserPromptSubmit, tool calls (Pre/PostToolUse), now and
then a PermissionRequest or a question, Stop; every event is one `switchboard hook claude`
process, as the CLIs run it. Needs matplotlib for the plot (pip install matplotlib); the CSV is
written either way.
"""

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path


def rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def agent(bin_path: str, env: dict, n: int, stop: threading.Event, counter: list):
    rng = random.Random(n)
    session = f"soak-{n}"
    transcript = f"/tmp/soak-{n}.jsonl"

    def hook(event: str, **fields):
        payload = {"hook_event_name": event, "session_id": session, "cwd": f"/src/project-{n % 5}",
                   "transcript_path": transcript, **fields}
        subprocess.run([bin_path, "hook", "claude"], input=json.dumps(payload).encode(), env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counter[0] += 1

    while not stop.is_set():
        hook("UserPromptSubmit", prompt="do the thing " * rng.randint(1, 50))
        for _ in range(rng.randint(1, 6)):
            hook("PreToolUse", tool_name="Bash", tool_input={"command": "ls " + "x" * rng.randint(1, 400)})
            if rng.random() < 0.15:
                hook("PermissionRequest", tool_name="Bash", tool_input={"command": "rm -rf build"})
                time.sleep(rng.uniform(0.2, 1.0))
            hook("PostToolUse", tool_name="Bash", tool_response={"stdout": "y" * rng.randint(0, 4000)})
            time.sleep(rng.uniform(0.05, 0.4))
        hook("Stop", last_assistant_message="done " * rng.randint(1, 200))
        time.sleep(rng.uniform(0.5, 2.0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--agents", type=int, default=20)
    ap.add_argument("--bin", default="target/release/switchboard")
    ap.add_argument("--out", default="bench/out/soak")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="sb-soak-"))
    bin_path = str(work / "switchboard")
    shutil.copy2(args.bin, bin_path)
    env = {**os.environ, "SWITCHBOARD_HOME": str(work / "state"), "SWITCHBOARD_NO_NOTIFY": "1"}
    serve = subprocess.Popen([bin_path, "serve", "--no-notify"], env=env, stderr=subprocess.DEVNULL)
    while not (work / "state" / "endpoint.json").exists():
        time.sleep(0.05)
    stop = threading.Event()
    counter = [0]
    threads = [threading.Thread(target=agent, args=(bin_path, env, n, stop, counter), daemon=True)
               for n in range(args.agents)]
    for t in threads:
        t.start()
    samples = []
    started = time.time()
    try:
        while time.time() - started < args.minutes * 60:
            samples.append((round(time.time() - started), rss_kib(serve.pid), fds(serve.pid), counter[0]))
            print(f"t={samples[-1][0]:5d}s rss={samples[-1][1]} KiB fds={samples[-1][2]} hooks={samples[-1][3]}",
                  flush=True)
            time.sleep(10)
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        serve.terminate()
        serve.wait(10)
    with open(out / "soak.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seconds", "rss_kib", "open_fds", "hooks"])
        w.writerows(samples)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        t = [s[0] / 60 for s in samples]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot(t, [s[1] / 1024 for s in samples], label="RSS (MiB)")
        ax.set_xlabel("minutes")
        ax.set_ylabel("RSS (MiB)")
        ax2 = ax.twinx()
        ax2.plot(t, [s[2] for s in samples], color="tab:orange", label="open fds")
        ax2.set_ylabel("open descriptors")
        ax.set_title(f"switchboard serve, {args.agents} agents through the forwarder ({samples[-1][3]} hooks)")
        fig.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(out / "soak.png", dpi=100)
        print(f"plot: {out / 'soak.png'}")
    except ImportError:
        print("matplotlib missing: CSV only")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
