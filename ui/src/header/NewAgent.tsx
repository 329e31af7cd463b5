// New agent: starts an agent CLI in Switchboard's own tmux server (`new_agent`), optionally in a
// new git worktree, with a first prompt. Nothing is drawn for it here: its node appears by itself
// when the agent's first hook arrives. A small popover under the header button; Escape closes it
// and gives the focus back to the button.
import "./NewAgent.css";
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import type { Launched } from "../bindings/Launched";
import * as ipc from "../shared/ipc";
import { AGENTS } from "../bindings/agents";
import { CopyButton } from "../settings/Connections";
import type { DoctorReport } from "../bindings/DoctorReport";
import { CloseIcon, PlusIcon } from "../shared/icons";
import { agentName, shortenHome } from "../shared/sessionLabels";
import { PathText } from "../shared/jump";
import { useConnections } from "../state/connections";

/** The CLIs `new` starts, from Rust's table. */
export const NEW_AGENT_CLIS: ReadonlyArray<ipc.NewAgentCli> = AGENTS.filter((row) => row.starts).map((row) => row.id);

/**
 * The CLIs New agent offers: those it starts that are on this machine's PATH (the checks' report,
 * as Diagnostics shows it), and those that are not. Every one is offered until the report is in.
 */
export function installedClis(report: DoctorReport | null): { offered: string[]; missing: string[] } {
  if (!report) return { offered: [...NEW_AGENT_CLIS], missing: [] };
  const onPath = new Set(report.agents.filter((agent) => agent.path != null).map((agent) => agent.agent));
  // A CLI the report does not know (newer than the checks) is offered: starting it says what is wrong.
  const known = new Set(report.agents.map((agent) => agent.agent));
  const offered = NEW_AGENT_CLIS.filter((cli) => onPath.has(cli) || !known.has(cli));
  return { offered, missing: NEW_AGENT_CLIS.filter((cli) => !offered.includes(cli)) };
}

/** How long "Started in …" stays before the popover closes by itself (not while pointed at). */
export const STARTED_CLOSE_MS = 6_000;

type Phase =
  | { phase: "editing" }
  | { phase: "starting" }
  | { phase: "failed"; message: string }
  | { phase: "started"; launched: Launched };

/** A field left empty (or only spaces) is `null`: Rust then uses its default. */
function orNull(text: string): string | null {
  return text.trim() === "" ? null : text.trim();
}

