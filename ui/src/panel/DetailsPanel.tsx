// The side panel for the selected node (or the session picked in the Older list): who it is,
// what it asks (answered with a click or 1–9) or a reply to it, its screen and its live terminal
// on request, and its recent history as a timeline, newest last. The history is fetched from Rust
// when the panel opens and again whenever that session changes (its sessions-changed).
import "./DetailsPanel.css";
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { HistoryView } from "../bindings/HistoryView";
import type { Session } from "../bindings/Session";
import { selectDetailsId, useSwitchboard } from "../state/store";
import { ClockText } from "../card/ClockText";
import { reasonTooltip } from "../shared/status";
import {
  absoluteTime,
  agentName,
  clockTime,
  isRemote,
  relativeAge,
  shortenHome,
  silenceFor,
  titleOf,
  unreachableLine,
} from "../shared/sessionLabels";
import { CloseIcon, StatusGlyph, TerminalIcon } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { canDecide, CommandWords, DecideButtons, DecideWhat, EditLine, useHowToAnswer } from "./Decide";
import { jump, JumpNoteText } from "../shared/jump";
import { CopyButton } from "../settings/Connections";
import { asking, pickOption } from "./Answer";
import { QuestionSection, ReplyBox } from "./AnswerViews";
import { LastTurn } from "./LastTurn";
import { ScreenPeek } from "./ScreenPeek";
import { hasPane, LiveTerminal } from "./LiveTerminal";
import { UsagePanel } from "./UsagePanel";
import { canEnd } from "../shared/ending";
import { isTypingTarget, optionOf, shortcutFor } from "../shared/shortcuts";
import { useDecideNote } from "../state/decide";
import { useJumpNote } from "../state/jumpNotes";
import { useConnections } from "../state/connections";
import { useRefused } from "../state/answers";

type Loaded = { phase: "loading" } | { phase: "ok"; entries: HistoryView[] } | { phase: "failed"; message: string };

function errorMessage(err: unknown): string {
  if (err && typeof err === "object" && typeof (err as { message?: unknown }).message === "string") {
    return (err as { message: string }).message;
  }
  return String(err);
}

export function HistoryItem({ entry }: { entry: HistoryView }) {
  const badge = entry.badge;
  const reason = entry.reason;
  return (
    <li className={`history-entry tone-${badge.tone}`} data-testid="history-entry" data-status={entry.status}>
      <span className="history-dot">
        <StatusGlyph tone={badge.tone} />
      </span>
      <div className="history-body">
        <div className="history-line">
          <span className="history-word" data-testid="history-word">
            {badge.word}
          </span>
          <time
            className="history-time"
            data-testid="history-time"
            dateTime={new Date(entry.at).toISOString()}
            title={absoluteTime(entry.at)}
          >
            {clockTime(entry.at)} · <ClockText text={(now) => relativeAge(entry.at, now)} />
          </time>
        </div>
        {reason && (
          <div className={`history-reason look-${reason.look}`} data-testid="history-reason" title={reasonTooltip(reason)}>
            {reason.lead && <span className="history-tool">{reason.lead}</span>}
            {reason.lead && reason.text && " "}
            {/* A command breaks at its spaces, never inside a flag (issue 44.2). */}
            {reason.text &&
              (reason.lead ? (
                <span className="is-command">
                  <CommandWords text={reason.text} />
                </span>
              ) : (
                <span>{reason.text}</span>
              ))}
          </div>
        )}
      </div>
    </li>
  );
}

/** Where the agent runs, from what its hooks reported: a tmux pane, a terminal, or gone. */
function whereItRuns(session: Session): string | null {
  const p = session.process;
  if (session.exited) return "Its process has exited.";
  if (session.background) {
    // Its CLI runs it with no terminal (`claude --bg`): the CLI's own command opens one.
    const on = isRemote(session) ? ` on ${session.host}` : "";
    return `Runs in the background${on}, with no terminal of its own: \`${session.background}\` opens it in one.`;
  }
  if (!p) return null;
  const parts = [p.tmuxPane ? `tmux pane ${p.tmuxPane}` : null, p.tty, p.termProgram, `pid ${p.pid}`];
  return `Runs ${isRemote(session) ? `on ${session.host}, ` : ""}in ${parts.filter(Boolean).join(" · ")}`;
}

function JumpButton({ id }: { id: string }) {
  const note = useJumpNote(id);
  // An answer typed from here was refused: its terminal is where to answer.
  const suggested = useRefused(id);
  return (
    <div className="details-jump">
      <button
        type="button"
        className={suggested ? "header-button is-suggested" : "header-button"}
        data-testid="jump-to-terminal"
        title="Jump to terminal (Enter)"
        aria-keyshortcuts="Enter"
        onClick={() => void jump(id)}
      >
        <TerminalIcon />
        Jump to terminal
      </button>
      {note && (
        <div
          className={note.failed ? "details-note jump-result is-error" : "details-note jump-result"}
          role="status"
          data-testid="jump-result"
          title={note.text}
        >
          <JumpNoteText note={note} />
          {/* Not copied for the user: a click of their own can still copy it (or select it). */}
          {note.command && !note.copied && <CopyButton text={note.command} testId="jump-copy" />}
        </div>
      )}
    </div>
  );
}

