// Light or dark (Settings → Appearance): the user's choice, or the system's. Kept in the web
// view's own storage (a look, not something the instance needs), resolved here and set as
// `data-theme` on the root, which the stylesheet's dark palette keys on.
import { create } from "zustand";

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

const KEY = "switchboard.theme";

function stored(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

function systemDark(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-color-scheme: dark)").matches;
}

function resolve(choice: ThemeChoice): Theme {
  return choice === "system" ? (systemDark() ? "dark" : "light") : choice;
}

type ThemeState = { choice: ThemeChoice; theme: Theme; choose(choice: ThemeChoice): void };

export const useTheme = create<ThemeState>((set) => ({
  choice: "system",
  theme: "light",
  choose(choice) {
    try {
      if (choice === "system") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, choice);
    } catch {
      // No storage: the choice lasts until the window closes.
    }
    set({ choice, theme: resolve(choice) });
  },
}));

// The root follows the resolved theme.
useTheme.subscribe((state, before) => {
  if (state.theme !== before.theme) document.documentElement.dataset.theme = state.theme;
});

/** Reads the saved choice and follows the system's scheme while the choice is "system". */
export function startTheme(): void {
  const choice = stored();
  useTheme.setState({ choice, theme: resolve(choice) });
  document.documentElement.dataset.theme = useTheme.getState().theme;
  const query = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  query?.addEventListener("change", () => {
    const { choice } = useTheme.getState();
    if (choice === "system") useTheme.setState({ theme: resolve(choice) });
  });
}
