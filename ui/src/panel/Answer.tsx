// Answering an agent from the board by typing into its own tmux pane (issue 24): an option of the
// question on its screen (the buttons, keys 1–9) or its next prompt (the reply box). Rust types
// only into a pane it can tie to that agent and says why not otherwise; what it did, or why not,
// is told briefly where the user clicked. The first answer wins — the board or the terminal — so
// the options go as soon as the question does. What the board shows of it is `AnswerViews.tsx`.
import "./Answer.css";
import { plain, setNote, useAnswers, type Sent } from "../state/answers";
import type { Delivered } from "../bindings/Delivered";
import type { Session } from "../bindings/Session";
import * as ipc from "../shared/ipc";
import { holdWhileHovered } from "./Decide";
import { agentName, isRemote } from "../shared/sessionLabels";

/** The CLIs' dialogs take one key: option 10 and on are answered in the terminal. */
export const MAX_KEYED_OPTION = 9;

/** The agent's question tool waits for the user: its questions are on the session. */
export function asking(session: Session): boolean {
  return !session.ended && session.status === "waiting" && session.questions.length > 0;
}

/**
 * Why the question on screen cannot be answered from here (Rust would refuse it), in words that
 * end in what to do instead; `null` when one option answers it.
 */
export function cannotPick(session: Session): string | null {
  if (unreachable(session)) return `${session.host} is unreachable — answer when it is back, or in its terminal.`;
  if (session.questions.length > 1) return `${session.questions.length} questions — answer in its terminal.`;
  if (session.questions[0]?.multiSelect) return "Several choices — answer in its terminal.";
  return null;
}

/** One question, one choice, and this option has a key: a click or a key types its number. */
function pickable(session: Session, option: number): boolean {
  const count = session.questions[0]?.options.length ?? 0;
  return asking(session) && cannotPick(session) == null && option >= 1 && option <= Math.min(count, MAX_KEYED_OPTION);
}

/** Which question an answer was for: a new question (even the same words, asked again) is a new key. */
function questionKey(session: Session): string {
  return `${session.statusChangedAt ?? ""}|${JSON.stringify(session.questions)}`;
}

/** The option chosen for the question on screen, while it is on its way or typed. */
export function useSent(session: Session): Sent | null {
  const sent = useAnswers((s) => s.sent[session.sessionId]);
  return sent && sent.key === questionKey(session) ? sent : null;
}

/**
 * Types option `option` (from 1) of the session's question into its pane. One answer per question:
 * a second click or key for it is not sent. A key for an option that is not there does nothing; one
 * for a question the board cannot answer says why.
 */
export async function pickOption(session: Session, option: number): Promise<void> {
  if (!asking(session)) return;
  const id = session.sessionId;
  const why = cannotPick(session);
  if (why) {
    setNote("optionNotes", id, plain(why, true));
    return;
  }
  if (!pickable(session, option)) return;
  const key = questionKey(session);
  if (useAnswers.getState().sent[id]?.key === key) return;
  useAnswers.setState((s) => ({ sent: { ...s.sent, [id]: { key, option, typed: false } } }));
  setNote("optionNotes", id, null);
  // The card keeps its place (no jump to another lane under the pointer) once it moves on.
  holdWhileHovered(id);
  try {
    const delivered = await ipc.answerQuestion(id, option);
    useAnswers.setState((s) => {
      const mine = s.sent[id];
      return mine?.key === key ? { sent: { ...s.sent, [id]: { ...mine, typed: true } } } : {};
    });
    setNote("optionNotes", id, plain(deliveredNote(delivered, session), false));
  } catch (err) {
    useAnswers.setState((s) => {
      const sent = { ...s.sent };
      if (sent[id]?.key === key) delete sent[id];
      return { sent };
    });
    setNote("optionNotes", id, plain(`Not typed: ${ipc.toIpcError(err).message}`, true));
  }
}

