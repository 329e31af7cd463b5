// Whether the `?` sheet (header/ShortcutSheet.tsx) is open: the board's keys and the header's
// button both open it.
import { create } from "zustand";

type SheetState = { open: boolean; setOpen(open?: boolean): void };

export const useShortcutSheet = create<SheetState>((set, get) => ({
  open: false,
  setOpen(open) {
    set({ open: open ?? !get().open });
  },
}));
