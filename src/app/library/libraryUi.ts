/**
 * Whether the library dialog is open (page-only state of its own, beside useUi): the
 * toolbar's button needs it on the first screen; opening scenarios (open.ts) loads later.
 */
import { create } from "zustand";

export const useLibraryUi = create<{ readonly open: boolean; readonly setOpen: (open: boolean) => void }>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
}));
