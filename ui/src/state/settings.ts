// The saved settings as the Connections panel's sections share them: read once when the panel
// opens, saved whole. A module of its own so that the sections import it, not the panel.
import { useCallback, useEffect, useState } from "react";
import { create } from "zustand";
import type { Settings } from "../bindings/Settings";
import * as ipc from "../shared/ipc";

/**
 * The settings as last read or saved, for what the board says outside the panel (a blocked card
 * says whether Allow / Deny is on for its CLI). `null` until read, or outside the app.
 */
export const useKnownSettings = create<{ settings: Settings | null }>(() => ({ settings: null }));

/** Reads the settings once for the board (at start-up); the panel's saves keep them current. */
export function loadKnownSettings(): void {
  ipc.settings().then(
    (settings) => useKnownSettings.setState({ settings }),
    () => {},
  );
}

/** The settings as Rust last gave them, shared by the panel's sections (each saves the whole). */
export type SavedSettings = {
  /** `null` until read. */
  saved: Settings | null;
  /** Why they could not be read. */
  loadError: string | null;
  /** A save is under way: the sections wait, so that no save starts from stale settings. */
  saving: boolean;
  /** Saves them whole and resolves with what Rust kept; rejects with an {@link ipc.IpcError}. */
  save(next: Settings): Promise<Settings>;
};

/** Reads the settings once, when the panel opens. */
export function useSavedSettings(): SavedSettings {
  const [saved, setSaved] = useState<Settings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    let live = true;
    ipc.settings().then(
      (settings) => {
        useKnownSettings.setState({ settings });
        if (live) setSaved(settings);
      },
      (err: unknown) => live && setLoadError(ipc.toIpcError(err).message),
    );
    return () => {
      live = false;
    };
  }, []);
  const save = useCallback(async (next: Settings) => {
    setSaving(true);
    try {
      // Rust cleans what it is given (known CLIs, the wait clamped): keep what it kept.
      const settings = await ipc.setSettings(next);
      setSaved(settings);
      useKnownSettings.setState({ settings });
      return settings;
    } catch (err) {
      throw ipc.toIpcError(err);
    } finally {
      setSaving(false);
    }
  }, []);
  return { saved, loadError, saving, save };
}

