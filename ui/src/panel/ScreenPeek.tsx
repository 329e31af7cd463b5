// The agent's screen in the details panel: the last lines of its tmux pane, read from Rust every
// PEEK_MS while the section is open — and only then: nobody looking means no tmux calls.
import "./ScreenPeek.css";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import type { Screen } from "../bindings/Screen";
import * as ipc from "../shared/ipc";

/** How often an open Screen section reads the pane. */
export const PEEK_MS = 1_500;

/** Lines from the bottom within which the box still follows new output. */
const FOLLOW_SLACK_PX = 24;

export function ScreenPeek({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const [screen, setScreen] = useState<Screen | null>(null);
  const box = useRef<HTMLPreElement>(null);
  // Follows the output, unless the user scrolled up to read.
  const follow = useRef(true);
  const bodyId = useId();

  useEffect(() => {
    if (!open) return;
    let live = true;
    let reading = false;
    const peek = () => {
      // One read at a time; none while the window is hidden.
      if (reading || (typeof document !== "undefined" && document.hidden)) return;
      reading = true;
      ipc.peekScreen(sessionId).then(
        (next) => {
          reading = false;
          if (live) setScreen(next);
        },
        (err: unknown) => {
          reading = false;
          if (live) setScreen({ text: null, reason: `Could not read it: ${ipc.toIpcError(err).message}` });
        },
      );
    };
    follow.current = true;
    peek();
    const timer = setInterval(peek, PEEK_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [open, sessionId]);

  const text = open ? screen?.text ?? null : null;
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [text]);

  const onScroll = () => {
    const el = box.current;
    if (el) follow.current = el.scrollHeight - el.scrollTop - el.clientHeight <= FOLLOW_SLACK_PX;
  };

  return (
    <section className="details-screen" data-testid="details-screen">
      <h3 className="details-subhead">
        <button
          type="button"
          className="subhead-toggle"
          data-testid="screen-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          title={open ? "Stop reading its screen" : "Show the last lines of its terminal, read every 1.5 s while open"}
          onClick={() => {
            // What it showed when last open is not what it shows now.
            if (open) setScreen(null);
            setOpen(!open);
          }}
        >
          <span className="subhead-chevron" aria-hidden="true">
            ▸
          </span>
          Screen
        </button>
      </h3>
      {open && (
        <div className="screen-body" id={bodyId}>
          {screen == null && <p className="details-empty">Reading its screen…</p>}
          {screen?.text != null && (
            <pre
              className="screen-text"
              data-testid="screen-text"
              ref={box}
              onScroll={onScroll}
              tabIndex={0}
              aria-label="Its screen"
            >
              {screen.text}
            </pre>
          )}
          {screen != null && screen.text == null && (
            <p className="details-empty" data-testid="screen-reason">
              {screen.reason ?? "Nothing to show."}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