function NewAgentDialog({ id, onClose, toggle }: { id: string; onClose: () => void; toggle: RefObject<HTMLElement | null> }) {
  const report = useConnections((s) => s.report);
  const { offered, missing } = installedClis(report);
  const [picked, setCli] = useState<ipc.NewAgentCli | null>(null);
  // The user's pick while it is offered, else the first installed one.
  const cli = picked != null && offered.includes(picked) ? picked : (offered[0] ?? "");
  const popover = useRef<HTMLDivElement>(null);
  const [cwd, setCwd] = useState("");
  const [worktree, setWorktree] = useState("");
  const [prompt, setPrompt] = useState("");
  const [state, setState] = useState<Phase>({ phase: "editing" });
  const [pointedAt, setPointedAt] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  const fields = useId();

  useEffect(() => {
    // Without scrolling anything to it: the popover stays where it opened.
    first.current?.focus({ preventScroll: true });
    // What is installed may have changed since the checks last ran.
    void useConnections.getState().refresh();
  }, []);

  // Esc and a click outside close it wherever the focus is (after an error it may be nowhere in it).
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      onClose();
    };
    const onPointer = (event: PointerEvent | MouseEvent) => {
      const target = event.target as Node | null;
      if (!target || popover.current?.contains(target) || toggle.current?.contains(target)) return;
      onClose();
    };
    window.addEventListener("keydown", onKey, true);
    document.addEventListener("mousedown", onPointer, true);
    return () => {
      window.removeEventListener("keydown", onKey, true);
      document.removeEventListener("mousedown", onPointer, true);
    };
  }, [onClose, toggle]);

  // Started: it closes after a moment, unless the pointer is on it (copying the attach command).
  const started = state.phase === "started";
  useEffect(() => {
    if (!started || pointedAt) return;
    const timer = setTimeout(onClose, STARTED_CLOSE_MS);
    return () => clearTimeout(timer);
  }, [started, pointedAt, onClose]);

  const starting = state.phase === "starting";
  const start = async (event: { preventDefault(): void }) => {
    event.preventDefault();
    if (starting) return;
    setState({ phase: "starting" });
    try {
      // The prompt goes as typed (its lines and indents); only an empty one is left out.
      const launched = await ipc.newAgent({
        cli,
        cwd: orNull(cwd),
        worktree: orNull(worktree),
        prompt: prompt.trim() === "" ? null : prompt,
      });
      setState({ phase: "started", launched });
    } catch (err) {
      setState({ phase: "failed", message: ipc.toIpcError(err).message });
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    // Keys pressed here are the popover's, not the canvas's shortcuts (Esc: see above).
    if (event.key !== "Escape") event.stopPropagation();
  };

  return (
    <div
      ref={popover}
      className="new-agent-popover"
      id={id}
      role="dialog"
      aria-label="New agent"
      data-testid="new-agent-dialog"
      onKeyDown={onKeyDown}
      onMouseEnter={() => setPointedAt(true)}
      onMouseLeave={() => setPointedAt(false)}
    >
      <div className="drawer-head new-agent-head">
        <h2 className="drawer-title">New agent</h2>
        <button type="button" className="icon-button" aria-label="Close New agent" title="Close (Esc)" onClick={onClose}>
          <CloseIcon />
        </button>
      </div>
      {state.phase === "started" ? (
        <div className="new-agent-started" role="status" data-testid="new-agent-started">
          <p className="new-agent-line" title={state.launched.cwd}>
            Started in <PathText text={shortenHome(state.launched.cwd)} /> — its card appears with its first event.
          </p>
          <p className="new-agent-attach-label">To watch it in a terminal:</p>
          <div className="new-agent-attach">
            <code className="new-agent-command" data-testid="new-agent-attach">
              <PathText text={state.launched.attach} />
            </code>
            <CopyButton text={state.launched.attach} testId="new-agent-copy" />
          </div>
        </div>
      ) : (
        <form className="new-agent-form" onSubmit={(event) => void start(event)} aria-busy={starting}>
          <fieldset className="new-agent-field new-agent-clis" disabled={starting}>
            <legend className="new-agent-label">CLI</legend>
            {offered.length > 0 && (
            <div className="segmented">
              {offered.map((name, i) => (
                <label key={name} className="segment">
                  <input
                    ref={i === 0 ? first : undefined}
                    className="visually-hidden"
                    type="radio"
                    name={`${fields}-cli`}
                    value={name}
                    data-testid={`new-agent-cli-${name}`}
                    checked={cli === name}
                    onChange={() => setCli(name)}
                  />
                  <span className="segment-face">{agentName(name)}</span>
                </label>
              ))}
            </div>
            )}
            {offered.length === 0 && (
              <p className="new-agent-missing" data-testid="new-agent-none">
                No agent CLI is installed here yet:{" "}
                <button type="button" className="link-button" data-testid="new-agent-diagnostics" onClick={() => useConnections.getState().show("diagnostics")}>
                  Diagnostics
                </button>{" "}
                says how to install one.
              </p>
            )}
            {offered.length > 0 && missing.length > 0 && (
              <p className="new-agent-missing" data-testid="new-agent-missing">
                Not installed: {missing.map((cli) => AGENTS.find((row) => row.id === cli)?.name ?? cli).join(", ")}
              </p>
            )}
          </fieldset>
          <label className="new-agent-field">
            <span className="new-agent-label">Folder</span>
            <input
              className="new-agent-input is-path"
              data-testid="new-agent-cwd"
              type="text"
              placeholder="this folder: where Switchboard was started"
              autoComplete="off"
              spellCheck={false}
              value={cwd}
              readOnly={starting}
              onChange={(event) => setCwd(event.target.value)}
            />
          </label>
          <label className="new-agent-field">
            <span className="new-agent-label">
              Worktree branch <span className="new-agent-optional">optional</span>
            </span>
            <input
              className="new-agent-input is-path"
              data-testid="new-agent-worktree"
              type="text"
              placeholder="none: work in the folder itself"
              autoComplete="off"
              spellCheck={false}
              value={worktree}
              readOnly={starting}
              onChange={(event) => setWorktree(event.target.value)}
            />
          </label>
          <label className="new-agent-field">
            <span className="new-agent-label">
              First prompt <span className="new-agent-optional">optional</span>
            </span>
            <textarea
              className="new-agent-input new-agent-prompt"
              data-testid="new-agent-prompt"
              rows={3}
              placeholder="What it should do first"
              aria-keyshortcuts="Control+Enter Meta+Enter"
              value={prompt}
              readOnly={starting}
              onChange={(event) => setPrompt(event.target.value)}
              onKeyDown={(event) => {
                // Enter is a new line; Ctrl+Enter (Cmd+Enter) starts it, as in a chat box.
                if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) void start(event);
              }}
            />
          </label>
          {state.phase === "failed" && (
            <p className="install-result is-error new-agent-error" role="alert" data-testid="new-agent-error">
              {state.message}
            </p>
          )}
          <div className="new-agent-actions">
            <button type="submit" className="primary-button new-agent-start" data-testid="new-agent-start" disabled={starting || cli === ""}>
              {starting ? "Starting…" : `Start ${agentName(cli)}`}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** "+ New agent" in the header, and its popover. */
export function NewAgentButton() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();
  const popover = `${id}-new-agent`;

  const close = useCallback(() => {
    setOpen(false);
    // Back to the button, when the focus was in the popover (it goes with it).
    const active = document.activeElement;
    if (!active || active === document.body || document.getElementById(popover)?.contains(active)) {
      button.current?.focus();
    }
  }, [popover]);

  return (
    <span className="new-agent">
      <button
        ref={button}
        type="button"
        className={open ? "header-action is-on" : "header-action"}
        data-testid="new-agent-toggle"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? popover : undefined}
        // No tooltip while open: it would cover the popover's heading.
        title={open ? undefined : `Start ${NEW_AGENT_CLIS.map(agentName).join(", ")} in Switchboard's own tmux`}
        onClick={() => (open ? close() : setOpen(true))}
      >
        <PlusIcon />
        New agent
      </button>
      {open && <NewAgentDialog id={popover} onClose={close} toggle={button} />}
    </span>
  );
}
