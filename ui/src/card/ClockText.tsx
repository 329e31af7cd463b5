// What a card draws from the clock, each piece its own small component: when a minute turns,
// the age's text is drawn again, not the card around it (issue 47: idle is idle).
import type { Session } from "../bindings/Session";
import { useClockText } from "../state/clock";
import { absoluteTime, relativeAge, silenceFor, unreachableLine } from "../shared/sessionLabels";
import { holdingText } from "../shared/usage";
import { ClockIcon, LinkDownIcon } from "../shared/icons";

/** Any words drawn from the clock, as text. */
export function ClockText({ text }: { text: (now: number) => string }) {
  return <>{useClockText(text)}</>;
}

/** "3 min ago", its exact time in the tooltip. */
export function Age({ at, className }: { at: number; className: string }) {
  const age = useClockText((now) => relativeAge(at, now));
  return (
    <span className={className} title={absoluteTime(at)}>
      {age}
    </span>
  );
}

/** The stale mark: a clock, "no news for 12 min" in its tooltip and for screen readers. */
export function StaleMark({ at }: { at: number }) {
  const silence = useClockText((now) => silenceFor(at, now));
  return (
    <span className="stale-mark" title={silence}>
      <ClockIcon />
      <span className="visually-hidden">{silence}</span>
    </span>
  );
}

/** In the age's place when its remote's link is down: since when none can come. */
export function UnreachableMark({ session, since }: { session: Session; since: number }) {
  const line = useClockText((now) => unreachableLine(session.host, since, now));
  const age = useClockText((now) => relativeAge(session.lastEventAt, now));
  return (
    <span
      className="unreachable-mark"
      data-testid="unreachable-mark"
      title={`${line} (${absoluteTime(since)}). Shown as last known: its last event ${age}.`}
    >
      <LinkDownIcon />
      <span className="unreachable-text">{line}</span>
    </span>
  );
}

/** In the age's place for an idle agent holding memory: "idle 3 h · holds 1.2 GiB". */
export function HoldingMark({ session }: { session: Session }) {
  const line = useClockText((now) => holdingText(session, now));
  return (
    <span className="holding-mark" data-testid="holding-mark" title={`${line} — open it to end the agent`}>
      {line}
    </span>
  );
}
