// The one place that talks to the Rust side. Tests replace this module with vi.mock("./ipc").
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { TurnItem } from "../bindings/TurnItem";
import type { DoctorReport } from "../bindings/DoctorReport";
import type { HistoryView } from "../bindings/HistoryView";
import type { Session } from "../bindings/Session";
import type { RemoteState } from "../bindings/RemoteState";
import type { PushChannel } from "../bindings/PushChannel";
import type { PushKind } from "../bindings/PushKind";
import type { PushOutcome } from "../bindings/PushOutcome";
import type { Reach } from "../bindings/Reach";
import type { Settings } from "../bindings/Settings";
import type { Verdict } from "../bindings/Verdict";
import type { Snapshot } from "../bindings/Snapshot";
import type { SessionsChanged } from "../bindings/SessionsChanged";
import type { CommandError } from "../bindings/CommandError";
import type { ErrorKind } from "../bindings/ErrorKind";
import type { Jump } from "../bindings/Jump";
import type { Delivered } from "../bindings/Delivered";
import type { Launched } from "../bindings/Launched";
import type { Screen } from "../bindings/Screen";
import type { TerminalEnded } from "../bindings/TerminalEnded";
import { CHIME, FOCUS_SESSION, NOTICES_CHANGED, SESSIONS_CHANGED } from "../bindings/events";
import { toCoordinate } from "../board/geometry";

/** The shape every error that reaches the UI has (`{kind, message}`), generated from Rust; besides
 * the app's own kinds, "unavailable" (not inside the app) and "error" (anything unexpected). */
export type IpcError = Omit<CommandError, "kind"> & { kind: ErrorKind | "unavailable" | "error" };

declare global {
  interface Window {
    __TAURI_INTERNALS__?: unknown;
    /** When the first board reached the screen (see App). */
    __firstBoardFrame?: number;
  }
}

/** False in a plain browser (vite dev, tests): the app then renders its empty state. */
export function isTauri(): boolean {
  return typeof window !== "undefined" && window.__TAURI_INTERNALS__ != null;
}

const notInApp: IpcError = {
  kind: "unavailable",
  message: "Not running inside the Switchboard app.",
};

/** Normalise whatever a rejected invoke carried into `{kind, message}`. */
export function toIpcError(err: unknown): IpcError {
  if (err && typeof err === "object") {
    const e = err as { kind?: unknown; message?: unknown };
    if (typeof e.message === "string") {
      return { kind: typeof e.kind === "string" ? (e.kind as ErrorKind) : "error", message: e.message };
    }
  }
  if (typeof err === "string") return { kind: "error", message: err };
  return { kind: "error", message: String(err) };
}

/** The first board is drawn: the app shows its window (created hidden, so the first frame a user
 * sees is the board, and WebKit does not hold the window's first draw for a page still loading). */
export async function pageReady(): Promise<void> {
  if (!isTauri()) return;
  await invoke("page_ready");
}

export async function snapshot(): Promise<Session[]> {
  if (!isTauri()) return [];
  const snap = await invoke<Snapshot>("snapshot");
  return Array.isArray(snap?.sessions) ? snap.sessions : [];
}

export async function clearUnread(sessionId: string): Promise<void> {
  if (!isTauri()) return;
  await invoke("clear_unread", { sessionId });
}

export async function removeSession(sessionId: string): Promise<void> {
  if (!isTauri()) return;
  await invoke("remove_session", { sessionId });
}

/** Where the user left a node (after a drag, never during one). Rust persists it. */
export async function setPosition(sessionId: string, x: number, y: number): Promise<void> {
  if (!isTauri()) return;
  await invoke("set_position", { sessionId, x: toCoordinate(x), y: toCoordinate(y) });
}

/** The session's recent status changes, oldest first (newest last); empty outside the app. */
export async function sessionHistory(sessionId: string): Promise<HistoryView[]> {
  if (!isTauri()) return [];
  const entries = await invoke<HistoryView[]>("session_history", { sessionId });
  return Array.isArray(entries) ? entries : [];
}

/** Removes every ended session; resolves with how many went. */
/** Brings the agent's terminal forward, or returns the command that resumes the session. */
export async function jumpToTerminal(sessionId: string): Promise<Jump | null> {
  if (!isTauri()) return null;
  return invoke<Jump>("jump_to_terminal", { sessionId });
}

export async function removeEnded(): Promise<number> {
  if (!isTauri()) return 0;
  const removed = await invoke<number>("remove_ended");
  return typeof removed === "number" ? removed : 0;
}

/** What the user should know about the session database (set aside, refused, …). */
export async function notices(): Promise<string[]> {
  if (!isTauri()) return [];
  const list = await invoke<string[]>("notices");
  return Array.isArray(list) ? list.filter((n) => typeof n === "string") : [];
}

