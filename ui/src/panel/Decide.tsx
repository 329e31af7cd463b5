// Answering a held permission from the board: Allow / Deny on the node and in the details
// panel, and the `a` / `d` keys. The first answer wins — the board, the terminal or the clock —
// so a late click is told so, briefly, instead of being an error to dismiss.
import "./Decide.css";
import { useEffect, useLayoutEffect, useRef, useState, type MouseEvent } from "react";
import { setNote, useDecide, type DecideNote } from "../state/decide";
import { AGENTS } from "../bindings/agents";
import type { Session } from "../bindings/Session";
import type { Verdict } from "../bindings/Verdict";
import * as ipc from "../shared/ipc";
import { selectDetailsId, useSwitchboard } from "../state/store";
import { useKnownSettings } from "../state/settings";
import { isRemote } from "../shared/sessionLabels";

/**
 * Whether the web view can tell what is on screen: without IntersectionObserver (tests in jsdom)
 * a command counts as seen.
 */
function canWatch(): boolean {
  return typeof IntersectionObserver !== "undefined";
}

/** The command this hold would let through ("" for none). */
function heldText(session: Session): string {
  return session.command ?? session.message ?? "";
}

/**
 * Whether the whole command of this hold has been on screen (its end scrolled or expanded into
 * view, in the card or the panel): Allow answers at once only then (issue 44.2).
 */
export function commandSeen(session: Session): boolean {
  if (!canWatch() || heldText(session) === "" || session.decision == null) return true;
  return useDecide.getState().seen[session.sessionId] === session.decision;
}

function useCommandSeen(session: Session): boolean {
  const seen = useDecide((s) => s.seen[session.sessionId] === session.decision);
  return seen || !canWatch() || heldText(session) === "" || session.decision == null;
}

function markSeen(sessionId: string, decision: number) {
  if (useDecide.getState().seen[sessionId] === decision) return;
  useDecide.setState((s) => ({ seen: { ...s.seen, [sessionId]: decision } }));
}

/**
 * Bring the end of the held command into view in the details panel (where it shows whole, with
 * the panel scrolling as a whole). `false` when the panel does not show it.
 */
export function revealCommandEnd(sessionId: string): boolean {
  const end = document.querySelector<HTMLElement>(
    `[data-testid="details-command-end"][data-session-id="${CSS.escape(sessionId)}"]`,
  );
  if (!end) return false;
  // The end, and Allow / Deny right below it, in view together.
  const buttons = document.querySelector<HTMLElement>('[data-testid="details-decide"] .decide-buttons');
  (buttons ?? end).scrollIntoView({ block: "nearest" });
  if (buttons) end.scrollIntoView({ block: "nearest" });
  return true;
}

/**
 * The command in words: each run of non-blanks kept on one line where it fits, so a line breaks
 * at the spaces (before `&&`, `|`, a flag), never inside `--force` or at a path's hyphen.
 */
export function CommandWords({ text }: { text: string }) {
  return <>{commandWords(text).map((part, i) => (/^\s/.test(part) ? part : <span className="cmd-word" key={i}>{part}</span>))}</>;
}

/**
 * The command's words and blanks, in order: `&&`, `||`, `|` and `;` are words of their own even
 * when written without spaces (`make&&rm -rf x`), so a line can break beside them too.
 */
export function commandWords(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(/(\s+)/)) {
    if (part === "") continue;
    if (/^\s/.test(part)) out.push(part);
    else out.push(...part.split(/(&&|\|\||\||;)/).filter((word) => word !== ""));
  }
  return out;
}

/** Marks the hold seen once this end of its command is whole on screen (clipped by nothing). */
function useEndWatch(session: Session) {
  const ref = useRef<HTMLSpanElement>(null);
  const { sessionId, decision } = session;
  useEffect(() => {
    const el = ref.current;
    if (!el || decision == null || !canWatch()) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting && e.intersectionRatio >= 0.99)) markSeen(sessionId, decision);
      },
      { threshold: [0, 1] },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [sessionId, decision]);
  return ref;
}

/** The permission on screen can be answered from here now. */
export function canDecide(session: Session): session is Session & { decision: number } {
  return session.status === "blocked" && session.decision != null && !session.ended;
}

/**
 * Why an answer cannot go out now although the prompt is held: its remote is unreachable (the
 * hold is on that machine). `null` when it can.
 */
export function cannotAnswer(session: Session): string | null {
  return session.unreachableSince != null ? `${session.host} is unreachable` : null;
}

function noteFor(error: ipc.IpcError): DecideNote {
  if (error.kind === "notWaiting") {
    return { text: "Already answered at the terminal, or timed out.", full: error.message };
  }
  return { text: `Could not answer: ${error.message}`, full: error.message };
}

/** `a` / `d` on a blocked session whose prompt Switchboard does not hold: say why nothing happens. */
export function noteNotHeld(session: Session) {
  const text = notHeldHint(session, useKnownSettings.getState().settings?.decide ?? null);
  setNote(session.sessionId, { text, full: text });
}

/**
 * How a blocked session's permission can be answered when it is not from here: where, why, and
 * whether a switch in Settings would let the board answer the next ones.
 */
