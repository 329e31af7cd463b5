// The session's last turn in the details panel (issue 24, "Read"): its prompt, what the agent
// said, the tools it called and what they returned — read by Rust from its transcript, whatever
// terminal it runs in. Read when the section opens and again when the session reports, never
// polled.
import "./LastTurn.css";
import { useEffect, useId, useState } from "react";
import type { Session } from "../bindings/Session";
import type { TurnItem } from "../bindings/TurnItem";
import * as ipc from "../shared/ipc";

type Read = { phase: "reading" } | { phase: "ok"; items: TurnItem[] } | { phase: "failed"; message: string };

const MARK: Record<TurnItem["part"], string> = { prompt: "›", text: "", tool: "⏺", result: "⎿", note: "·" };

export function LastTurn({ session }: { session: Session }) {
  const [open, setOpen] = useState(true);
  const [read, setRead] = useState<Read>({ phase: "reading" });
  const bodyId = useId();
  const { sessionId, lastEventAt, transcriptPath } = session;

  useEffect(() => {
    if (!open || transcriptPath == null) return;
    let live = true;
    ipc.lastTurn(sessionId).then(
      (items) => live && setRead({ phase: "ok", items }),
      (err: unknown) => live && setRead({ phase: "failed", message: ipc.toIpcError(err).message }),
    );
    return () => {
      live = false;
    };
    // Again whenever it reports: its transcript has grown.
  }, [open, sessionId, lastEventAt, transcriptPath]);

  if (transcriptPath == null || session.host !== "local") return null;
  return (
    <section className="details-turn" data-testid="details-turn">
      <h3 className="details-subhead">
        <button
          type="button"
          className="subhead-toggle"
          data-testid="turn-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          title={open ? "Hide its last turn" : "Show its last turn, from its transcript"}
          onClick={() => setOpen(!open)}
        >
          <span className="subhead-chevron" aria-hidden="true">
            ▸
          </span>
          Last turn
        </button>
      </h3>
      {open && (
        <div className="turn-body" id={bodyId}>
          {read.phase === "reading" && <p className="details-empty">Reading its transcript…</p>}
          {read.phase === "failed" && (
            <p className="details-empty is-error" role="alert">
              Could not read its transcript: {read.message}
            </p>
          )}
          {read.phase === "ok" && read.items.length === 0 && <p className="details-empty">Nothing in its transcript yet.</p>}
          {read.phase === "ok" && read.items.length > 0 && (
            <ol className="turn-list" data-testid="turn-list" aria-label="Its last turn">
              {read.items.map((item, i) => (
                <li key={i} className={`turn-item is-${item.part}`} data-testid={`turn-${item.part}`}>
                  {MARK[item.part] && (
                    <span className="turn-mark" aria-hidden="true">
                      {MARK[item.part]}
                    </span>
                  )}
                  <span className="turn-text">{item.text}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </section>
  );
}
