// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { AgentProcess } from "./AgentProcess";
import type { AgentStatus } from "./AgentStatus";
import type { Attention } from "./Attention";
import type { Badge } from "./Badge";
import type { Category } from "./Category";
import type { EditSummary } from "./EditSummary";
import type { Footprint } from "./Footprint";
import type { GitInfo } from "./GitInfo";
import type { Position } from "./Position";
import type { Question } from "./Question";
import type { Reason } from "./Reason";
import type { SessionKind } from "./SessionKind";
import type { Usage } from "./Usage";

export type Session = { sessionId: string, agent: string, 
/**
 * `null` until the first status event.
 */
status: AgentStatus | null, kind: SessionKind, tool: string | null, 
/**
 * The node title (`view::title`): the agent's own name for the session, else the event's
 * title, else the last folder of `cwd`, else a short id. Always set by the reducer.
 */
title: string | null, cwd: string | null, awaitingInput: boolean, question: string | null, message: string | null, interrupted: boolean, errored: boolean, ended: boolean, unread: boolean, 
/**
 * How many subagents are running.
 */
subagents: number, firstEventAt: number, lastEventAt: number, statusChangedAt: number | null, transcriptPath: string | null, 
/**
 * `working` with no event for a long while (a flag, not a status); cleared by its next event.
 */
stale: boolean, 
/**
 * Loaded from the store at start-up and not heard from since.
 */
restored: boolean, 
/**
 * Silent for so long that it has aged off the canvas into the list of older sessions;
 * cleared by its next event.
 */
archived: boolean, 
/**
 * Where the user dragged the node; `null` until then (the canvas places it).
 */
position: Position | null, 
/**
 * The agent CLI's process and where it runs (tty, tmux pane, terminal window), when known.
 */
process: AgentProcess | null, 
/**
 * Its process exited without ending the session (closed or crashed).
 */
exited: boolean, 
/**
 * The permission on screen can be answered from Switchboard: the CLI's hook is held open for
 * an Allow or Deny (issue "act from the board"); the id of that hold, to answer it by.
 * `null` when there is none (not opted in, answered, timed out, or the turn moved on).
 */
decision: number | null, 
/**
 * Until when (Unix ms) the hold waits for Allow / Deny; kept after an unanswered hold ended,
 * while the session is still blocked, so the board can say it expired.
 */
decisionUntil: number | null, 
/**
 * The whole command (or file, URL, …) the permission on screen asks for, while blocked.
 */
command: string | null, 
/**
 * For an edit permission on screen: the file and how many lines it changes, while blocked.
 */
edit: EditSummary | null, 
/**
 * Whether and why it needs the user, and since when (`view::attention`): the needs-you
 * queue's order. Stamped by the reducer; `null` when it does not.
 */
attention: Attention | null, 
/**
 * The machine the agent runs on: `"local"`, or the name of the remote it came from (issue
 * 23). A remote session's id on this board is `<host>:<its id there>`.
 */
host: string, 
/**
 * Its remote's link is down: since when (Unix ms). What it shows is the last that was known.
 */
unreachableSince: number | null, 
/**
 * What the agent's question tool asks while it waits (Claude's AskUserQuestion, Codex's
 * `request_user_input`, Gemini's `ask_user`): each question with its options, in order
 * (issue 24). Empty when it asks nothing, or its CLI did not say.
 */
questions: Array<Question>, 
/**
 * Its tokens and their estimated cost, read from its transcript (issue 25); `null` until
 * the first model response is seen.
 */
usage: Usage | null, 
/**
 * Its process tree's CPU and memory, sampled while it runs; `null` when not known or gone.
 */
footprint: Footprint | null, 
/**
 * The git branch and state of its folder; `null` when not a repository (or not looked yet).
 */
git: GitInfo | null, 
/**
 * Its CLI runs it in the background, with no terminal of its own (issue 48: `claude --bg`):
 * the command that opens it in one (`claude attach 8215c735`). `null` otherwise.
 */
background: string | null, 
/**
 * Done or waiting, silent for [`crate::usage::IDLE_HOLDING_AFTER_MS`] while its process tree
 * holds [`crate::usage::IDLE_HOLDING_BYTES`] or more: worth ending. Stamped by the clock.
 */
idleHolding: boolean, 
/**
 * When its current turn began (Unix ms): its CLI's new-turn event (UserPromptSubmit,
 * BeforeAgent) — what proves a reply typed from the board was taken (issue 33).
 */
turnStartedAt: number | null, 
/**
 * Its place among the cards of its region (`view::board_rank`): 0 blocked, 1 waiting or
 * failed, 2 unread, 3 working, 4 no status yet, 5 done and read, 6 ended. Stamped by the
 * reducer; the board sorts by it.
 */
boardRank: number, 
/**
 * No status yet and younger than [`crate::view::STARTING_GRACE_MS`]: its badge says
 * "Starting", not "Idle". The reducer clears it on the clock.
 */
starting: boolean, 
/**
 * Its badge: tone and word (`view::badge`). Stamped by the reducer, like the three below.
 */
badge: Badge, 
/**
 * The header chip it counts towards (`view::category`).
 */
category: Category | null, 
/**
 * Why it needs the user, or what it does (`view::why`).
 */
reason: Reason | null, };