export type HowToAnswer = {
  /** A few words for the card, before the command: "Answer in terminal". */
  lead: string;
  /** The whole sentence: where to answer, and why not here. */
  text: string;
  /** The CLI can be answered from the board once its switch in Settings is on (it is off). */
  canTurnOn: boolean;
};

/**
 * How this blocked session can be answered, true per CLI (its row in Rust) and per setting
 * (`decide`: the CLIs whose prompts wait for the board; `null` when not known). `null` when it
 * is not blocked, or the board can answer it now (its Allow / Deny say so themselves).
 */
export function howToAnswer(session: Session, decide: readonly string[] | null): HowToAnswer | null {
  if (session.status !== "blocked" || session.ended || canDecide(session)) return null;
  const lead = "Answer in terminal";
  const row = AGENTS.find((agent) => agent.id === session.agent);
  const name = row?.name ?? session.agent;
  if (session.decisionUntil != null) {
    return { lead: "Expired — answer in your terminal", text: "The wait for Allow / Deny here ended: answer in its terminal.", canTurnOn: false };
  }
  if (row && !row.decides) {
    return {
      lead,
      text: `${name} cannot be answered from the board (${row.whyNotDecided ?? "no hook of it can"}): answer in its terminal.`,
      canTurnOn: false,
    };
  }
  if (isRemote(session)) {
    return {
      lead,
      text: `Answer in its terminal on ${session.host}: Allow / Deny for it is turned on in the Switchboard that runs there.`,
      canTurnOn: false,
    };
  }
  if (decide?.includes(session.agent)) {
    return {
      lead,
      text: `Switchboard did not hold this prompt (it came before Allow / Deny was on for ${name}, or while Switchboard was not running): answer in its terminal.`,
      canTurnOn: false,
    };
  }
  return {
    lead,
    text: `Allow / Deny from the board is off for ${name}: answer in its terminal, or turn it on in Settings to answer its next prompts here.`,
    canTurnOn: row != null,
  };
}

/** Why a blocked session's permission is not answered from here (the note `a` / `d` leave). */
export function notHeldHint(session: Session, decide: readonly string[] | null = null): string {
  return howToAnswer(session, decide)?.text ?? "Not held by Switchboard: answer in its terminal.";
}

/** {@link howToAnswer} with the settings as last known. */
export function useHowToAnswer(session: Session | undefined): HowToAnswer | null {
  const decide = useKnownSettings((s) => s.settings?.decide ?? null);
  return session ? howToAnswer(session, decide) : null;
}

/** Seconds left in the hold, counted down once a second while it is on screen. */
export function useSecondsLeft(until: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until == null) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [until]);
  return until == null ? null : Math.max(0, Math.ceil((until - now) / 1_000));
}

/**
 * Reports whether the box hides part of its text: on the card, Allow then opens the panel that
 * shows the command whole instead of answering (issue 33.3).
 */
function useHidesText(onHidden: ((hidden: boolean) => void) | undefined, text: string) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!onHidden) return;
    if (!el) {
      onHidden(false);
      return;
    }
    const measure = () => onHidden(el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [onHidden, text]);
  return ref;
}

/**
 * What Allow lets through and how long it waits. In the panel the command shows whole, wrapped at
 * its spaces, in no scroll box of its own (the panel scrolls as a whole); on the card it is cut
 * at the card's foot, and Allow there opens the panel first.
 */
export function DecideWhat({
  session,
  place,
  onHidden,
}: {
  session: Session;
  place: "decide" | "details";
  /** Told whether the command shows whole here. */
  onHidden?: (hidden: boolean) => void;
}) {
  const what = heldText(session);
  // On the card the box around the command may cut it: measured there.
  const boxRef = useHidesText(onHidden, what);
  const endRef = useEndWatch(session);
  // Rust's lead for a held permission ("Needs permission: Bash").
  const tool = session.reason?.lead ?? session.badge.word;
  const blocked = cannotAnswer(session);
  // Its remote is unreachable: no countdown from here (the hold runs there), but why the
  // buttons are off.
  const left = useSecondsLeft(blocked ? null : session.decisionUntil);
  // On the card the status line already says "Needs permission": the command gets the room.
  return (
    <div ref={boxRef} className={`decide-what nodrag is-${place}`} data-testid={`${place}-what`}>
      {(place === "details" || left != null || blocked) && (
        <span className="decide-what-head">
          {place === "details" && <span className="reason-lead">{tool}</span>}
          {blocked && place === "details" && " · "}
          {blocked && (
            <span className="decide-blocked" id={`${place}-blocked-${session.sessionId}`} data-testid={`${place}-blocked`}>
              {blocked}
            </span>
          )}
          {left != null && (
            <span className="decide-countdown" data-testid={`${place}-countdown`} title="Then the terminal asks as usual">
              {place === "details" ? " · " : ""}waits here {left} s
            </span>
          )}
        </span>
      )}
      {what && (
        <pre className="decide-command" data-testid={`${place}-command`} title={place === "decide" ? what : undefined}>
          <CommandWords text={what} />
          {/* Its end: once this has been whole on screen, so has the command. */}
          <span
            ref={endRef}
            className="decide-command-end"
            data-testid={`${place}-command-end`}
            data-session-id={session.sessionId}
            aria-hidden="true"
          />
        </pre>
      )}
      <EditLine session={session} testId={`${place}-edit`} />
    </div>
  );
}

