import { useEffect } from "react";
import { ReactFlowProvider } from "@xyflow/react";
import { Header } from "./Header";
import { Canvas } from "./Canvas";
import { EmptyState } from "./EmptyState";
import { useSwitchboard } from "./store";
import { startSync } from "./sync";
import { startClock } from "./clock";

export function App() {
  useEffect(() => startSync(), []);
  useEffect(() => startClock(), []);
  const loaded = useSwitchboard((s) => s.loaded);
  const empty = useSwitchboard((s) => s.order.length === 0);

  return (
    <div className="app">
      <Header />
      <main className="app-main">
        {loaded &&
          (empty ? (
            <EmptyState />
          ) : (
            <ReactFlowProvider>
              <Canvas />
            </ReactFlowProvider>
          ))}
      </main>
    </div>
  );
}
