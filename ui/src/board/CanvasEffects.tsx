// What the board does inside React Flow besides drawing: focus requests (chips, `n`,
// notifications), fitting, and the keyboard shortcuts that act on the selected card.
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { useReactFlow, useStore, useStoreApi } from "@xyflow/react";
import { useSwitchboard, selectDetailsId, selectSelectedId } from "../state/store";
import type { Session } from "../bindings/Session";
import { isTypingTarget, optionOf, shortcutFor } from "../shared/shortcuts";
import { answer, canDecide, commandSeen, notHeldHint, noteNotHeld, revealCommandEnd } from "../panel/Decide";
import { asking, cannotPick, MAX_KEYED_OPTION, pickOption } from "../panel/Answer";
import { useKnownSettings } from "../state/settings";
import { titleOf } from "../shared/sessionLabels";
import { jump } from "../shared/jump";
import { keyHint } from "../state/keyHint";
import { useConnections } from "../state/connections";
import { useShortcutSheet } from "../state/shortcutSheet";
import { boundsOfLayout, boundsOfSessions, follows, MIN_ZOOM, paneOf, useFit, useFitWhenFilled, useReveal, useWindowPane, useZoomedOutSizes, type CanvasNode, type Following } from "./viewport";
import { boxInView, fitFloor, fitViewport } from "./fit";
import { FIT_PADDING } from "./geometry";

/** The session whose tile an event happened in, if any. */
export function tileOf(target: EventTarget | null): string | null {
  return (target as Element | null)?.closest?.(".session-tile")?.getAttribute("data-id") ?? null;
}

/** The session node the key was pressed on (reached with Tab), if any. */
function focusedNode(event: KeyboardEvent): string | null {
  return (event.target as Element | null)?.closest?.(CARD_SELECTOR)?.getAttribute("data-id") ?? null;
}

/** A session's focusable frame: its React Flow node, or its tile in a crowded region. */
const CARD_SELECTOR = ".react-flow__node-session, .session-tile";

/**
 * What a key acts on: the card the details panel shows — the ring is on it, and focus follows it
 * — else the card focus is on (reached with Tab, its panel closed with Esc).
 */
function targetOf(event: KeyboardEvent): string | null {
  return selectDetailsId(useSwitchboard.getState()) ?? focusedNode(event);
}

const NOTHING_SELECTED = "No card is selected: press n for the next one that needs you, or Tab / the arrows to pick one.";

/** Why a digit key cannot pick this option of the session, or `null` when it can. */
export function optionRefused(session: Session, option: number): string | null {
  if (!asking(session)) return `“${titleOf(session)}” is not asking a question.`;
  const why = cannotPick(session);
  if (why) return why;
  const count = Math.min(session.questions[0]?.options.length ?? 0, MAX_KEYED_OPTION);
  if (option > count) return count === 1 ? "This question has one option: press 1." : `This question has options 1–${count}.`;
  return null;
}

function cardElement(id: string): HTMLElement | null {
  const escaped = CSS.escape(id);
  return document.querySelector<HTMLElement>(
    `.react-flow__node-session[data-id="${escaped}"], .session-tile[data-id="${escaped}"]`,
  );
}

/**
 * Focus and selection are one card (issue 44.1): a card reached with Tab is selected (its panel
 * opens), and a selection moved by `n`, the arrows or a click takes focus along — unless focus is
 * in a field or the panel, where it stays. A selected card not drawn yet (out of view on a
 * crowded board) takes focus once the view has come to it; a stale focus is let go meanwhile.
 */
