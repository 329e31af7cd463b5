// A session on the board, in its three forms (full card, compact card, light tile): the forms
// share one face (classes, data attributes, pointer and key handling).
import "./SessionNode.css";
import "./SessionNodeForms.css";
import { memo, useState, type MouseEvent } from "react";
import type { Session } from "../bindings/Session";
import { useStore, type NodeProps } from "@xyflow/react";
import { MiddleCut } from "./MiddleCut";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import { isStale, reasonTooltip } from "../shared/status";
import {
  absoluteTime,
  agentName,
  isRemote,
  relativeAge,
  shortenHome,
  silenceFor,
  titleOf,
  labelsInRegion,
  unreachableLine,
} from "../shared/sessionLabels";
import { AgentMark, ClockIcon, CloseIcon, LinkDownIcon, StatusGlyph, TerminalIcon } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { canDecide, DecideButtons, DecideWhat, useHowToAnswer } from "../panel/Decide";
import { jump, JumpNoteText } from "../shared/jump";
import { asking } from "../panel/Answer";
import { QuestionOnCard } from "../panel/AnswerViews";
import { CardBranch, CardCost, ContextBar, HoldingMark } from "./UsageOnCard";
import { contextPercent, holdingLine, idleHolding } from "../shared/usage";
import { useDecideNote } from "../state/decide";
import { useJumpNote } from "../state/jumpNotes";
import { type SessionNodeType } from "../state/data";
import { ZOOM_COMPACT, type NodeSize } from "../board/geometry";

type CardProps = {
  id: string;
  selected?: boolean;
  /** The cell the layout gave the node: a full card or a one-line strip. */
  size?: NodeSize;
  /** Zoomed out below {@link ZOOM_COMPACT}: only status, agent, title and unread dot, larger. */
  compact?: boolean;
  /** The region the card is drawn in: a project's region names the project once, above. */
  region?: string | null;
};

/**
 * What every form of a session node says on its root element: its classes (tone and state) and
 * the data attributes tests and the canvas read.
 */
export function faceOf(session: Session, badge: { tone: string }, selected: boolean, dimmed: boolean) {
  const classes = ["session-node", `tone-${badge.tone}`];
  if (session.ended) classes.push("is-ended");
  if (selected) classes.push("is-selected");
  if (session.unread) classes.push("is-unread");
  if (session.restored) classes.push("is-restored");
  if (dimmed) classes.push("is-dimmed");
  // Its remote's link is down: what it shows is the last that was known.
  const unreachable = session.unreachableSince != null;
  if (unreachable) classes.push("is-unreachable");
  const needsYou = !session.ended && (session.status === "blocked" || session.status === "waiting");
  const data = {
    "data-testid": "session-node",
    "data-session-id": session.sessionId,
    "data-status": session.status ?? "none",
    "data-needs-you": needsYou ? "true" : "false",
    "data-unread": session.unread ? "true" : "false",
    "data-ended": session.ended ? "true" : "false",
    "data-restored": session.restored ? "true" : "false",
    "data-dimmed": dimmed ? "true" : "false",
    "data-host": session.host,
    "data-unreachable": unreachable ? "true" : "false",
  };
  return { classes, data };
}

/** Where it runs and whether it is heard from, for a tooltip: " · devbox", " · devbox unreachable since 14:02". */
function hostNote(session: Session, now: number): string {
  if (session.unreachableSince != null) return ` · ${unreachableLine(session.host, session.unreachableSince, now)}`;
  return isRemote(session) ? ` · ${session.host}` : "";
}

/** A light tile's tooltip: its title, status word, agent, machine and folder. */
export function tileTooltip(session: Session, now: number): string {
  const folder = session.cwd ? shortenHome(session.cwd) : null;
  const agent = agentName(session.agent);
  return `${titleOf(session)} — ${session.badge.word} · ${agent}${hostNote(session, now)}${folder ? ` · ${folder}` : ""}`;
}

/** Everything a card draws from the clock, as one string: when it is unchanged, so is the card. */
export function clockFace(session: Session, now: number): string {
  const holding = idleHolding(session, now);
  return [
    relativeAge(session.lastEventAt, now),
    silenceFor(session.lastEventAt, now),
    session.badge.word,
    session.unreachableSince != null ? unreachableLine(session.host, session.unreachableSince, now) : "",
    holding ? holdingLine(holding) : "",
  ].join("\u0000");
}

