// A session on the board, in its three forms (full card, compact card, light tile): the forms
// share one face (classes, data attributes, pointer and key handling).
import "./SessionNode.css";
import "./SessionNodeForms.css";
import { memo, useState, type MouseEvent } from "react";
import type { Session } from "../bindings/Session";
import { useStore, type NodeProps } from "@xyflow/react";
import { MiddleCut } from "./MiddleCut";
import { useSwitchboard } from "../state/store";
import { useClockText } from "../state/clock";
import { isStale, reasonTooltip } from "../shared/status";
import { agentName, isRemote, shortenHome, titleOf, labelsInRegion, unreachableLine } from "../shared/sessionLabels";
import { AgentMark, CloseIcon, StatusGlyph, TerminalIcon } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { canDecide, DecideButtons, DecideWhat, useHowToAnswer } from "../panel/Decide";
import { jump, JumpNoteText } from "../shared/jump";
import { asking } from "../panel/Answer";
import { QuestionOnCard } from "../panel/AnswerViews";
import { CardBranch, CardCost, ContextBar } from "./UsageOnCard";
import { Age, HoldingMark, StaleMark, UnreachableMark } from "./ClockText";
import { contextPercent, holdsIdle } from "../shared/usage";
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

/** One session, read from the store by id; usable outside React Flow (tests). */
export function SessionCard({ id, selected = false, size = "full", compact = false, region = null }: CardProps) {
  const session = useSwitchboard((s) => s.sessions[id]);
  const openSession = useSwitchboard((s) => s.openSession);
  const releasePlace = useSwitchboard((s) => s.releasePlace);
  const dimmed = useSwitchboard((s) => s.matches != null && !s.matches.has(id));
  const tag = useSwitchboard((s) => s.twins.get(id));
  // What it draws from the clock is drawn by small components of its own (`ClockText.tsx`): when
  // a minute turns, an age is drawn again, not the card. Its tooltip's "unreachable since 14:02"
  // changes once a day.
  const hostLine = useClockText((now) => (session ? hostNote(session, now) : ""));
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
  const tooltip = `${title} — ${badge.word}${hostLine}${session.cwd ? ` · ${shortenHome(session.cwd)}` : ""}`;
  const unreachableSince = session.unreachableSince;

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
          {size === "strip" && !compact && <Age at={session.lastEventAt} className="node-age" />}
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
  const holding = holdsIdle(session);

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

        {stale && <StaleMark at={session.lastEventAt} />}
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
        {holding && unreachableSince == null ? (
          // In the age's place: it says how long it has been silent, and what that costs.
          <HoldingMark session={session} />
        ) : unreachableSince != null ? (
          // In the age's place: how old its last news is matters less than that none can come.
          <UnreachableMark session={session} since={unreachableSince} />
        ) : (
          <Age at={session.lastEventAt} className="node-age" />
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
