// Answering an agent from the board by typing into its own tmux pane (issue 24): an option of the
// question on its screen (the buttons, keys 1–9) or its next prompt (the reply box). Rust types
// only into a pane it can tie to that agent and says why not otherwise; what it did, or why not,
// is told briefly where the user clicked. The first answer wins — the board or the terminal — so
// the options go as soon as the question does.
import { useState, type FormEvent, type MouseEvent } from "react";
import { create } from "zustand";
import type { Delivered } from "./bindings/Delivered";
import type { Question } from "./bindings/Question";
import type { Session } from "./bindings/Session";
import * as ipc from "./ipc";
import { holdWhileHovered } from "./Decide";
import { agentName, isRemote } from "./sessionLabels";

/** How long "Typed 2 into pane %3" stays. */
export const TYPED_NOTE_MS = 8_000;
/** A refusal stays longer: it says what to do instead (Jump). */
export const REFUSED_NOTE_MS = 15_000;
/** The CLIs' dialogs take one key: option 10 and on are answered in the terminal. */
export const MAX_KEYED_OPTION = 9;

export type AnswerNote = {
  text: string;
  /** The whole message, for a clipped note's tooltip. */
  full: string;
  failed: boolean;
};

type Sent = {
  /** The question it went out for ({@link questionKey}): its buttons stay off until Rust moves on. */
  key: string;
  option: number;
  /** Rust said it typed it (else it is on its way). */
  typed: boolean;
};

type AnswerState = {
  sent: Record<string, Sent>;
  /** The last option's result per session; cleared after a while. */
  optionNotes: Record<string, AnswerNote>;
  /** Sessions whose reply is on its way. */
  replying: Record<string, true>;
  /** The last reply's result per session. */
  replyNotes: Record<string, AnswerNote>;
};

export const useAnswers = create<AnswerState>(() => ({ sent: {}, optionNotes: {}, replying: {}, replyNotes: {} }));

type NoteKind = "optionNotes" | "replyNotes";
const noteTimers = new Map<string, ReturnType<typeof setTimeout>>();

function setNote(kind: NoteKind, sessionId: string, note: AnswerNote | null) {
  const timer = `${kind}:${sessionId}`;
  clearTimeout(noteTimers.get(timer));
  noteTimers.delete(timer);
  useAnswers.setState((s) => {
    const notes = { ...s[kind] };
    if (note) notes[sessionId] = note;
    else delete notes[sessionId];
    return { [kind]: notes };
  });
  if (note) {
    const ms = note.failed ? REFUSED_NOTE_MS : TYPED_NOTE_MS;
    noteTimers.set(timer, setTimeout(() => setNote(kind, sessionId, null), ms));
  }
}

function plain(text: string, failed: boolean): AnswerNote {
  return { text, full: text, failed };
}

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
  return delivered.throughHook
    ? `Answered “${delivered.typed}” through its hook${where(session)}`
    : `${agentName(session.agent)} took it: typed ${delivered.typed} into pane ${delivered.pane}${where(session)}`;
}

/** ` on devbox` for a remote's session. */
function where(session: Session): string {
  return isRemote(session) ? ` on ${session.host}` : "";
}

