// The Settings / Diagnostics drawer (settings/Connections.tsx): whether it is open, on which tab,
// and the last `switchboard doctor` report. A blocked card and the first run open it too.
import { create } from "zustand";
import type { DoctorReport } from "../bindings/DoctorReport";
import * as ipc from "../shared/ipc";

export type DrawerTab = "settings" | "diagnostics";

type ConnectionsState = {
  open: boolean;
  /** The tab on show. */
  tab: DrawerTab;
  report: DoctorReport | null;
  checking: boolean;
  error: string | null;
  /** When the checks last finished (Unix ms), to say "Checked at …" after Check again. */
  checkedAt: number | null;
  /** Open (on the Settings tab) or close; toggles without an argument. */
  setOpen(open?: boolean): void;
  /** Open on that tab. */
  show(tab: DrawerTab): void;
  setTab(tab: DrawerTab): void;
  /** Runs the checks again (they take a moment: each CLI's `--version`, a test event). */
  refresh(): Promise<void>;
};

export const useConnections = create<ConnectionsState>((set, get) => ({
  open: false,
  tab: "settings",
  report: null,
  checking: false,
  error: null,
  checkedAt: null,
  setOpen(open) {
    const next = open ?? !get().open;
    set(next ? { open: true, tab: "settings" } : { open: false });
    if (next) void get().refresh();
  },
  show(tab) {
    set({ open: true, tab });
    void get().refresh();
  },
  setTab(tab) {
    set({ tab });
  },
  async refresh() {
    if (get().checking) return;
    set({ checking: true, error: null });
    try {
      const report = await ipc.doctor();
      set({ report, checking: false, checkedAt: Date.now() });
    } catch (err) {
      set({ error: ipc.toIpcError(err).message, checking: false, checkedAt: Date.now() });
    }
  },
}));