/** What became of an answer Rust delivered (a remote's, by its own board), in the user's words. */
export function deliveredNote(delivered: Delivered, session: Session): string {
  // Rust answers only once the CLI took what was typed (its next event), or refuses.
  if (delivered.throughHook) return `Answered “${delivered.typed}” through its hook${where(session)}`;
  if (delivered.throughDaemon) {
    return `${agentName(session.agent)} took it: sent “${delivered.typed}” through its daemon, nothing typed${where(session)}`;
  }
  return `${agentName(session.agent)} took it: typed ${delivered.typed} into pane ${delivered.pane}${where(session)}`;
}

/** ` on devbox` for a remote's session. */
function where(session: Session): string {
  return isRemote(session) ? ` on ${session.host}` : "";
}

/** A remote's link is down: nothing can be sent to its agents until it is back. */
export function unreachable(session: Session): boolean {
  return isRemote(session) && session.unreachableSince != null;
}

/**
 * Its CLI holds the question for the board (Claude Code with Allow / Deny on: Rust offers the
 * hold on a waiting question only for a CLI whose hook takes the answers): it can be answered in
 * words, whatever terminal it runs in.
 */
export function canAnswerInWords(session: Session): boolean {
  return asking(session) && session.decision != null && session.questions.length === 1 && !unreachable(session);
}

/** Sends a written answer through the CLI's hook; true once it was given. */
export async function sendWrittenAnswer(session: Session, text: string): Promise<boolean> {
  const id = session.sessionId;
  if (!canAnswerInWords(session) || text.trim() === "") return false;
  const key = questionKey(session);
  if (useAnswers.getState().sent[id]?.key === key) return false;
  useAnswers.setState((s) => ({ sent: { ...s.sent, [id]: { key, option: 0, typed: false } } }));
  setNote("optionNotes", id, null);
  holdWhileHovered(id);
  try {
    const delivered = await ipc.answerText(id, text);
    useAnswers.setState((s) => {
      const mine = s.sent[id];
      return mine?.key === key ? { sent: { ...s.sent, [id]: { ...mine, typed: true } } } : {};
    });
    setNote("optionNotes", id, plain(deliveredNote(delivered, session), false));
    return true;
  } catch (err) {
    useAnswers.setState((s) => {
      const sent = { ...s.sent };
      if (sent[id]?.key === key) delete sent[id];
      return { sent };
    });
    setNote("optionNotes", id, plain(`Not answered: ${ipc.toIpcError(err).message}`, true));
    return false;
  }
}

/** A done agent, or one waiting with no question on screen, takes its next prompt. */
export function canReply(session: Session): boolean {
  if (session.ended) return false;
  return session.status === "done" || (session.status === "waiting" && session.questions.length === 0);
}

/** Gives the reply (typed into its pane, or through its CLI's daemon); true once it was taken. */
export async function sendReply(session: Session, text: string): Promise<boolean> {
  const id = session.sessionId;
  if (!canReply(session) || unreachable(session) || text.trim() === "" || useAnswers.getState().replying[id]) return false;
  useAnswers.setState((s) => ({ replying: { ...s.replying, [id]: true } }));
  setNote("replyNotes", id, plain(`Sending${where(session)}, waiting for ${agentName(session.agent)} to take it…`, false));
  try {
    const delivered = await ipc.reply(id, text);
    const how = delivered.throughDaemon ? "sent through its daemon, nothing typed" : `sent to pane ${delivered.pane}`;
    setNote("replyNotes", id, plain(`${agentName(session.agent)} took it: ${how}${where(session)}`, false));
    return true;
  } catch (err) {
    setNote("replyNotes", id, plain(`Not sent: ${ipc.toIpcError(err).message}`, true));
    return false;
  } finally {
    useAnswers.setState((s) => {
      const replying = { ...s.replying };
      delete replying[id];
      return { replying };
    });
  }
}

