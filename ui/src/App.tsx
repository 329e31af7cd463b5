import { useEffect } from "react";
import { ReactFlowProvider } from "@xyflow/react";
import { Header } from "./Header";
import { Canvas } from "./Canvas";
import { EmptyState } from "./EmptyState";
import { OlderDrawer } from "./OlderDrawer";
import { ConnectionsDrawer } from "./Connections";
import { DetailsPanel } from "./DetailsPanel";
import { Notices } from "./Notices";
import { KeyHint } from "./KeyHint";
import { ShortcutSheet } from "./ShortcutSheet";
import { useReachSound } from "./Reach";
import { useSwitchboard } from "./store";
import { startSync } from "./sync";
import { startClock } from "./clock";
import { loadKnownSettings } from "./settings";

export function App() {
  useEffect(() => startSync(), []);
  useEffect(() => startClock(), []);
  // What the board says about Allow / Deny (a blocked card's hint) follows the saved settings.
  useEffect(() => loadKnownSettings(), []);
  useReachSound();
  const loaded = useSwitchboard((s) => s.loaded);
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