function useFocusFollowsSelection(reveal: (id: string, mode: "center" | "nudge") => void): void {
  useEffect(() => {
    let lastInput: "key" | "pointer" = "pointer";
    const onKey = () => (lastInput = "key");
    const onPointer = () => (lastInput = "pointer");
    const onFocusIn = (event: FocusEvent) => {
      // A press of the mouse focuses the node too; only a click selects (a drag must not).
      if (lastInput !== "key") return;
      const id = (event.target as Element | null)?.closest?.(CARD_SELECTOR)?.getAttribute("data-id");
      const store = useSwitchboard.getState();
      if (!id || selectDetailsId(store) === id || !store.sessions[id]) return;
      store.select(id);
      // Its panel opened beside it: keep the card in view, as a click does.
      requestAnimationFrame(() => reveal(id, "nudge"));
    };
    let frame = 0;
    const follow = (id: string, tries: number) => {
      cancelAnimationFrame(frame);
      const active = document.activeElement as HTMLElement | null;
      const onCard = active?.closest?.(CARD_SELECTOR) ?? null;
      // Focus in a field, a drawer or the panel stays there; the keys act on the selection anyway.
      if (active && active !== document.body && !onCard) return;
      if (onCard?.getAttribute("data-id") === id) return;
      const el = cardElement(id);
      if (el) {
        el.focus({ preventScroll: true });
        return;
      }
      if (onCard) active!.blur();
      if (tries > 0) frame = requestAnimationFrame(() => follow(id, tries - 1));
    };
    const unsubscribe = useSwitchboard.subscribe((state, previous) => {
      if (state.nodes === previous.nodes) return;
      const id = selectSelectedId(state);
      if (id != null && id !== selectSelectedId(previous)) follow(id, 30);
    });
    window.addEventListener("keydown", onKey, true);
    window.addEventListener("pointerdown", onPointer, true);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      cancelAnimationFrame(frame);
      unsubscribe();
      window.removeEventListener("keydown", onKey, true);
      window.removeEventListener("pointerdown", onPointer, true);
      document.removeEventListener("focusin", onFocusIn);
    };
  }, [reveal]);
}

