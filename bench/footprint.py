#!/usr/bin/env python3
"""What the meter costs (issue 25): the CPU of `switchboard serve` with N live agents whose
process trees it samples every 5 s, whose transcripts it follows, and whose folders' git state
it reads at turn ends — against the same serve with N sessions whose agents are gone (nothing
to sample).

    python3 bench/footprint.py [--agents 50] [--seconds 60] [--bin target/release/switchboard]

Each stand-in agent is a sleeping python process with two children (as a CLI with a shell and
a tool), known to serve through the real forwarder (`switchboard hook claude`), with a Claude
transcript that gains one model response every 10 s. Prints serve's CPU (% of one core) over
the window, measured from /proc/<pid>/stat.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

AGENT = """
import json, subprocess, sys, time
bin, home, sid, transcript, cwd = sys.argv[1:6]
payload = {"hook_event_name": "UserPromptSubmit", "session_id": sid, "prompt": "go", "cwd": cwd,
           "transcript_path": transcript}
subprocess.run([bin, "hook", "claude"], input=json.dumps(payload).encode(), env={"SWITCHBOARD_HOME": home})
kids = [subprocess.Popen(["sleep", "3600"]), subprocess.Popen(["sleep", "3600"])]
n = 0
while True:
    n += 1
    with open(transcript, "a") as f:
        f.write(json.dumps({"type": "assistant", "message": {"id": f"m{n}", "model": "claude-sonnet-4-5",
                 "usage": {"input_tokens": 1000 + n, "output_tokens": 20}}}) + "\\n")
    time.sleep(10)
"""


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def measure(binary: Path, agents: int, seconds: float, live: bool) -> float:
    home = Path(tempfile.mkdtemp(prefix="sb-footprint-"))
    work = home / "ws"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    serve = subprocess.Popen([str(binary), "serve", "--no-notify"], env={**os.environ, "SWITCHBOARD_HOME": str(home)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = []
    try:
        for _ in range(200):
            if (home / "endpoint.json").exists():
                break
            time.sleep(0.05)
        for i in range(agents):
            transcript = home / f"t{i}.jsonl"
            procs.append(subprocess.Popen([sys.executable, "-c", AGENT, str(binary), str(home), f"s{i}",
                                           str(transcript), str(work)]))
        # Every session known (and, when live, its footprint sampled) before the window opens.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            out = subprocess.run([str(binary), "status", "--json"], env={**os.environ, "SWITCHBOARD_HOME": str(home)},
                                 capture_output=True, text=True)
            try:
                sessions = json.loads(out.stdout)["sessions"]
            except (ValueError, KeyError):
                sessions = []
            sampled = [s for s in sessions if s.get("footprint")]
            if len(sessions) >= agents and (len(sampled) >= agents or not live):
                break
            time.sleep(0.5)
        if not live:
            for p in procs:
                subprocess.run(["pkill", "-P", str(p.pid)])
                p.kill()
                p.wait()
            procs = []
            time.sleep(2)
        start, t0 = cpu_ticks(serve.pid), time.monotonic()
        time.sleep(seconds)
        spent = (cpu_ticks(serve.pid) - start) / os.sysconf("SC_CLK_TCK")
        return 100 * spent / (time.monotonic() - t0)
    finally:
        for p in procs:
            subprocess.run(["pkill", "-P", str(p.pid)])
            p.kill()
            p.wait()
        serve.terminate()
        serve.wait()
        subprocess.run(["rm", "-rf", str(home)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/switchboard")
    args = parser.parse_args()
    if not args.bin.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "switchboard"], cwd=ROOT, check=True)
    live = measure(args.bin, args.agents, args.seconds, live=True)
    idle = measure(args.bin, args.agents, args.seconds, live=False)
    print(f"serve CPU over {args.seconds:.0f} s, {args.agents} sessions: "
          f"{live:.2f} % of a core with their agents live (sampled every 5 s, transcripts growing), "
          f"{idle:.2f} % with their agents gone")


if __name__ == "__main__":
    main()
