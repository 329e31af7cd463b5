// Remotes in the Connections panel (issue 23): other machines whose agents are on this board,
// each followed by running a command (`ssh devbox`). The list shows each link's state as Rust
// reports it, polled while the panel is open; adding or removing one saves the settings, and
// Rust follows (or lets go) at once.
import "./Remotes.css";
import { useEffect, useState, type FormEvent } from "react";
import type { LinkState } from "../bindings/LinkState";
import type { RemoteSpec } from "../bindings/RemoteSpec";
import type { RemoteState } from "../bindings/RemoteState";
import type { SavedSettings } from "../state/settings";
import { useClockText } from "../state/clock";
import { StatusGlyph } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { absoluteTime, LOCAL_HOST, sinceWhen } from "../shared/sessionLabels";
import type { Tone } from "../shared/status";

/** How often the list asks Rust for the links' states while the panel is open. */
export const REMOTES_POLL_MS = 2_000;

export const MAX_REMOTE_NAME = 40;

/** What is wrong with a remote about to be added, in words, and which field it is about. */
export type RemoteProblem = { field: "name" | "command"; text: string };

/** The command as typed on one line: its words (no shell quoting; `ssh devbox` → ["ssh", "devbox"]). */
export function commandWords(line: string): string[] {
  return line.trim().split(/\s+/).filter(Boolean);
}

/**
 * Why `name` and `command` cannot be added next to `existing`, or `null` when they can. A name is
 * what a session's id starts with on this board (`devbox:…`) and what `switchboard remote install`
 * takes: letters, digits, `-`, `_`, `.`; never `local`, which is this machine.
 */
export function remoteProblem(name: string, command: string, existing: readonly RemoteSpec[]): RemoteProblem | null {
  const trimmed = name.trim();
  if (trimmed === "") return { field: "name", text: "Give it a name, e.g. devbox." };
  if (trimmed.length > MAX_REMOTE_NAME) {
    return { field: "name", text: `A name has at most ${MAX_REMOTE_NAME} characters.` };
  }
  if (!/^[A-Za-z0-9._-]+$/.test(trimmed)) {
    return { field: "name", text: "A name has only letters, digits, -, _ and . (no spaces)." };
  }
  if (trimmed.toLowerCase() === LOCAL_HOST) {
    return { field: "name", text: "“local” is this machine: choose another name." };
  }
  if (existing.some((r) => r.name.toLowerCase() === trimmed.toLowerCase())) {
    return { field: "name", text: `There is already a remote called ${trimmed}.` };
  }
  if (commandWords(command).length === 0) {
    return { field: "command", text: "Say how to reach it: the command, e.g. ssh devbox." };
  }
  return null;
}

const TONE: Record<LinkState, Tone> = {
  connected: "done",
  connecting: "working",
  unreachable: "error",
  not_followed: "idle",
};

/** The state in words: "Connected since 14:02", "Connecting…", "Unreachable since 13:40". */
export function linkWords(remote: RemoteState | null, now: number): string {
  if (!remote) return "Not reported yet";
  const since = remote.since != null ? ` since ${sinceWhen(remote.since, now)}` : "";
  switch (remote.state) {
    case "connected":
      return `Connected${since}`;
    case "connecting":
      return "Connecting…";
    case "unreachable":
      return `Unreachable${since}`;
    case "not_followed":
      return "Not followed";
  }
}

function sessionCount(n: number): string {
  return n === 0 ? "no sessions" : n === 1 ? "1 session" : `${n} sessions`;
}

/** More about a link, for its tooltip: when exactly, the version there, the lag of its last change. */
function linkDetail(remote: RemoteState): string {
  const parts = [remote.since != null ? absoluteTime(remote.since) : null];
  if (remote.version) parts.push(`Switchboard ${remote.version} there`);
  if (remote.lagMs != null) parts.push(`last change took ${Math.round(remote.lagMs)} ms to arrive`);
  return parts.filter(Boolean).join(" · ");
}

type Row = { name: string; command: string[]; state: RemoteState | null; followed: boolean };

/** One row per remote in the settings (in their order), then any other that Rust still reports. */
function rowsOf(specs: readonly RemoteSpec[], states: readonly RemoteState[]): Row[] {
  const byName = new Map(states.map((s) => [s.name, s]));
  const rows: Row[] = specs.map((spec) => ({
    name: spec.name,
    command: spec.command,
    state: byName.get(spec.name) ?? null,
    followed: true,
  }));
  for (const state of states) {
    if (!specs.some((spec) => spec.name === state.name)) {
      rows.push({ name: state.name, command: state.command, state, followed: false });
    }
  }
  return rows;
}

