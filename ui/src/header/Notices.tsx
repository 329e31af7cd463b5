import "./Notices.css";
import { useEffect, useState } from "react";
import { notices as fetchNotices, onNoticesChanged } from "../shared/ipc";

/** A quiet banner for what the Rust side wants the user to know (e.g. a database set aside). */
export function Notices() {
  const [notices, setNotices] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    let unlisten: (() => void) | null = null;
    // Listen first, then fetch: a notice raised in between is not missed.
    void onNoticesChanged((list) => live && setNotices(list))
      .then((stop) => {
        if (live) unlisten = stop;
        else stop();
      })
      .catch(() => {});
    fetchNotices()
      .then((list) => live && setNotices(list))
      .catch(() => {});
    return () => {
      live = false;
      unlisten?.();
    };
  }, []);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" data-testid="notices">
      {notices.map((notice) => (
        <p key={notice}>{notice}</p>
      ))}
      <button type="button" className="notices-dismiss" aria-label="Dismiss" onClick={() => setNotices([])}>
        ×
      </button>
    </div>
  );
}