/** One session, read from the store by id; usable outside React Flow (tests). */
export function SessionCard({ id, selected = false, size = "full", compact = false, region = null }: CardProps) {
  const session = useSwitchboard((s) => s.sessions[id]);
  const openSession = useSwitchboard((s) => s.openSession);
  const releasePlace = useSwitchboard((s) => s.releasePlace);
  const dimmed = useSwitchboard((s) => s.matches != null && !s.matches.has(id));
  const tag = useSwitchboard((s) => s.twins.get(id));
  // Re-rendered by the clock only when something it draws from it changes (an age's words, a
  // silence, a badge's grace): a tick that changes no word re-renders no card, so idle is idle.
  useClock((s) => (session ? clockFace(session, s.now) : ""));
  const now = useClock.getState().now;
  const note = useDecideNote(id);
  const jumpNote = useJumpNote(id);
  // Whether the held command shows whole on the card (else Allow opens the panel first).
  const [commandHidden, setCommandHidden] = useState(false);
  const how = useHowToAnswer(session);
  if (!session) return null;

  const badge = session.badge;
  const reason = session.reason;
  // Two sessions called the same (two agents in one folder) are told apart by their ids.
  const labels = labelsInRegion(session, region, tag);
  const title = tag != null && labels.title === titleOf(session) ? `${labels.title} · ${tag}` : labels.title;
  // Cut in the middle: what tells it from a neighbour of the same name stays in view.
  const titleText = <MiddleCut text={title} tail={tag != null ? ` · ${tag}` : undefined} />;
  const folder = labels.folder;
  const stale = isStale(session);
  const subagents = session.subagents > 0 ? session.subagents : 0;

  const { classes, data } = faceOf(session, badge, selected, dimmed);
  const rootProps = { ...data, onClick: () => openSession(id), onPointerLeave: () => releasePlace(id) };
  const unreadDot = session.unread && (
    <span className="unread-dot" data-testid="unread-dot" role="img" aria-label="Unread" />
  );
  const tooltip = `${title} — ${badge.word}${hostNote(session, now)}${session.cwd ? ` · ${shortenHome(session.cwd)}` : ""}`;
  const unreachable =
    session.unreachableSince != null ? unreachableLine(session.host, session.unreachableSince, now) : null;

  if (size === "strip" || compact) {
    // The compact forms: what you can read across a hundred sessions at once.
    classes.push(size === "strip" ? "is-strip" : "is-far-card");
    if (compact) classes.push("is-far");
    return (
      <div className={classes.join(" ")} {...rootProps} data-form={size === "strip" ? "strip" : "far-card"} title={tooltip}>
        <div className="compact-line">
          {/* Keyed by the last event: the working ring pulses again for each piece of news. */}
          <span className="status-dot" key={session.lastEventAt}>
            <StatusGlyph tone={badge.tone} />
          </span>
          <span className="agent-mark" title={agentName(session.agent)}>
            <AgentMark agent={session.agent} />
            <span className="visually-hidden">{agentName(session.agent)}</span>
          </span>
          {size === "full" && <span className="status-word" data-testid="status-badge">{badge.word}</span>}
          {size === "strip" && (
            <span className="node-title" data-testid="node-title">
              {titleText}
            </span>
          )}
          {size === "strip" && !compact && (
            <span className="node-age" title={absoluteTime(session.lastEventAt)}>
              {relativeAge(session.lastEventAt, now)}
            </span>
          )}
          {size === "strip" && <span className="visually-hidden" data-testid="status-badge">{badge.word}</span>}
        </div>
        {size === "full" && (
          <div className="node-title" data-testid="node-title">
            {titleText}
          </div>
        )}
        {unreadDot}
      </div>
    );
  }

  const onRemove = (event: MouseEvent) => {
    // The × must not also open (and clear) the node it sits on.
    event.stopPropagation();
    ipc.removeSession(id).catch((err: unknown) => console.warn("remove_session failed", err));
  };

  const onJump = (event: MouseEvent) => {
    // Not also a click on the node (selection, unread) it sits on.
    event.stopPropagation();
    void jump(id);
  };

  // A failed answer's note takes the reason's place for a moment.
  const story = note ? (
    <div className="node-reason look-note" data-testid="decide-note" role="status" title={note.full}>
      {note.text}
    </div>
  ) : (
    reason && (
      <div
        className={`node-reason look-${reason.look}`}
        data-testid="session-reason"
        title={how ? `${how.text}\n\n${reasonTooltip(reason)}` : reasonTooltip(reason)}
      >
        {how ? (
          // Where a prompt the board does not hold is answered, in the lead's place (the status
          // line already says "Needs permission"); the whole why in the tooltip and the panel.
          <span className="reason-lead" data-testid="how-to-answer" title={how.text}>
            {session.tool ? `${how.lead}: ${session.tool}` : how.lead}
          </span>
        ) : (
          reason.lead && <span className="reason-lead">{reason.lead}</span>
        )}
        {(how || reason.lead) && reason.text && " "}
        {reason.text && <span className={reason.lead ? "reason-detail is-command" : "reason-detail"}>{reason.text}</span>}
      </div>
    )
  );
  const decidable = canDecide(session);
  const holding = idleHolding(session, now);

  classes.push("is-card");
  if (holding) classes.push("is-holding");
  // Room at the foot for the context bar.
  if (contextPercent(session.usage) != null) classes.push("has-context");
  return (
    <div className={classes.join(" ")} {...rootProps} data-form="card">
      <div className="node-status">
        {/* Keyed by the last event: the working ring pulses again for each piece of news. */}
        <span className="status-dot" key={session.lastEventAt}>
          <StatusGlyph tone={badge.tone} />
        </span>
        <span className="status-word" data-testid="status-badge">
          {badge.word}
        </span>
        {session.ended && <span className="ended-mark"> · ended</span>}

        {stale && (
          <span className="stale-mark" title={silenceFor(session.lastEventAt, now)}>
            <ClockIcon />
            <span className="visually-hidden">{silenceFor(session.lastEventAt, now)}</span>
          </span>
        )}
        {" "}
        {session.restored && (
          <span
            className="restored-mark"
            data-testid="restored-mark"
            title="Loaded from the last run; not heard from since Switchboard started"
          >
            from last run ·
          </span>
        )}
        {session.restored && " "}
        {holding && !unreachable ? (
          // In the age's place: it says how long it has been silent, and what that costs.
          <HoldingMark holding={holding} />
        ) : unreachable ? (
          // In the age's place: how old its last news is matters less than that none can come.
          <span
            className="unreachable-mark"
            data-testid="unreachable-mark"
            title={`${unreachable} (${absoluteTime(session.unreachableSince!)}). Shown as last known: its last event ${relativeAge(session.lastEventAt, now)}.`}
          >
            <LinkDownIcon />
            <span className="unreachable-text">{unreachable}</span>
          </span>
        ) : (
          <span className="node-age" title={absoluteTime(session.lastEventAt)}>
            {relativeAge(session.lastEventAt, now)}
          </span>
        )}
      </div>

      <div className="node-title" data-testid="node-title" title={title}>
        {titleText}
      </div>

      <div className="node-meta">
        <span className="node-agent">{agentName(session.agent)}</span>
        {isRemote(session) && (
          <>
            {" "}
            <span className="node-sep" aria-hidden="true">
              ·
            </span>{" "}
            <span className="node-host" data-testid="node-host" title={`Runs on ${session.host}`}>
              {session.host}
            </span>
          </>
        )}
        {folder && (
          <>
            {" "}
            <span className="node-sep" aria-hidden="true">
              ·
            </span>{" "}
            <span className="node-folder" title={session.cwd ?? undefined}>
              {folder}
            </span>
          </>
        )}
        {session.background && (
          <>
            {" "}
            <span className="node-sep" aria-hidden="true">
              ·
            </span>{" "}
            <span className="node-background" data-testid="node-background" title={`In the background: ${session.background}`}>
              background
            </span>
          </>
        )}
        {session.git?.branch && (
          <>
            {" "}
            <span className="node-sep" aria-hidden="true">
              ·
            </span>{" "}
            <CardBranch git={session.git} />
          </>
        )}
        {subagents > 0 && " "}
        {subagents > 0 && (
          <span className="node-subagents">
            {subagents} {subagents === 1 ? "subagent" : "subagents"}
          </span>
        )}
        {" "}
        <CardCost usage={session.usage} />
      </div>

      {decidable ? (
        <div className="node-decide">
          {note ? story : <DecideWhat session={session} place="decide" onHidden={setCommandHidden} />}
          {/* A command the card cuts keeps its Allow at "Allow…" (it opens the panel), even once
              seen there: never an enabled Allow beside a hidden tail. */}
          <DecideButtons session={session} place="decide" hidesCommand={note != null || commandHidden} />
        </div>
      ) : asking(session) && !note ? (
        <QuestionOnCard session={session} />
      ) : (
        story
      )}

      {/* Where a jump went: over the title and folder (the user just pointed at this card),
          never over the status or the reason, so a permission's command stays in view. */}
      {jumpNote && (
        <div
          className={`node-jump-note ${jumpNote.failed ? "look-note" : "look-box"}`}
          data-testid="node-jump-note"
          role="status"
          title={jumpNote.text}
        >
          {jumpNote.brief ?? <JumpNoteText note={jumpNote} />}
        </div>
      )}

      <ContextBar usage={session.usage} place="card" />

      {unreadDot}

      {!session.ended && (
        <button
          type="button"
          className="node-corner-button node-jump nodrag"
          data-testid="node-jump"
          aria-label="Jump to terminal"
          title="Jump to terminal"
          onClick={onJump}
        >
          <TerminalIcon />
        </button>
      )}

      {session.ended && (
        <button
          type="button"
          className="node-corner-button node-remove nodrag"
          data-testid="remove-session"
          aria-label={`Remove ${title}`}
          title="Remove from the canvas"
          onClick={onRemove}
        >
          <CloseIcon />
        </button>
      )}
    </div>
  );
}

/** The React Flow node: only an id travels through node data; the session lives in the store. */
export const SessionNode = memo(
  function SessionNode({ id, selected, data }: NodeProps<SessionNodeType>) {
    // A boolean selector: the node re-renders when it crosses the threshold, not on every zoom step.
    const compact = useStore((s) => s.transform[2] < ZOOM_COMPACT);
    return <SessionCard id={id} selected={selected} size={data.size} compact={compact} region={data.region} />;
  },
  // Only what it draws: a relayout moves dozens of nodes (new positions in the props), and React
  // Flow's wrapper moves them without the card rendering again.
  (a, b) => a.id === b.id && a.selected === b.selected && a.data.size === b.data.size && a.data.region === b.data.region,
);
