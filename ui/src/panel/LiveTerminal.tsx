// The one live terminal (issue 24): the agent's tmux pane, live and typable, in the details
// panel. Opening the section starts a tmux client in Rust (only on a pane tied to this agent, else
// the reason shows and Jump is offered); closing it, another session, the panel closing or the
// window hiding ends it. Rust keeps at most one alive in the whole app; nothing runs while this
// section is closed.
import "./LiveTerminal.css";
import { useEffect, useId, useRef, useState } from "react";
import "@xterm/xterm/css/xterm.css";
import type { Session } from "../bindings/Session";
import { CloseIcon, TerminalIcon } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { jump } from "../shared/jump";

/** UTF-16 units per `terminal_write` (≤ 48 KiB of UTF-8, under Rust's 64 KiB cap). */
const WRITE_UNITS = 16_384;

/** The terminal's colours: dark whatever the app's theme, like the terminals agents run in. */
const THEME = {
  background: "#0f1115",
  foreground: "#d8dbe0",
  cursor: "#d8dbe0",
  cursorAccent: "#0f1115",
  selectionBackground: "#3a4252",
};

type Phase =
  | { phase: "opening" }
  | { phase: "live"; id: number }
  | { phase: "refused"; reason: string }
  | { phase: "ended"; reason: string };

/** xterm is a third of the page's script: fetched when a terminal first opens, not at start (the
 * window's first paint waits on every byte the page parses; issue 47). */
const loadXterm = () =>
  Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]).then(([xterm, fit]) => ({
    Terminal: xterm.Terminal,
    FitAddon: fit.FitAddon,
  }));

/** Whether this session's agent runs in a tmux pane (the section is offered only then). */
export function hasPane(session: Session): boolean {
  return !session.ended && !session.exited && session.process?.tmuxPane != null;
}

/** Splits keys for `terminal_write` without cutting a surrogate pair in two. */
export function splitKeys(data: string, units = WRITE_UNITS): string[] {
  const parts: string[] = [];
  let rest = data;
  while (rest.length > units) {
    let end = units;
    const last = rest.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest) parts.push(rest);
  return parts;
}

export function LiveTerminal({
  session,
  open,
  onOpenChange,
}: {
  session: Session;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const sessionId = session.sessionId;
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<Phase>({ phase: "opening" });
  const bodyId = useId();

  useEffect(() => {
    const el = host.current;
    if (!open || !el) return;
    let live = true;
    let id: number | null = null;
    setState({ phase: "opening" });
    const frame: HTMLDivElement = el;
    let stop: (() => void) | null = null;
    loadXterm().then(
      ({ Terminal, FitAddon }) => {
        if (live) stop = attach(Terminal, FitAddon);
      },
      (err: unknown) => {
        if (live) setState({ phase: "refused", reason: `The terminal could not load: ${ipc.toIpcError(err).message}` });
      },
    );
    return () => {
      live = false;
      stop?.();
    };

    function attach(
      Terminal: typeof import("@xterm/xterm").Terminal,
      FitAddon: typeof import("@xterm/addon-fit").FitAddon,
    ): () => void {
      const term = new Terminal({
        fontFamily: '"DejaVu Sans Mono", "Liberation Mono", ui-monospace, monospace',
        fontSize: 11,
        lineHeight: 1.1,
        scrollback: 1_000,
        cursorBlink: false,
        theme: THEME,
      });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(frame);
      fit.fit();

      // Keys go one call at a time, in order; what is typed meanwhile goes with the next call.
      let pending = "";
      let sending = false;
      const flush = () => {
        if (!live || sending || id == null || !pending) return;
        const [keys = ""] = splitKeys(pending);
        pending = pending.slice(keys.length);
        sending = true;
        ipc.terminalWrite(id, keys).then(
          () => {
            sending = false;
            flush();
          },
          (err: unknown) => {
            sending = false;
            pending = "";
            if (live) term.write(`\r\n[Switchboard: not typed: ${ipc.toIpcError(err).message}]\r\n`);
          },
        );
      };
      const typed = term.onData((data) => {
        pending += data;
        flush();
      });
      const resized = term.onResize(({ cols, rows }) => {
        if (id != null) ipc.terminalResize(id, cols, rows).catch(() => {});
      });
      const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => fit.fit());
      observer?.observe(frame);

      ipc
        .terminalOpen(sessionId, term.cols, term.rows, (output) => {
          if (!live) return;
          if ("bytes" in output) term.write(output.bytes);
          else setState({ phase: "ended", reason: output.ended });
        })
        .then(
          (opened) => {
            // Closed (or switched away) while it opened: it ends at once.
            if (!live) {
              void ipc.terminalClose(opened).catch(() => {});
              return;
            }
            id = opened;
            setState({ phase: "live", id: opened });
            // The xterm may have been fitted again while Rust opened it.
            ipc.terminalResize(opened, term.cols, term.rows).catch(() => {});
            term.focus();
            flush();
          },
          (err: unknown) => {
            if (live) setState({ phase: "refused", reason: ipc.toIpcError(err).message });
          },
        );

      return () => {
        observer?.disconnect();
        typed.dispose();
        resized.dispose();
        if (id != null) void ipc.terminalClose(id).catch(() => {});
        term.dispose();
      };
    }
  }, [open, sessionId]);

  // Nobody looks at a hidden window: the terminal ends (opened again by hand).
  useEffect(() => {
    if (!open) return;
    const onVisibility = () => {
      if (document.hidden) onOpenChange(false);
    };
    document.addEventListener("visibilitychange", onVisibility);
    return () => document.removeEventListener("visibilitychange", onVisibility);
  }, [open, onOpenChange]);

  const pane = session.process?.tmuxPane ?? "";
  const refused = open && state.phase === "refused";
  return (
    <section className="details-terminal" data-testid="details-terminal">
      <h3 className="details-subhead terminal-subhead">
        <button
          type="button"
          className="subhead-toggle"
          data-testid="terminal-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          title={open ? "Close its live terminal" : `Open tmux pane ${pane} here, live: what you type goes to the agent`}
          onClick={() => onOpenChange(!open)}
        >
          <span className="subhead-chevron" aria-hidden="true">
            ▸
          </span>
          Terminal
        </button>
        {open && (
          <button
            type="button"
            className="terminal-close"
            data-testid="terminal-close"
            aria-label="Close the live terminal"
            title="Close the live terminal (its tmux client ends; the agent goes on)"
            onClick={() => onOpenChange(false)}
          >
            <CloseIcon />
            Close
          </button>
        )}
      </h3>
      {open && (
        <div className="terminal-body" id={bodyId} data-phase={state.phase}>
          {/* The frame draws the box; xterm fits itself to the host inside it. */}
          <div className="terminal-frame" hidden={refused}>
            <div
              className="terminal-host"
              data-testid="terminal-host"
              ref={host}
              aria-label={`Live terminal: tmux pane ${pane}`}
            />
          </div>
          {state.phase === "opening" && <p className="details-note">Attaching to tmux pane {pane}…</p>}
          {state.phase === "live" && (
            <p className="details-note" data-testid="terminal-live">
              Live: tmux pane {pane}. What you type goes to the agent.
            </p>
          )}
          {state.phase === "ended" && (
            <p className="details-note" role="status" data-testid="terminal-ended">
              {state.reason}
            </p>
          )}
          {refused && (
            <div className="details-note is-error terminal-refused" role="status">
              <span data-testid="terminal-reason">Not opened: {state.reason}</span>
              <button type="button" className="header-button" data-testid="terminal-jump" onClick={() => void jump(sessionId)}>
                <TerminalIcon />
                Jump to terminal
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
