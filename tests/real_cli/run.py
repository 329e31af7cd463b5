#!/usr/bin/env python3
"""Runs the real-CLI scenarios: `run.py [claude|codex|gemini ...|box]` (default: every CLI the
installer connects, in the registry's order: Rust's table as ui/src/bindings/agents.ts has it,
then `box`: the seven on another box over real SSH).

Each CLI module exposes PACKAGE, VERSION and `run(ctx, report)`. The closing line counts the
scenarios per CLI; the exit status is non-zero when any scenario failed.
"""

from __future__ import annotations

import importlib
import re
import shutil
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402


def installed_clis() -> list[str]:
    """The ids of the registry's CLIs that get hooks (each has its module here, `<id>.py`)."""
    agents = Path(__file__).resolve().parents[2] / "ui/src/bindings/agents.ts"
    rows = re.findall(r'\{ id: "([a-z-]+)".*installs: (true|false) \}', agents.read_text())
    return [cli for cli, installs in rows if installs == "true"]


# Then the seven again, on a box reached over real SSH (box.py).
CLIS = [*installed_clis(), "box"]
# The build's binary, before any Context points SWITCHBOARD_BIN at its private copy.
BUILT = harness.switchboard_bin()


class Context:
    """What a CLI module gets: a private copy of the switchboard binary (so a rebuild during a
    run cannot swap it under a hook) and a scratch folder."""

    def __init__(self, cli: str):
        self.workdir = harness.temp_dir(f"{cli}-")
        self.bin = self.workdir / "switchboard"
        shutil.copy2(BUILT, self.bin)
        harness.os.environ["SWITCHBOARD_BIN"] = str(self.bin)


def run_once(cli: str, module) -> harness.Report:
    report = harness.Report(cli)
    ctx = Context(cli)
    try:
        module.run(ctx, report)
    except Exception:  # a harness error fails this CLI, not the whole run
        report.scenario("harness")
        report.check("the harness ran to the end", False, traceback.format_exc())
    finally:
        harness.remove_tree(ctx.workdir)
    return report


def main(argv: list[str]) -> int:
    chosen = argv or CLIS
    reports = []
    drift = []
    for cli in chosen:
        module = importlib.import_module(cli)
        latest = harness.latest_version(module.PACKAGE) if module.PACKAGE else None
        if latest and latest != module.VERSION:
            drift.append(f"{module.PACKAGE} {module.VERSION} (registry: {latest})")
            print(f"drift: {module.PACKAGE} is pinned at {module.VERSION}, the registry has {latest}", flush=True)
        # One run each: a scenario that fails is a bug to find (issue 46), not to retry.
        reports.append((run_once(cli, module), module.VERSION))
    failed = False
    parts = []
    for report, version in reports:
        total = len(report.results)
        parts.append(f"{report.cli} {version}: {report.passed()}/{total} scenarios"
                     + (f", {len(report.pending)} pending a second source" if report.pending else ""))
        for name in report.failed():
            failed = True
            print(f"FAILED {report.cli}: {name}")
    print("real CLIs — " + "; ".join(parts) + (f" — newer on the registry: {', '.join(drift)}" if drift else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