/**
 * Resolves with the installer's human-readable summary (with `dryRun`, what it would change in
 * which file, nothing written); rejects with an {@link IpcError}.
 */
export async function installHooks(agent = "all", dryRun = false): Promise<string> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<string>("install_hooks", { agent, dryRun });
  } catch (err) {
    throw toIpcError(err);
  }
}

/**
 * The same checks as `switchboard doctor`: each CLI's hooks, trust and switches, the running
 * instance and a test event. `null` outside the app.
 */
export async function doctor(): Promise<DoctorReport | null> {
  if (!isTauri()) return null;
  try {
    return await invoke<DoctorReport>("doctor");
  } catch (err) {
    throw toIpcError(err);
  }
}

/**
 * Answers the permission a session holds open (its `decision`). Rejects with an {@link IpcError};
 * kind `notWaiting` when it was already answered at the terminal or timed out.
 */
export async function decide(sessionId: string, decision: number, verdict: Verdict): Promise<void> {
  if (!isTauri()) throw notInApp;
  try {
    await invoke("decide", { sessionId, decision, verdict });
  } catch (err) {
    throw toIpcError(err);
  }
}

/**
 * Types option `option` (from 1) of the question on the session's screen into its own tmux pane.
 * Rejects with an {@link IpcError}; kind `notDelivered` with the reason when nothing was typed.
 */
export async function answerQuestion(sessionId: string, option: number): Promise<Delivered> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<Delivered>("answer_question", { sessionId, option });
  } catch (err) {
    throw toIpcError(err);
  }
}

/**
 * A written answer to the question on screen, given through the CLI's hook while it holds the
 * question for the board (Claude Code with Allow / Deny on); rejects with the reason otherwise.
 */
export async function answerText(sessionId: string, text: string): Promise<Delivered> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<Delivered>("answer_text", { sessionId, text });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** The session's last turn, read from its transcript (issue 24). */
export async function lastTurn(sessionId: string): Promise<TurnItem[]> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<TurnItem[]>("last_turn", { sessionId });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Types the agent's next prompt into its own tmux pane, then Enter; rejects like {@link answerQuestion}. */
export async function reply(sessionId: string, text: string): Promise<Delivered> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<Delivered>("reply", { sessionId, text });
  } catch (err) {
    throw toIpcError(err);
  }
}

/**
 * Sends SIGTERM to the session's agent: its own process group (the CLI and the tools it runs),
 * nothing else. Rejects with an {@link IpcError}; kind `notDelivered` or `unknownSession`, with why.
 */