/** A local agent still running whose process is known: the one kind that can be ended from here. */

type EndNote = { text: string; failed: boolean };

/**
 * "End agent…": SIGTERM to the agent's process group, after an inline confirmation that names
 * what ends. Never on a single click; Escape or Cancel takes it back.
 */
function EndAgent({ session }: { session: Session }) {
  const [confirming, setConfirming] = useState(false);
  const [ending, setEnding] = useState(false);
  const [note, setNote] = useState<EndNote | null>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const shown = canEnd(session);
  const pid = session.process?.pid;

  // The safe choice has the focus: Enter, Enter does not end it.
  useEffect(() => {
    if (confirming) cancel.current?.focus();
  }, [confirming]);

  if (!shown && !note) return null;
  const name = agentName(session.agent);

  const dismiss = () => {
    setConfirming(false);
    requestAnimationFrame(() => opener.current?.focus());
  };
  const end = async () => {
    if (ending || pid == null) return;
    setEnding(true);
    try {
      await ipc.endAgent(session.sessionId);
      setNote({ text: `Sent SIGTERM to pid ${pid}`, failed: false });
    } catch (err) {
      setNote({ text: `Not ended: ${ipc.toIpcError(err).message}`, failed: true });
    } finally {
      setEnding(false);
      dismiss();
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    // Escape takes back the question, and only that (not the panel too).
    event.preventDefault();
    event.stopPropagation();
    dismiss();
  };

  return (
    <div className="details-end" data-testid="details-end">
      {shown && !confirming && (
        <button
          ref={opener}
          type="button"
          className="header-button is-danger"
          data-testid="end-agent"
          title={`Send SIGTERM to ${name} (pid ${pid}) and the tools it runs`}
          onClick={() => {
            setNote(null);
            setConfirming(true);
          }}
        >
          End agent…
        </button>
      )}
      {shown && confirming && (
        <div
          className="end-confirm"
          role="group"
          aria-label="End the agent?"
          aria-busy={ending}
          data-testid="end-confirm"
          onKeyDown={onKeyDown}
        >
          <span className="end-question">
            End {name} (pid {pid}) and the tools it runs?
          </span>
          <span className="end-buttons">
            <button
              type="button"
              className="decide-button is-deny"
              data-testid="end-agent-confirm"
              disabled={ending}
              onClick={() => void end()}
            >
              {ending ? "Ending…" : "End"}
            </button>
            <button
              ref={cancel}
              type="button"
              className="header-button"
              data-testid="end-agent-cancel"
              disabled={ending}
              onClick={dismiss}
            >
              Cancel
            </button>
          </span>
        </div>
      )}
      {note && (
        <p
          className={note.failed ? "details-note is-error" : "details-note"}
          role="status"
          data-testid="end-agent-note"
          title={note.text}
        >
          {note.text}
        </p>
      )}
    </div>
  );
}

/** Allow / Deny for the held permission, and why a late answer did not go through. */
function DecideSection({ session }: { session: Session }) {
  const note = useDecideNote(session.sessionId);
  const how = useHowToAnswer(session);
  if (!canDecide(session) && !note) {
    // A permission the board does not hold still says what it would change, and where (and
    // why there) it is answered.
    if (session.status !== "blocked") return null;
    return (
      <>
        <EditLine session={session} testId="details-edit" />
        {how && (
          <div className="details-how" data-testid="details-how-to-answer">
            <p className="details-how-text">{how.text}</p>
            {how.canTurnOn && (
              <button
                type="button"
                className="header-button"
                data-testid="details-open-settings"
                onClick={() => useConnections.getState().show("settings")}
              >
                Allow / Deny settings
              </button>
            )}
          </div>
        )}
      </>
    );
  }
  return (
    <div className="details-decide" data-testid="details-decide">
      {canDecide(session) && (
        <>
          <DecideWhat session={session} place="details" />
          <DecideButtons session={session} place="details" />
          <p className="details-note">Answer here or in the terminal — whichever comes first.</p>
        </>
      )}
      {note && (
        <p className="details-note is-error" role="status" data-testid="details-decide-note" title={note.full}>
          {note.text}
        </p>
      )}
    </div>
  );
}

/** When it was last heard from, for the panel's note. */
function lastHeard(session: Session, now: number): string {
  if (session.archived) return `In Older — ${silenceFor(session.lastEventAt, now)}. It returns to the canvas when it reports.`;
  if (session.restored) return `From the last run — ${silenceFor(session.lastEventAt, now)}.`;
  return `Last event ${relativeAge(session.lastEventAt, now)}.`;
}

function Details({ id }: { id: string }) {
  const session = useSwitchboard((s) => s.sessions[id]);
  const closeDetails = useSwitchboard((s) => s.closeDetails);
  const [history, setHistory] = useState<Loaded>({ phase: "loading" });
  const list = useRef<HTMLOListElement>(null);
  // The live terminal: closed with the panel, and with another session (a new panel).
  const [terminalOpen, setTerminalOpen] = useState(false);

  // `session` is a new object on every sessions-changed for this id: that is when to refetch.
  useEffect(() => {
    if (!session) return;
    let live = true;
    ipc.sessionHistory(id).then(
      (entries) => live && setHistory({ phase: "ok", entries }),
      (err: unknown) => live && setHistory({ phase: "failed", message: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [id, session]);

  // Newest last, like a log: keep the latest entry in view.
  const count = history.phase === "ok" ? history.entries.length : 0;
  const newest = history.phase === "ok" ? history.entries[count - 1]?.at : undefined;
  useLayoutEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [count, newest]);

  if (!session) return null;
  const badge = session.badge;
  const title = titleOf(session);
  const folder = session.cwd ? shortenHome(session.cwd) : null;
  const terminal = hasPane(session);

  // Keys 1–9 in the panel answer its session's question (the canvas answers the selected node's).
  const onKeyDown = (event: KeyboardEvent) => {
    if (isTypingTarget(event.target) || shortcutFor(event.nativeEvent) !== "option" || !asking(session)) return;
    const option = optionOf(event);
    if (option == null) return;
    event.preventDefault();
    event.stopPropagation();
    void pickOption(session, option);
  };

  return (
    <aside
      className={`details-panel tone-${badge.tone}${terminal && terminalOpen ? " has-terminal" : ""}`}
      data-testid="details-panel"
      data-session-id={id}
      aria-label={`${title}: details`}
      // Focusable, so a click anywhere in it lets its keys (1–9) answer.
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <div className="details-head">
        <span className="details-status">
          <span className="status-dot">
            <StatusGlyph tone={badge.tone} />
          </span>
          <span className="status-word">{badge.word}</span>
          {session.ended && <span className="ended-mark"> · ended</span>}
        </span>
        <button type="button" className="icon-button" aria-label="Close details" title="Close (Esc)" onClick={closeDetails}>
          <CloseIcon />
        </button>
      </div>
      <h2 className="details-title" title={title}>
        {title}
      </h2>
      <div className="details-meta">
        <span>{agentName(session.agent)}</span>
        {isRemote(session) && (
          <>
            <span className="node-sep" aria-hidden="true">
              ·
            </span>
            <span className="details-host" data-testid="details-host">
              {session.host}
            </span>
          </>
        )}
        {folder && (
          <>
            <span className="node-sep" aria-hidden="true">
              ·
            </span>
            <span className="details-folder" title={session.cwd ?? undefined}>
              {folder}
            </span>
          </>
        )}
      </div>
      {session.unreachableSince != null && (
        <p className="details-note is-unreachable" data-testid="details-unreachable" title={absoluteTime(session.unreachableSince)}>
          <ClockText text={(now) => unreachableLine(session.host, session.unreachableSince!, now)} /> — it shows
          what was last known.
        </p>
      )}
      <DecideSection session={session} />
      <QuestionSection session={session} />
      <ReplyBox session={session} />
      <p className="details-note" title={absoluteTime(session.lastEventAt)}>
        <ClockText text={(now) => lastHeard(session, now)} />
      </p>
      {whereItRuns(session) && (
        <p className="details-note" data-testid="details-where">
          {whereItRuns(session)}
        </p>
      )}
      {!session.ended && <JumpButton id={id} />}
      {!isRemote(session) && <EndAgent session={session} />}
      <LastTurn session={session} />
      {!session.ended && <ScreenPeek sessionId={id} />}
      {terminal && <LiveTerminal session={session} open={terminalOpen} onOpenChange={setTerminalOpen} />}
      <UsagePanel session={session} />

      <h3 className="details-subhead">Recent history</h3>
      {history.phase === "failed" && (
        <p className="details-empty is-error" role="alert">
          Could not load the history: {history.message}
        </p>
      )}
      {history.phase === "ok" && history.entries.length === 0 && <p className="details-empty">No history yet.</p>}
      {history.phase === "ok" && history.entries.length > 0 && (
        <ol className="history-list" data-testid="history-list" ref={list}>
          {history.entries.map((entry, i) => (
            <HistoryItem key={`${entry.at}-${i}`} entry={entry} />
          ))}
        </ol>
      )}
    </aside>
  );
}

export function DetailsPanel() {
  const id = useSwitchboard(selectDetailsId);
  // A fresh panel per session: no history of the previous one shows while the next loads.
  return id ? <Details key={id} id={id} /> : null;
}