/** Focus requests (chips, `n`, notifications), fitting and keyboard shortcuts; inside React Flow. */
export function CanvasEffects({ followRef }: { followRef: RefObject<Following> }) {
  const flow = useReactFlow<CanvasNode>();
  const flowStore = useStoreApi<CanvasNode>();
  const reveal = useReveal(followRef);
  const focus = useSwitchboard((s) => s.focus);
  const filled = useSwitchboard((s) => s.order.length > 0);
  const showMatches = useSwitchboard((s) => s.showMatches);
  const nodes = useSwitchboard((s) => s.nodes);
  const regions = useSwitchboard((s) => s.regions);
  const paneWidth = useStore((s) => s.width);
  const paneHeight = useStore((s) => s.height);
  useZoomedOutSizes();
  useWindowPane();
  useFocusFollowsSelection(reveal);

  const fit = useFit(followRef);
  const arrive = useCallback(() => fit(false), [fit]);
  useFitWhenFilled(filled, arrive);

  // Sessions came, went or moved: bring the board back into view if part of it left — or fit it
  // again when it got smaller than the view it was fitted to (a relayout for a new window shape,
  // sessions gone), which would leave an empty band beside it (issue 44.3).
  useEffect(() => {
    const viewport = flow.getViewport();
    if (!follows(followRef.current, viewport)) return;
    const bounds = boundsOfLayout(nodes, regions);
    if (!bounds) return;
    const pane = paneOf(flowStore.getState());
    if (!boxInView(bounds, viewport, pane)) {
      fit(true);
      return;
    }
    const { pane: window } = useSwitchboard.getState();
    const wanted = fitViewport(bounds, pane, fitFloor(regions, window, MIN_ZOOM));
    if (wanted.zoom > viewport.zoom * 1.05 || Math.abs(wanted.x - viewport.x) > 24) fit(true);
  }, [nodes, regions, flow, flowStore, fit, followRef]);

  // The window or the pane (the details panel opened or closed) changed size: fit it again.
  // When it is first measured only if the arrival's fit was made for another size (a window
  // still hidden has none): at once then, before anyone saw the view.
  const measured = useRef(false);
  useEffect(() => {
    const first = !measured.current;
    measured.current = paneWidth > 0 && paneHeight > 0;
    if (!measured.current) return;
    if (first) {
      const [made, now] = [followRef.current.fittedFor, paneOf(flowStore.getState())];
      const other = made && (Math.abs(made.width - now.width) >= 1 || Math.abs(made.height - now.height) >= 1);
      if (other && follows(followRef.current, flow.getViewport())) fit(false);
      return;
    }
    const timer = setTimeout(() => {
      if (follows(followRef.current, flow.getViewport())) fit(true);
    }, 60);
    return () => clearTimeout(timer);
  }, [paneWidth, paneHeight, fit, followRef, flow, flowStore]);

  useEffect(() => {
    if (focus) reveal(focus.id, "center");
    // The pane size is read at the moment of the request; resizing must not re-pan.
  }, [focus, reveal]);

  // A chip turned on, or Enter in the filter: bring the matches into view.
  useEffect(() => {
    if (showMatches === 0) return;
    const { matches } = useSwitchboard.getState();
    if (!matches || matches.size === 0) return;
    const bounds = boundsOfSessions(matches);
    if (!bounds) return;
    // After the details panel (opened by the selection) has taken its share of the pane.
    followRef.current.on = false;
    const timer = setTimeout(() => void flow.fitBounds(bounds, { padding: FIT_PADDING, duration: 300 }), 80);
    return () => clearTimeout(timer);
  }, [showMatches, flow, followRef]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isTypingTarget(event.target)) return;
      const shortcut = shortcutFor(event);
      if (!shortcut) return;
      const store = useSwitchboard.getState();
      switch (shortcut) {
        case "next":
          store.jumpToNeedsYou(1);
          break;
        case "previous":
          store.jumpToNeedsYou(-1);
          break;
        case "open": {
          // The card the panel shows, else the one focus is on (the ring is on it either way).
          const id = targetOf(event);
          if (!id) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          // Enter opens; Enter on the node whose details are open goes to its terminal.
          const open = selectDetailsId(store) === id;
          if (!open) store.select(id);
          store.openSession(id);
          if (open && !store.sessions[id]?.ended) void jump(id);
          break;
        }
        case "allow":
        case "deny": {
          const id = targetOf(event);
          const session = id ? store.sessions[id] : undefined;
          if (!session) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          if (!canDecide(session)) {
            if (session.status === "blocked" && !session.ended) {
              noteNotHeld(session);
              keyHint(notHeldHint(session, useKnownSettings.getState().settings?.decide ?? null));
            } else keyHint(`“${titleOf(session)}” is not asking for permission.`);
            break;
          }
          if (shortcut === "allow" && !commandSeen(session)) {
            // Never Allow what has not been on screen whole: show its end, then `a` answers.
            if (selectDetailsId(store) !== id) store.select(id);
            requestAnimationFrame(() => revealCommandEnd(id!));
            keyHint("Read the command to its end first — it is now in view; press a again to allow it.");
            break;
          }
          void answer(session, shortcut);
          break;
        }
        case "option": {
          // The question of the card the panel shows (else the focused one).
          const id = targetOf(event);
          const session = id ? store.sessions[id] : undefined;
          const option = optionOf(event);
          if (option == null) return;
          if (!session) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          const why = optionRefused(session, option);
          if (why) {
            keyHint(why);
            break;
          }
          void pickOption(session, option);
          break;
        }
        case "left":
        case "right":
        case "up":
        case "down": {
          const id = store.moveSelection(shortcut);
          if (!id) return;
          reveal(id, "nudge");
          break;
        }
        case "filter":
          store.setFilterOpen(true);
          // The filter field may already be open: focus it again.
          requestAnimationFrame(() => document.querySelector<HTMLInputElement>("[data-testid='filter-input']")?.focus());
          break;
        case "fit":
          fit(true);
          break;
        case "help":
          useShortcutSheet.getState().setOpen(true);
          break;
        case "close":
          // What opened last closes first: the drawer lies over the board and its panel.
          if (useConnections.getState().open) useConnections.getState().setOpen(false);
          else if (selectDetailsId(store) != null) store.closeDetails();
          else if (store.olderOpen) store.setOlderOpen(false);
          else if (store.filterOpen || store.matches) store.clearFilter();
          else return;
          break;
      }
      event.preventDefault();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [reveal, fit, followRef]);

  return null;
}

