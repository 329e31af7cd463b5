#!/usr/bin/env python3
"""Draws the pushes the stand-in phone received in the real-CLI tests as an Android phone shows
an ntfy notification — title, message, action buttons — for the README (issue 49).

    python3 tests/real_cli/run.py claude codex   # keeps target/phone-pushes/*.json
    python3 scripts/phone-picture.py             # writes docs/review/phone-push.png

The picture is labelled as what it is: the stand-in phone's rendering of real pushes, not a
screenshot of a real phone. Needs `wkhtmltoimage` (Debian: wkhtmltopdf).
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUSHES = ROOT / "target" / "phone-pushes"
OUT = ROOT / "docs" / "review" / "phone-push.png"
# Which pushes, in order, and what each shows.
SHOWN = [("claude-permission", "Claude Code held on a command (privacy switch off)"),
         ("codex-question", "Codex asks a question (privacy switch off: options by number)")]

STYLE = """
body { margin: 0; background: #1f2430; font-family: 'DejaVu Sans', sans-serif; width: 560px; }
.phone { padding: 22px 20px 10px 20px; }
.caption { color: #c9ced8; font-size: 13px; margin: 14px 4px 6px 4px; }
.card { background: #ffffff; border-radius: 18px; padding: 14px 16px 8px 16px; }
.head { color: #5f6470; font-size: 12px; }
.head b { color: #338574; }
.title { color: #1b1d22; font-size: 15px; font-weight: bold; margin-top: 6px; }
.message { color: #3b3f48; font-size: 14px; margin-top: 3px; white-space: pre-wrap; }
.actions { margin-top: 10px; }
.action { display: inline-block; color: #338574; font-size: 13px; font-weight: bold;
          padding: 7px 14px 7px 0; margin-right: 14px; }
.note { color: #8a90a0; font-size: 12px; margin: 16px 4px 4px 4px; }
"""


def card(message: dict, caption: str) -> str:
    actions = "".join(f'<span class="action">{html.escape(a.get("label", ""))}</span>'
                      for a in message.get("actions") or [])
    topic = html.escape(message.get("topic", ""))
    return (f'<div class="caption">{html.escape(caption)}</div>'
            f'<div class="card"><div class="head"><b>ntfy</b> · {topic} · now</div>'
            f'<div class="title">{html.escape(message.get("title", ""))}</div>'
            f'<div class="message">{html.escape(message.get("message", ""))}</div>'
            f'<div class="actions">{actions}</div></div>')


def main() -> int:
    cards = []
    for name, caption in SHOWN:
        path = PUSHES / f"{name}.json"
        if not path.exists():
            print(f"no {path}: run `python3 tests/real_cli/run.py claude codex` first", file=sys.stderr)
            return 1
        cards.append(card(json.loads(path.read_text()), caption))
    note = ("The stand-in phone's rendering (tests/real_cli/fake_ntfy.py) of pushes a real Claude Code and a "
            "real Codex raised in make test, drawn as Android's ntfy app lays them out; not a screenshot "
            "of a real phone.")
    page = (f'<html><head><meta charset="utf-8"><style>{STYLE}</style></head><body><div class="phone">'
            + "".join(cards) + f'<div class="note">{html.escape(note)}</div></div></body></html>')
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "phone.html"
        source.write_text(page)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["wkhtmltoimage", "--quiet", "--width", "560", "--encoding", "utf-8",
                        str(source), str(OUT)], check=True)
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
