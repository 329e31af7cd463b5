import { useEffect } from "react";
import { ReactFlowProvider } from "@xyflow/react";
import { Header } from "./header/Header";
import { Canvas } from "./board/Canvas";
import { EmptyState } from "./board/EmptyState";
import { OlderDrawer } from "./board/OlderDrawer";
import { ConnectionsDrawer } from "./settings/Connections";
import { DetailsPanel } from "./panel/DetailsPanel";
import { Notices } from "./header/Notices";
import { KeyHint } from "./header/KeyHint";
import { ShortcutSheet } from "./header/ShortcutSheet";
import { useReachSound } from "./reach/Reach";
import { useSwitchboard } from "./state/store";
import { startSync } from "./state/sync";
import * as ipc from "./shared/ipc";
import { startClock } from "./state/clock";
import { loadKnownSettings } from "./state/settings";

export function App() {
  useEffect(() => startSync(), []);
  useEffect(() => startClock(), []);
  // What the board says about Allow / Deny (a blocked card's hint) follows the saved settings.
  useEffect(() => loadKnownSettings(), []);
  useReachSound();
  const loaded = useSwitchboard((s) => s.loaded);
  // After the commit that drew the first board (or the empty state): the window may show now.
  useEffect(() => {
    if (!loaded) return;
    void ipc.pageReady().catch(() => {});
    // When that board first reached the screen (the window shows it, and only then are frames
    // drawn), on the page's clock: what the scale benchmark reads as the first paint.
    requestAnimationFrame(() => {
      window.__firstBoardFrame ??= performance.timeOrigin + performance.now();
    });
  }, [loaded]);
  const empty = useSwitchboard((s) => s.order.length === 0);
  const olderCount = useSwitchboard((s) => s.older.length);

  return (
    <div className="app">
      <Header />
      <Notices />
      <div className="app-body">
        <main className="app-main">
          {/* The canvas stays mounted while empty, so it can fit the view when sessions arrive. */}
          {loaded && (
            <ReactFlowProvider>
              <Canvas />
            </ReactFlowProvider>
          )}
          {loaded && empty && <EmptyState olderCount={olderCount} />}
          <OlderDrawer />
          <ConnectionsDrawer />
          <KeyHint />
        </main>
        <DetailsPanel />
      </div>
      <ShortcutSheet />
    </div>
  );
}