/** A remote's link is down: nothing can be sent to its agents until it is back. */
function unreachable(session: Session): boolean {
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

/** Types the reply into the session's pane, then Enter; true once it was typed. */
export async function sendReply(session: Session, text: string): Promise<boolean> {
  const id = session.sessionId;
  if (!canReply(session) || unreachable(session) || text.trim() === "" || useAnswers.getState().replying[id]) return false;
  useAnswers.setState((s) => ({ replying: { ...s.replying, [id]: true } }));
  setNote("replyNotes", id, plain(`Typing into its pane${where(session)}, waiting for ${agentName(session.agent)} to take it…`, false));
  try {
    const delivered = await ipc.reply(id, text);
    setNote("replyNotes", id, plain(`${agentName(session.agent)} took it: sent to pane ${delivered.pane}${where(session)}`, false));
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

export function useOptionNote(sessionId: string): AnswerNote | null {
  return useAnswers((s) => s.optionNotes[sessionId] ?? null);
}

export function useReplyNote(sessionId: string): AnswerNote | null {
  return useAnswers((s) => s.replyNotes[sessionId] ?? null);
}

/** The last answer or reply from the board was refused: the terminal is the way (Jump). */
export function useRefused(sessionId: string): boolean {
  return useAnswers((s) => Boolean(s.optionNotes[sessionId]?.failed || s.replyNotes[sessionId]?.failed));
}

/** Forget every answer and note (tests). */
export function resetAnswers() {
  for (const timer of noteTimers.values()) clearTimeout(timer);
  noteTimers.clear();
  useAnswers.setState({ sent: {}, optionNotes: {}, replying: {}, replyNotes: {} });
}

type Place = "node" | "details";

/** `1 React — Use React`: what an option button says (the card leaves the description to its tooltip). */
function optionTitle(index: number, option: Question["options"][number]): string {
  return `${index} ${option.label}${option.description ? ` — ${option.description}` : ""}`;
}

/**
 * A question's options, numbered from 1: buttons that type the number, or — for a question the
 * board cannot answer — the same list, inert.
 */
function Options({ session, question, place }: { session: Session; question: Question; place: Place }) {
  const sent = useSent(session);
  const callable = cannotPick(session) == null;
  const click = (option: number) => (event: MouseEvent) => {
    // Not also a click on the node (selection, unread) it sits on.
    event.stopPropagation();
    void pickOption(session, option);
  };
  return (
    <ol
      className={`question-options is-${place} nodrag`}
      role={callable ? "group" : undefined}
      aria-label={callable ? "Answer the question" : undefined}
      aria-busy={sent != null && !sent.typed}
    >
      {question.options.map((option, i) => {
        const n = i + 1;
        const title = optionTitle(n, option);
        const inner = (
          <>
            <span className="option-number">{n}</span>{" "}
            <span className="option-text">
              <span className="option-label">{option.label}</span>
              {place === "details" && option.description && (
                <span className="option-description"> — {option.description}</span>
              )}
            </span>
          </>
        );
        if (!callable) {
          return (
            <li key={n} className="option-item">
              <span className="option-button is-inert" data-testid={`${place}-option-${n}`} title={title}>
                {inner}
              </span>
            </li>
          );
        }
        const keyed = n <= MAX_KEYED_OPTION;
        const chosen = sent?.option === n;
        return (
          <li key={n} className="option-item">
            <button
              type="button"
              className={`option-button nodrag${chosen ? " is-chosen" : ""}`}
              data-testid={`${place}-option-${n}`}
              disabled={sent != null || !keyed}
              aria-keyshortcuts={keyed ? String(n) : undefined}
              title={
                !keyed
                  ? `${title} — answer in its terminal`
                  : chosen
                    ? `${title} — ${sent?.typed ? "typed" : "typing…"}`
                    : `${title} (${n})`
              }
              onClick={click(n)}
            >
              {inner}
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** On the card: the question on one line, its options below, or what became of the answer. */
export function QuestionOnCard({ session }: { session: Session }) {
  const note = useOptionNote(session.sessionId);
  const question = session.questions[0]!;
  const why = cannotPick(session);
  const full = session.questions.map((q) => `${q.header ? `${q.header}: ` : ""}${q.question}`).join("\n");
  return (
    <div className="node-question">
      <div className="node-reason look-attention is-one-line" data-testid="session-reason" title={full}>
        {question.header && <span className="reason-lead">{question.header}</span>}
        {question.header && " "}
        {question.question}
      </div>
      {note ? (
        <div
          className={`node-question-note${note.failed ? " is-error" : ""}`}
          data-testid="node-answer-note"
          role="status"
          title={note.full}
        >
          {note.text}
        </div>
      ) : why ? (
        <div className="node-question-note" data-testid="node-answer-elsewhere" title={why}>
          {why}
        </div>
      ) : (
        <Options session={session} question={question} place="node" />
      )}
    </div>
  );
}

/** In the details panel: every question whole, its options, and what became of the answer. */
export function QuestionSection({ session }: { session: Session }) {
  const note = useOptionNote(session.sessionId);
  const sent = useSent(session);
  const shown = asking(session);
  if (!shown && !note) return null;
  const why = shown ? cannotPick(session) : null;
  const keys = Math.min(session.questions[0]?.options.length ?? 0, MAX_KEYED_OPTION);
  return (
    <section className="details-question" data-testid="details-question" aria-label="Its question">
      {shown &&
        session.questions.map((question, i) => (
          <div className="question" key={i} data-testid="details-question-item">
            {question.header && <span className="question-header">{question.header}</span>}
            <p className="question-text">{question.question}</p>
            {question.multiSelect && <p className="question-hint">Several may be chosen.</p>}
            <Options session={session} question={question} place="details" />
          </div>
        ))}
      {why && (
        <p className="details-note" data-testid="details-answer-elsewhere">
          {why}
        </p>
      )}
      {shown && !why && !sent && keys > 0 && (
        <p className="details-note">
          Click or press {keys === 1 ? "1" : `1–${keys}`}, or answer in the terminal — whichever comes first.
        </p>
      )}
      {shown && !sent && canAnswerInWords(session) && <WrittenAnswer session={session} />}
      {note && (
        <p
          className={`details-note${note.failed ? " is-error" : ""}`}
          role="status"
          data-testid="details-answer-note"
          title={note.full}
        >
          {note.text}
        </p>
      )}
    </section>
  );
}

/** An answer in words, for a question its CLI holds for the board. */
function WrittenAnswer({ session }: { session: Session }) {
  const [text, setText] = useState("");
  const inputId = `written-${session.sessionId}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void sendWrittenAnswer(session, text).then((given) => given && setText(""));
  };
  return (
    <form className="reply-form" data-testid="written-answer" onSubmit={submit}>
      <label className="visually-hidden" htmlFor={inputId}>
        Or answer in words
      </label>
      <input
        id={inputId}
        className="reply-input"
        data-testid="written-answer-input"
        type="text"
        placeholder="Or answer in words"
        autoComplete="off"
        spellCheck={false}
        maxLength={4000}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <button
        type="submit"
        className="reply-send"
        data-testid="written-answer-send"
        disabled={text.trim() === ""}
        title="Give it through its hook: nothing is typed into its terminal"
      >
        Answer
      </button>
    </form>
  );
}

/** Its next prompt, typed into its pane (a remote's, by its own board). */
export function ReplyBox({ session }: { session: Session }) {
  const id = session.sessionId;
  const [text, setText] = useState("");
  const sending = useAnswers((s) => s.replying[id] === true);
  const note = useReplyNote(id);
  if (!canReply(session)) return null;
  if (unreachable(session)) {
    return (
      <p className="details-note" data-testid="reply-remote">
        Reply: {session.host} is unreachable — its reply waits until it is back.
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void sendReply(session, text).then((typed) => typed && setText(""));
  };
  const inputId = `reply-${id}`;
  return (
    <div className="details-reply" data-testid="details-reply">
      <form className="reply-form" onSubmit={submit}>
        <label className="visually-hidden" htmlFor={inputId}>
          Reply — its next prompt
        </label>
        <input
          id={inputId}
          className="reply-input"
          data-testid="reply-input"
          type="text"
          placeholder="Reply — its next prompt"
          autoComplete="off"
          spellCheck={false}
          maxLength={4000}
          value={text}
          readOnly={sending}
          onChange={(event) => setText(event.target.value)}
        />
        <button
          type="submit"
          className="reply-send"
          data-testid="reply-send"
          disabled={sending || text.trim() === ""}
          aria-busy={sending}
          title="Type it into its terminal, then Enter"
        >
          {sending ? "Waiting…" : "Send"}
        </button>
      </form>
      {note && (
        <p className={`details-note${note.failed ? " is-error" : ""}`} role="status" data-testid="reply-note" title={note.full}>
          {note.text}
        </p>
      )}
    </div>
  );
}