function RemoteRow({ row, busy, onRemove }: { row: Row; busy: boolean; onRemove(): void }) {
  const { name, state } = row;
  const words = useClockText((now) => linkWords(state, now));
  const tone = state ? TONE[state.state] : "idle";
  const command = row.command.join(" ");
  return (
    <li
      className={`check-row remote-row tone-${tone}`}
      data-testid="remote"
      data-remote={name}
      data-state={state?.state ?? "none"}
    >
      <StatusGlyph tone={tone} className="check-glyph" />
      <div className="check-body">
        <div className="remote-line">
          <span className="check-label remote-name" title={name}>
            {name}
          </span>
          <span className="remote-state" data-testid="remote-state" title={state ? linkDetail(state) : undefined}>
            {words}
          </span>
          {state && (
            <span className="remote-sessions" data-testid="remote-sessions">
              · {sessionCount(state.sessions)}
            </span>
          )}
        </div>
        <code className="remote-command" title={command}>
          {command}
        </code>
        {state?.error && state.state !== "connected" && (
          <span className="check-detail remote-error" data-testid="remote-error">
            {state.error}
          </span>
        )}
      </div>
      {row.followed && (
        <button
          type="button"
          className="copy-button remote-remove"
          data-testid="remote-remove"
          aria-label={`Remove ${name}`}
          title={`Stop following ${name} (its sessions leave the board)`}
          disabled={busy}
          onClick={onRemove}
        >
          Remove
        </button>
      )}
    </li>
  );
}

/** The links' states from Rust: now, then every {@link REMOTES_POLL_MS} while mounted (the panel is open). */
function useRemoteStates(round: number): { states: RemoteState[] | null; error: string | null } {
  const [states, setStates] = useState<RemoteState[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const poll = () =>
      ipc.remotes().then(
        (list) => {
          if (!live) return;
          setStates(list);
          setError(null);
        },
        (err: unknown) => live && setError(ipc.toIpcError(err).message),
      );
    void poll();
    const timer = setInterval(() => void poll(), REMOTES_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [round]);
  return { states, error };
}

/** The remotes followed, their links, and a form to add one. */
export function RemotesSettings({ settings }: { settings: SavedSettings }) {
  const { saved, saving } = settings;
  // A new round polls at once: after a save, the list says what Rust made of it without waiting.
  const [round, setRound] = useState(0);
  const { states, error: pollError } = useRemoteStates(round);
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  const [problem, setProblem] = useState<RemoteProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);

  const specs = saved?.remotes ?? [];
  const rows = rowsOf(specs, states ?? []);

  const save = async (remotes: RemoteSpec[]): Promise<boolean> => {
    if (!saved) return false;
    setError(null);
    try {
      await settings.save({ ...saved, remotes });
      return true;
    } catch (err) {
      setError(ipc.toIpcError(err).message);
      return false;
    } finally {
      setRound((r) => r + 1);
    }
  };

  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    if (!saved || saving) return;
    const wrong = remoteProblem(name, command, specs);
    setProblem(wrong);
    if (wrong) return;
    const spec = { name: name.trim(), command: commandWords(command) };
    if (await save([...specs, spec])) {
      setAdded(spec.name);
      setName("");
      setCommand("");
    }
  };

  const onRemove = (removed: string) => void save(specs.filter((r) => r.name !== removed));

  const hintName = name.trim() && /^[A-Za-z0-9._-]+$/.test(name.trim()) ? name.trim() : (added ?? "NAME");
  const disabled = !saved || saving;
  const problemId = "remote-problem";

  return (
    <section className="remotes-settings" data-testid="remotes-settings" aria-busy={saving} aria-label="Remotes">
      <h3 className="check-heading">
        <span className="check-name">Remotes</span>
      </h3>
      {rows.length > 0 ? (
        <ul className="check-list remote-list">
          {rows.map((row) => (
            <RemoteRow key={row.name} row={row} busy={disabled} onRemove={() => onRemove(row.name)} />
          ))}
        </ul>
      ) : (
        <p className="decide-settings-note remote-empty" data-testid="remotes-empty">
          Agents on other machines, followed over SSH: add one below.
        </p>
      )}
      {pollError && (
        <p className="decide-settings-note remote-poll-error" data-testid="remotes-poll-error">
          Could not read the remotes&apos; state: {pollError}
        </p>
      )}
      <form className="remote-form" data-testid="remote-form" onSubmit={(event) => void onAdd(event)} noValidate>
        <input
          type="text"
          className="remote-input remote-name-input"
          data-testid="remote-name"
          aria-label="Remote name"
          placeholder="name, e.g. devbox"
          autoComplete="off"
          spellCheck={false}
          value={name}
          disabled={disabled}
          aria-invalid={problem?.field === "name"}
          aria-describedby={problem?.field === "name" ? problemId : undefined}
          onChange={(event) => {
            setName(event.target.value);
            if (problem?.field === "name") setProblem(null);
          }}
        />
        <input
          type="text"
          className="remote-input remote-command-input"
          data-testid="remote-command"
          aria-label="Command that reaches it"
          placeholder="ssh devbox"
          autoComplete="off"
          spellCheck={false}
          value={command}
          disabled={disabled}
          aria-invalid={problem?.field === "command"}
          aria-describedby={problem?.field === "command" ? problemId : undefined}
          onChange={(event) => {
            setCommand(event.target.value);
            if (problem?.field === "command") setProblem(null);
          }}
        />
        <button type="submit" className="header-action remote-add" data-testid="remote-add" disabled={disabled}>
          Add
        </button>
      </form>
      {problem && (
        <p className="remote-problem" id={problemId} role="alert" data-testid="remote-problem">
          {problem.text}
        </p>
      )}
      {error && (
        <p className="install-result is-error remote-save-error" role="alert" data-testid="remotes-error">
          {error}
        </p>
      )}
      <p className="decide-settings-note" data-testid="remote-hint">
        Then run <code>switchboard remote install {hintName}</code> to put Switchboard there.
      </p>
    </section>
  );
}
