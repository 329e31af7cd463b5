// What the board shows of a question and a reply (issue 24): the options on a card and in the
// panel, the answer in words, the reply box. What they do is `Answer.tsx`.
import { useState, type FormEvent, type MouseEvent } from "react";
import type { Question } from "../bindings/Question";
import type { Session } from "../bindings/Session";
import { asking, canAnswerInWords, cannotPick, canReply, MAX_KEYED_OPTION, pickOption, sendReply, sendWrittenAnswer, unreachable, useSent } from "./Answer";
import { useAnswers, useOptionNote, useReplyNote } from "../state/answers";

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
    // A list (its items are list items to assistive tech too), named for what its buttons do.
    <ol
      className={`question-options is-${place} nodrag`}
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
