// The Older drawer: sessions silent for a day have aged off the canvas and are listed here.
// Read-only: picking one shows its details and history; it returns to the canvas by itself
// when it reports again.
import "./OlderDrawer.css";
import { useSwitchboard } from "../state/store";
import { Age } from "../card/ClockText";
import { agentName, shortenHome, titleOf } from "../shared/sessionLabels";
import { CloseIcon, StatusGlyph } from "../shared/icons";

function OlderItem({ id, picked }: { id: string; picked: boolean }) {
  const session = useSwitchboard((s) => s.sessions[id]);
  const pickOlder = useSwitchboard((s) => s.pickOlder);
  if (!session) return null;
  const badge = session.badge;
  const title = titleOf(session);
  const folder = session.cwd ? shortenHome(session.cwd) : null;
  const classes = ["older-item", `tone-${badge.tone}`];
  if (picked) classes.push("is-picked");
  if (session.ended) classes.push("is-ended");
  return (
    <li>
      <button
        type="button"
        className={classes.join(" ")}
        data-testid="older-item"
        data-session-id={id}
        aria-current={picked ? "true" : undefined}
        onClick={() => pickOlder(id)}
      >
        <span className="older-line">
          <span className="older-title" title={title}>
            {title}
          </span>
          <Age at={session.lastEventAt} className="older-age" />
        </span>
        <span className="older-line older-meta">
          <span className="older-status">
            <StatusGlyph tone={badge.tone} className="older-glyph" />
            <span className="older-word" data-testid="older-status">
              {badge.word}
            </span>
            {session.ended && <span className="ended-mark"> · ended</span>}
          </span>
          <span className="older-where" title={session.cwd ?? undefined}>
            {agentName(session.agent)}
            {folder && ` · ${folder}`}
          </span>
        </span>
      </button>
    </li>
  );
}

export function OlderDrawer() {
  const older = useSwitchboard((s) => s.older);
  const open = useSwitchboard((s) => s.olderOpen);
  const picked = useSwitchboard((s) => s.pickedOlder);
  const setOlderOpen = useSwitchboard((s) => s.setOlderOpen);
  if (!open || older.length === 0) return null;
  return (
    <aside className="older-drawer" id="older-drawer" data-testid="older-list" aria-label="Older sessions">
      <div className="drawer-head">
        <h2 className="drawer-title">
          Older <span className="drawer-count">{older.length}</span>
        </h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close the Older list"
          title="Close"
          onClick={() => setOlderOpen(false)}
        >
          <CloseIcon />
        </button>
      </div>
      <p className="drawer-note">Silent for a day or more. Each comes back to the canvas when it reports.</p>
      <ul className="older-items">
        {older.map((id) => (
          <OlderItem key={id} id={id} picked={id === picked} />
        ))}
      </ul>
    </aside>
  );
}