export async function endAgent(sessionId: string): Promise<void> {
  if (!isTauri()) throw notInApp;
  try {
    await invoke("end_agent", { sessionId });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** A CLI `new_agent` can start: an id of Rust's table whose row says it starts (`AGENTS`). */
export type NewAgentCli = string;

/** What `new_agent` is given; `null` for each choice left out. */
export type NewAgent = {
  cli: NewAgentCli;
  /** The folder to start in; `null`: where Switchboard was started. */
  cwd: string | null;
  /** A branch to start it on, in a new git worktree; `null`: the folder itself. */
  worktree: string | null;
  /** Its first prompt; `null`: none. */
  prompt: string | null;
};

/**
 * Starts an agent CLI in Switchboard's own tmux server; its node appears with its first hook.
 * Rejects with an {@link IpcError} that says why (not on PATH, no such folder, bad branch, …).
 */
export async function newAgent(args: NewAgent): Promise<Launched> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<Launched>("new_agent", { cli: args.cli, cwd: args.cwd, worktree: args.worktree, prompt: args.prompt });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** The last lines of the agent's tmux pane, or why there are none. */
export async function peekScreen(sessionId: string): Promise<Screen> {
  if (!isTauri()) return { text: null, reason: notInApp.message };
  try {
    return await invoke<Screen>("peek_screen", { sessionId });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** What the live terminal hands the web view: its tmux client's output, or why it ended by itself. */
export type TerminalOutput = { bytes: Uint8Array } | TerminalEnded;

function terminalOutput(message: unknown): TerminalOutput | null {
  if (message instanceof ArrayBuffer) return { bytes: new Uint8Array(message) };
  if (ArrayBuffer.isView(message)) return { bytes: new Uint8Array(message.buffer, message.byteOffset, message.byteLength) };
  if (message && typeof message === "object" && typeof (message as { ended?: unknown }).ended === "string") {
    return { ended: (message as TerminalEnded).ended };
  }
  return null;
}

/**
 * Opens the one live terminal on the session's tmux pane (Rust ends any other first), sized
 * `cols`×`rows`; `onOutput` gets what it draws. Resolves with its id for the calls below; rejects
 * with an {@link IpcError} that says why it was not opened (not tied to its agent, remote, …).
 */
export async function terminalOpen(
  sessionId: string,
  cols: number,
  rows: number,
  onOutput: (output: TerminalOutput) => void,
): Promise<number> {
  if (!isTauri()) throw notInApp;
  const output = new Channel<unknown>((message) => {
    const out = terminalOutput(message);
    if (out) onOutput(out);
  });
  try {
    return await invoke<number>("terminal_open", { sessionId, cols, rows, output });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Keys typed into live terminal `id` (at most 64 KiB a call; the caller splits a paste). */
export async function terminalWrite(id: number, data: string): Promise<void> {
  if (!isTauri()) throw notInApp;
  try {
    await invoke("terminal_write", { id, data });
  } catch (err) {
    throw toIpcError(err);
  }
}

export async function terminalResize(id: number, cols: number, rows: number): Promise<void> {
  if (!isTauri()) return;
  try {
    await invoke("terminal_resize", { id, cols, rows });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Ends live terminal `id` (its tmux client); nothing when it ended already. */
export async function terminalClose(id: number): Promise<void> {
  if (!isTauri()) return;
  try {
    await invoke("terminal_close", { id });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Each remote followed (issue 23): its link's state, since when, its sessions; empty outside the app. */
export async function remotes(): Promise<RemoteState[]> {
  if (!isTauri()) return [];
  try {
    const list = await invoke<RemoteState[]>("remotes");
    return Array.isArray(list) ? list : [];
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Reach as a fresh install has it: no sound, no quiet hours, no push channel on (issue 25). */
export const DEFAULT_REACH: Reach = {
  sound: [],
  quietHours: { enabled: false, from: "22:00", to: "07:00" },
  ntfy: { enabled: false, url: "", includeText: false },
  webhook: { enabled: false, url: "", includeText: false },
  answerFromPhone: false,
  replyTopic: "",
  replyToken: "",
};

/** What a fresh install has: no CLI waits for Switchboard, no remote is followed, no reach. */
export const DEFAULT_SETTINGS: Settings = { decide: [], holdSeconds: 30, remotes: [], reach: DEFAULT_REACH };

/** Which CLIs' permission prompts wait for Allow / Deny here, and for how long. */
export async function settings(): Promise<Settings> {
  if (!isTauri()) return DEFAULT_SETTINGS;
  try {
    return await invoke<Settings>("settings");
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Saves the settings; resolves with them as saved (unknown CLIs dropped, the wait clamped). */
export async function setSettings(next: Settings): Promise<Settings> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<Settings>("set_settings", { settings: next });
  } catch (err) {
    throw toIpcError(err);
  }
}

/** Why a push URL cannot be used, in Rust's words (its one check); `null` when it can. */
export async function pushUrlProblem(url: string): Promise<string | null> {
  if (!isTauri()) return null;
  return (await invoke<string | null>("push_url_problem", { url })) ?? null;
}

/**
 * A push channel's Test button: one test message through `channel` as shown (saved or not), now.
 * Resolves with the receiver's answer or why there was none; rejects only when it could not try.
 */
export async function testPush(kind: PushKind, channel: PushChannel): Promise<PushOutcome> {
  if (!isTauri()) throw notInApp;
  try {
    return await invoke<PushOutcome>("test_push", { kind, channel });
  } catch (err) {
    throw toIpcError(err);
  }
}

const noop: UnlistenFn = () => {};

export async function onSessionsChanged(
  handler: (change: SessionsChanged) => void,
): Promise<UnlistenFn> {
  if (!isTauri()) return noop;
  return listen<SessionsChanged>(SESSIONS_CHANGED, (event) => handler(event.payload));
}

/** Rust says the board's tone is due (a new need, a chosen status, outside quiet hours). */
export async function onChime(handler: (sessionId: string) => void): Promise<UnlistenFn> {
  if (!isTauri()) return noop;
  return listen<string>(CHIME, (event) => handler(event.payload));
}

export async function onFocusSession(handler: (sessionId: string) => void): Promise<UnlistenFn> {
  if (!isTauri()) return noop;
  return listen<string>(FOCUS_SESSION, (event) => handler(event.payload));
}

/** The instance's notices changed (e.g. the database cannot be written); the full list. */
export async function onNoticesChanged(handler: (notices: string[]) => void): Promise<UnlistenFn> {
  if (!isTauri()) return () => {};
  return listen<string[]>(NOTICES_CHANGED, (event) => handler(event.payload));
}
