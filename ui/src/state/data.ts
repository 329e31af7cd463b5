// What the board's store holds (sessions as Rust reports them, kept apart from the canvas
// nodes: position, selection) and what it can be asked to do; the store itself is store.ts.
import type { Node, NodeChange } from "@xyflow/react";
import type { Session } from "../bindings/Session";
import type { SessionsChanged } from "../bindings/SessionsChanged";
import type { Category } from "../shared/status";
import type { LayoutHint, Region } from "../board/layout";
import { NO_FILTER, type Filter } from "../shared/filter";
import type { SortBy } from "../shared/usage";
import { type Direction } from "../board/neighbours";
import { windowPane, type NodeSize, type Pane, type XY } from "../board/geometry";

/**
 * A canvas node carries no session data, only the size of its cell: the node component reads
 * the session from the store by id.
 */
/**
 * `size`: the cell the layout gave the node. `region`: the region whose grid it sits in, `null`
 * when the user placed it (dragged) — on a crowded canvas the region draws its grid itself.
 */
export type SessionNodeType = Node<{ size: NodeSize; region: string | null }, "session">;

export type Focus = { id: string; seq: number };

export type Data = {
  /** Every session Rust reported, archived ones included. */
  sessions: Record<string, Session>;
  /** The sessions on the canvas (not archived), in arrival order (firstEventAt, then id). */
  order: string[];
  /** Archived sessions (the "Older" list), the most recently heard from first. */
  older: string[];
  /**
   * Sessions on the canvas whose title another one there shares, each with the short part of its
   * id that tells it from the others (see `distinctTags`): shown after the title.
   */
  twins: ReadonlyMap<string, string>;
  nodes: SessionNodeType[];
  /** True once the first snapshot (or its absence outside the app) is in. */
  loaded: boolean;
  /** The window's canvas area the layout is shaped for (not the pane: the details panel must
   * not reflow the canvas). */
  pane: Pane;
  /** The labelled regions behind the nodes: the "Needs you" lane and one per project (per machine). */
  regions: Region[];
  /** Each canvas session's project folder (see `projectsOf`). */
  projects: Record<string, string | null>;
  /** Where the user dropped nodes this run, until Rust's echo of `position` catches up. */
  dragged: Record<string, XY>;
  /** What the layout was last made from: skip the work when a change does not move anything. */
  layoutKey: string;
  /** What the last layout chose, and for which pane: the next one of that pane moves little. */
  layoutHint: { pane: string; hint: LayoutHint } | null;
  /**
   * Sessions just answered from the board, with the place (rank) they had: they stay where the
   * user clicked until the pointer leaves them (or a short while passes), so the board does not
   * rearrange under the pointer.
   */
  heldPlaces: Record<string, number>;
  filter: Filter;
  /** What orders the nodes inside each region (the filter bar's sort); "default": what needs you first. */
  sort: SortBy;
  /** Sessions the filter lets through; `null` when nothing is filtered. */
  matches: ReadonlySet<string> | null;
  filterOpen: boolean;
  /** Bumped when the user asks to see the filter's matches (chip click, Enter in the filter). */
  showMatches: number;
  /** The latest request to bring a node into view; `seq` makes repeats distinct. */
  focus: Focus | null;
  /** A focus request for a session not seen yet (a notification can beat the event). */
  pendingFocus: string | null;
  /** An archived session picked in the Older list: it has no node, so no node selection. */
  pickedOlder: string | null;
  /** Whether the Older drawer is open. */
  olderOpen: boolean;
};

export type Actions = {
  applySnapshot(sessions: readonly Session[]): void;
  applyChanges(change: SessionsChanged): void;
  onNodesChange(changes: NodeChange<SessionNodeType>[]): void;
  select(id: string | null): void;
  /** Select a node and ask the canvas to bring it into view. */
  focusSession(id: string): void;
  /** The user opened a node (click, Enter): ask Rust to clear its unread dot. */
  openSession(id: string): void;
  /** The window was resized: reshape the layout when its shape changed noticeably. */
  setPane(pane: Pane): void;
  /** Keep the session's node where it is (see `heldPlaces`); `releasePlace` lets it go. */
  holdPlace(id: string): void;
  releasePlace(id: string): void;
  setFilterText(text: string): void;
  /** The filter bar's branch field: only sessions whose git branch contains it stay lit. */
  setFilterBranch(branch: string): void;
  /** Order the nodes inside each region by a usage figure (or back to the default order). */
  setSort(sort: SortBy): void;
  /** A header chip: show only that state; the same chip again shows everything. */
  toggleCategory(category: Category): void;
  setFilterOpen(open: boolean): void;
  /** Empty the filter and close it. */
  clearFilter(): void;
  /** Ask the canvas to bring the matches into view; selects the first. */
  showFilterMatches(): void;
  /** Arrow keys: select the nearest lit node that way (the first one if none is selected). */
  moveSelection(direction: Direction): string | null;
  /** Step through the sessions of one header chip. */
  cycle(category: Category): void;
  /** `n` / `Shift+n`: the next or previous session that needs the user. */
  jumpToNeedsYou(direction: 1 | -1): void;
  /** Show an archived session's details (read-only: nothing is sent to Rust). */
  pickOlder(id: string): void;
  /** Open or close the Older drawer (toggle without an argument). */
  setOlderOpen(open?: boolean): void;
  /** Close the details panel: no node selected, no Older session picked. */
  closeDetails(): void;
};

export type SwitchboardState = Data & Actions;

export function initialData(): Data {
  return {
    sessions: {},
    order: [],
    older: [],
    twins: new Map(),
    nodes: [],
    loaded: false,
    pane: windowPane(),
    regions: [],
    projects: {},
    dragged: {},
    layoutKey: "",
    layoutHint: null,
    heldPlaces: {},
    filter: NO_FILTER,
    sort: "default",
    matches: null,
    filterOpen: false,
    showMatches: 0,
    focus: null,
    pendingFocus: null,
    pickedOlder: null,
    olderOpen: false,
  };
}