/** An edit permission's file and size: `app.ts · +12 −3 lines` (· 2 files for a patch of several). */
export function editLine(edit: NonNullable<Session["edit"]>): string {
  const name = edit.file.split("/").filter(Boolean).pop() ?? edit.file;
  const files = edit.files > 1 ? ` · ${edit.files} files` : "";
  return `${name} · +${edit.added} −${edit.removed} lines${files}`;
}

/** What an edit permission on screen changes, when the CLI said. */
export function EditLine({ session, testId }: { session: Session; testId: string }) {
  if (!session.edit) return null;
  return (
    <p className="decide-edit" data-testid={testId} title={session.edit.file}>
      {editLine(session.edit)}
    </p>
  );
}

/** Sends the verdict for the session's current hold; a second answer for it is not sent. */
export async function answer(session: Session, verdict: Verdict): Promise<void> {
  if (!canDecide(session)) return;
  const { sessionId, decision } = session;
  const blocked = cannotAnswer(session);
  if (blocked) {
    const text = `${blocked} — answer in its terminal, or once it is back.`;
    setNote(sessionId, { text, full: text });
    return;
  }
  if (useDecide.getState().sent[sessionId] === decision) return;
  useDecide.setState((s) => ({ sent: { ...s.sent, [sessionId]: decision } }));
  setNote(sessionId, null);
  holdWhileHovered(sessionId);
  try {
    await ipc.decide(sessionId, decision, verdict);
  } catch (err) {
    useDecide.setState((s) => {
      const sent = { ...s.sent };
      if (sent[sessionId] === decision) delete sent[sessionId];
      return { sent };
    });
    setNote(sessionId, noteFor(ipc.toIpcError(err)));
  }
}

/** How long an answered node keeps its place, whatever the pointer does (issue 33.5). */
export const HOLD_PLACE_MS = 3000;

/**
 * The answered node keeps its place for a moment (no jump out of the lane under the pointer the
 * instant it is answered) — until the pointer leaves it (`SessionCard` lets go on pointer leave)
 * or {@link HOLD_PLACE_MS} later at the latest, so an answered card never lingers in the lane.
 */
export function holdWhileHovered(id: string) {
  useSwitchboard.getState().holdPlace(id);
  setTimeout(() => useSwitchboard.getState().releasePlace(id), HOLD_PLACE_MS);
}

type ButtonsProps = {
  session: Session & { decision: number };
  /** Test ids and look: `decide-*` on the node, `details-*` in the panel. */
  place: "decide" | "details";
  className?: string;
  /** Beside them, the command does not show whole: Allow opens the panel first. */
  hidesCommand?: boolean;
};

/** Allow and Deny, never "always allow": one answer for the one command on screen. */
export function DecideButtons({ session, place, className, hidesCommand = false }: ButtonsProps) {
  const busy = useDecide((s) => s.sent[session.sessionId] === session.decision);
  const seen = useCommandSeen(session);
  // Not immediate until the command's end has been on screen (here or in the panel).
  const unread = hidesCommand || !seen;
  const blocked = cannotAnswer(session);
  // Off, with the reason beside them (a disabled button's tooltip does not show everywhere).
  const reason = blocked ? { title: blocked, "aria-describedby": `${place}-blocked-${session.sessionId}` } : null;
  const click = (verdict: Verdict) => (event: MouseEvent) => {
    // Not also a click on the node (selection, unread) it sits on.
    event.stopPropagation();
    // Never Allow a command the user has not seen whole: show it whole first (the panel, or
    // its end, scrolled into view there).
    if (verdict === "allow" && unread) {
      const store = useSwitchboard.getState();
      // From the panel, or from a card whose panel is already open: scroll to its end there.
      const open = selectDetailsId(store) === session.sessionId;
      if ((place === "details" || open) && revealCommandEnd(session.sessionId)) return;
      store.select(session.sessionId);
      return;
    }
    void answer(session, verdict);
  };
  return (
    <div className={`decide-buttons nodrag ${className ?? ""}`} role="group" aria-label="Answer the permission" aria-busy={busy}>
      <button
        type="button"
        className="decide-button is-allow nodrag"
        data-testid={`${place}-allow`}
        disabled={busy || blocked != null}
        title={
          !unread
            ? "Allow this once (a)"
            : place === "details"
              ? "Read the command to its end first: this scrolls to it"
              : "The card cannot show the whole command: open it to read it before Allow"
        }
        {...reason}
        data-hides-command={unread || undefined}
        onClick={click("allow")}
      >
        {unread ? "Allow…" : "Allow"}
      </button>
      <button
        type="button"
        className="decide-button is-deny nodrag"
        data-testid={`${place}-deny`}
        disabled={busy || blocked != null}
        title="Deny (d)"
        {...reason}
        onClick={click("deny")}
      >
        Deny
      </button>
    </div>
  );
}

