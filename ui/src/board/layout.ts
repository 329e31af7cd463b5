// Where nodes go on the canvas. Sessions that need the user (blocked, waiting) sit in a
// "Needs you" lane at the top (from every machine); the others are grouped by machine, then
// project, each group a labelled region, ordered inside by what needs the user first. The lane and the groups are packed to
// the window's aspect ratio, so that fit-view keeps them as large as possible. Positions the
// user dragged win: those nodes stay put and the grid flows around them.
// Pure: no store, no IO. The units and boxes are geometry.ts, ranks and projects projects.ts,
// fitting fit.ts, keyboard neighbours neighbours.ts.
import { RANK_ENDED } from "../bindings/view";
import { LOCAL_HOST, lastFolder, projectRegionId, shortenHome } from "../shared/sessionLabels";
import { type XY, type Box, type Pane, type NodeSize, GAP_X, GAP_Y, STRIP_GAP_Y, CELL_WIDTH, CELL_HEIGHT, REGION_LABEL, REGION_PAD, REGION_GAP, ZOOM_COMPACT, FIT_PADDING, DEFAULT_PANE, sizeOf, boxesOverlap, boundsOfBoxes } from "./geometry";
import { NEEDS_YOU_RANK, compareHosts } from "./projects";

// ── Packing ──────────────────────────────────────────────────────────────────────────────────

/**
 * `host`: the machine the session runs on (`"local"` when not given). `place`: its place in the
 * order the user sorts by (cost, context, memory; lower first), absent in the default order.
 */
export type LayoutItem = { id: string; project: string | null; rank: number; host?: string; place?: number };

export type Region = {
  /** "needs-you", or "project:<path>" (a remote's: "project:<host>:<path>", see `projectRegionId`). */
  id: string;
  kind: "needs-you" | "project";
  /** "Needs you", or the project's folder name (a remote's after its host: "devbox · api"). */
  label: string;
  /** The project's folder, home shortened; null for the lane and for sessions without a cwd. */
  path: string | null;
  /** Sessions laid out in the region. */
  count: number;
  /** For a project: how many of its sessions are up in the "Needs you" lane. */
  needsYou: number;
} & Box;

/**
 * What a layout chose, handed to the next one (same pane) so that a change moves little: the
 * shelf width it kept, and each region's columns and rows. A region keeps its columns while the
 * ideal is within one of them, and its rows while it needs at most one row fewer (it grows at
 * once, shrinks late); the shelf width while its fit is within {@link HINT_FIT_SLACK} of the best
 * with those; and all of it only while the board fits within that slack of a fresh layout.
 */
export type LayoutHint = {
  /** The size of the nodes it was made for (projects' strips or full cards). */
  size: NodeSize;
  columns: number;
  regions: Record<string, { columns: number; rows: number; slots?: (string | null)[] }>;
  /**
   * The fit of the last fresh layout, how many sessions it had, and how many layouts have used it
   * since: while the board has about as many (and for {@link FRESH_USES} changes), a change lays
   * out only the hint's shape (one packing, not a search) and keeps it while it fits within the
   * slack of that.
   */
  fresh: { fitZoom: number; count: number; uses: number } | null;
};

/** Changes laid out against one fresh layout's fit before a fresh one is searched again. */
export const FRESH_USES = 20;

/** How much smaller (a fraction of the best fit's zoom) a board may be drawn to keep its shelf width. */
export const HINT_FIT_SLACK = 0.12;

export type LayoutOptions = {
  /** The previous layout's choices, for the same pane. */
  hint?: LayoutHint | null;
  /**
   * A crowded board: each session keeps its cell while it stays in its region (the lane too),
   * whatever its status — one that leaves leaves a hole, the next to arrive takes the first hole
   * (see {@link slotted}). Without a hint (or with the user's sort) each project is in arrival
   * order (the sort's), ended last, rather than by what needs the user.
   */
  stableOrder?: boolean;
};

/** Holes a region keeps before it closes them up: a quarter of its cells, and at least this many. */
export const MIN_HOLES = 4;

/**
 * A region's cells in the order they are filled: the last layout's `slots` with those that left
 * turned into holes, newcomers (in `items`' order) in the first holes then at the end. Too many
 * holes, and the region closes up in `items`' order.
 */
export function slotted<T extends { id: string }>(items: readonly T[], slots: readonly (string | null)[] | undefined): (T | null)[] {
  if (!slots) return [...items];
  const byId = new Map(items.map((item) => [item.id, item]));
  const cells: (T | null)[] = slots.map((id) => (id != null ? (byId.get(id) ?? null) : null));
  const placed = new Set(cells.filter((c): c is T => c != null).map((c) => c.id));
  let hole = 0;
  for (const item of items) {
    if (placed.has(item.id)) continue;
    while (hole < cells.length && cells[hole] != null) hole++;
    if (hole < cells.length) cells[hole] = item;
    else cells.push(item);
  }
  while (cells.length > 0 && cells[cells.length - 1] == null) cells.pop();
  const holes = cells.length - items.length;
  return holes > Math.max(MIN_HOLES, cells.length / 4) ? [...items] : cells;
}

export type Layout = {
  positions: Record<string, XY>;
  sizes: Record<string, NodeSize>;
  /** The region each laid-out session sits in; the pinned (dragged) ones are in none. */
  regionOf: Record<string, string>;
  regions: Region[];
  /** Fit-view zoom of the whole layout in the pane it was made for (uncapped). */
  fitZoom: number;
  /** What it chose, for the next layout of this pane. */
  hint: LayoutHint;
};

type Group = {
  region: Omit<Region, keyof Box>;
  items: LayoutItem[];
  /** The cells in fill order, holes as `null` (see {@link slotted}); else `items`, one per cell. */
  cells?: (LayoutItem | null)[];
  size: NodeSize;
};

/** A group's columns: the ideal, or the hint's while it is within one of it (and fits the shelf). */
function heldColumns(ideal: number, group: Group, maxColumns: number, hint: LayoutHint | null): number {
  const held = hint?.regions[group.region.id]?.columns;
  if (held == null || held > maxColumns || Math.abs(held - ideal) > 1) return ideal;
  return Math.max(1, held);
}

/** A group's rows: what its items need, or the hint's while that is at most one more (grow at once, shrink late). */
function heldRows(needed: number, group: Group, hint: LayoutHint | null): number {
  const held = hint?.regions[group.region.id]?.rows;
  if (held == null || held < needed || held - needed > 1) return needed;
  return held;
}

function stepOf(size: NodeSize) {
  const { height } = sizeOf(size);
  return { x: CELL_WIDTH, y: height + (size === "full" ? GAP_Y : STRIP_GAP_Y) };
}

/**
 * Fill a region's grid from `origin`, row by row, skipping cells that a pinned node covers;
 * returns the region's box. Without `out` only the box is wanted (a trial packing): with nothing
 * pinned that is arithmetic, not a walk over the items.
 */
function fillCells(
  group: Group,
  columns: number,
  rows: number,
  origin: XY,
  pinned: readonly Box[],
  out: Layout | null,
): Box {
  const step = stepOf(group.size);
  const { width, height } = sizeOf(group.size);
  const left = origin.x + REGION_PAD;
  const top = origin.y + REGION_LABEL;
  const used = Math.min(columns, Math.max(1, (group.cells ?? group.items).length));
  const regionWidth = 2 * REGION_PAD + used * step.x - GAP_X;
  // The rows it keeps (a hint's), filled or not.
  const kept = rows > 0 ? top + (rows - 1) * step.y + height : top;
  const cells = group.cells ?? group.items;
  if (!out && pinned.length === 0) {
    const n = cells.length;
    const bottom = Math.max(kept, n === 0 ? top : top + Math.floor((n - 1) / columns) * step.y + height);
    return { x: origin.x, y: origin.y, width: regionWidth, height: bottom - origin.y + REGION_PAD };
  }
  let index = 0;
  let bottom = top;
  for (const item of cells) {
    // A hole: its cell stays empty.
    if (item == null) {
      index++;
      continue;
    }
    for (;;) {
      const cell = { x: left + (index % columns) * step.x, y: top + Math.floor(index / columns) * step.y, width, height };
      index++;
      if (pinned.some((p) => boxesOverlap(cell, p, 8))) continue;
      if (out) {
        out.positions[item.id] = { x: cell.x, y: cell.y };
        out.sizes[item.id] = group.size;
        out.regionOf[item.id] = group.region.id;
      }
      bottom = Math.max(bottom, cell.y + height);
      break;
    }
  }
  bottom = Math.max(bottom, kept);
  return { x: origin.x, y: origin.y, width: regionWidth, height: bottom - origin.y + REGION_PAD };
}

/** Columns that give a group of `n` cells about the pane's shape, within `maxColumns`. */
function columnsFor(n: number, size: NodeSize, aspect: number, maxColumns: number): number {
  const step = stepOf(size);
  const ideal = Math.round(Math.sqrt((n * aspect * step.y) / step.x));
  return Math.max(1, Math.min(n, maxColumns, ideal));
}

/**
 * The lane at the top, then the project regions on shelves no wider than `width`; returns the
 * regions' boxes. Nodes and labelled regions go into `out` only when given: a trial packing
 * needs the boxes alone (and trying a dozen widths per change must stay cheap).
 */
function pack(
  groups: readonly Group[],
  width: number,
  aspect: number,
  pinned: readonly Box[],
  hint: LayoutHint | null,
  out: Layout | null,
): Box[] {
  const boxes: Box[] = [];
  let x = 0;
  let y = 0;
  let shelf = 0;
  for (const group of groups) {
    const maxColumns = Math.max(1, Math.floor((width - 2 * REGION_PAD + GAP_X) / CELL_WIDTH));
    const lane = group.region.kind === "needs-you";
    const ideal = lane
      ? Math.min((group.cells ?? group.items).length, maxColumns)
      : columnsFor(group.items.length, group.size, aspect, maxColumns);
    // The lane is alone on its shelf: it widens and narrows freely, moving nothing else.
    const columns = lane ? ideal : heldColumns(ideal, group, maxColumns, hint);
    const cellCount = (group.cells ?? group.items).length;
    const rows = heldRows(Math.ceil(cellCount / columns), group, hint);
    const regionWidth = 2 * REGION_PAD + Math.min(columns, Math.max(1, cellCount)) * CELL_WIDTH - GAP_X;
    if (x > 0 && (lane || x + regionWidth > width)) {
      x = 0;
      y += shelf + REGION_GAP;
      shelf = 0;
    }
    const box = fillCells(group, columns, rows, { x, y }, pinned, out);
    boxes.push(box);
    if (out) {
      out.regions.push({ ...group.region, ...box });
      out.hint.regions[group.region.id] = { columns, rows };
      if (group.cells) out.hint.regions[group.region.id]!.slots = group.cells.map((cell) => cell?.id ?? null);
    }
    shelf = Math.max(shelf, box.height);
    x += box.width + REGION_GAP;
    // Nothing shares a shelf with the lane: it reads as the first thing, full width.
    if (lane) x = width + 1;
  }
  return boxes;
}

function zoomToFit(boxes: readonly Box[], pane: Pane): number {
  const bounds = boundsOfBoxes(boxes);
  if (!bounds) return Infinity;
  return Math.min(pane.width / bounds.width, pane.height / bounds.height);
}

/**
 * Try shelf widths and keep the packing that fit-view shows largest: a coarse pass over the
 * range, then every width around the best one (the fit zoom rises, then falls, with the width).
 */
function bestPacking(groups: readonly Group[], pane: Pane, pinnedBoxes: readonly Box[], hint: LayoutHint | null): Layout {
  const aspect = pane.width / pane.height;
  const total = groups.reduce((n, g) => n + g.items.length, 0);
  const widest = Math.max(1, Math.ceil(Math.sqrt(total * 4)) + 2);
  const shelfWidth = (columns: number) => 2 * REGION_PAD + columns * CELL_WIDTH - GAP_X;
  const tried = new Map<number, number>();
  const attempt = (columns: number): number => {
    const known = tried.get(columns);
    if (known !== undefined) return known;
    const boxes = pack(groups, shelfWidth(columns), aspect, pinnedBoxes, hint, null);
    const fitZoom = zoomToFit([...boxes, ...pinnedBoxes], pane);
    tried.set(columns, fitZoom);
    return fitZoom;
  };
  const better = (a: number, b: number | null) => b == null || a > b + 1e-9;
  const stride = Math.max(1, Math.ceil(widest / 12));
  let best: number | null = null;
  let bestColumns = 1;
  for (let columns = 1; columns <= widest; columns += stride) {
    const fitZoom = attempt(columns);
    if (better(fitZoom, best)) [best, bestColumns] = [fitZoom, columns];
  }
  const around = bestColumns;
  for (let columns = Math.max(1, around - stride + 1); columns <= Math.min(widest, around + stride - 1); columns++) {
    const fitZoom = attempt(columns);
    if (better(fitZoom, best)) [best, bestColumns] = [fitZoom, columns];
  }
  // The shelf width the last layout kept, while it is nearly as good: fewer moves per change.
  if (hint && hint.columns !== bestColumns && hint.columns >= 1) {
    const kept = attempt(hint.columns);
    if (kept >= best! * (1 - HINT_FIT_SLACK)) bestColumns = hint.columns;
  }
  // The nodes go in for the winner only.
  return layoutAt(groups, bestColumns, pane, pinnedBoxes, hint);
}

/** The groups packed on shelves `columns` cells wide, nodes and all. */
function layoutAt(groups: readonly Group[], columns: number, pane: Pane, pinnedBoxes: readonly Box[], hint: LayoutHint | null): Layout {
  const out: Layout = {
    positions: {},
    sizes: {},
    regionOf: {},
    regions: [],
    fitZoom: 0,
    hint: { size: "full", columns, regions: {}, fresh: null },
  };
  const width = 2 * REGION_PAD + columns * CELL_WIDTH - GAP_X;
  const boxes = pack(groups, width, pane.width / pane.height, pinnedBoxes, hint, out);
  out.fitZoom = zoomToFit([...boxes, ...pinnedBoxes], pane);
  return out;
}

function projectLabel(host: string, project: string | null): { label: string; path: string | null } {
  const name = project == null ? "No folder" : (lastFolder(project) ?? project);
  return {
    label: host === LOCAL_HOST ? name : `${host} · ${name}`,
    path: project == null ? null : shortenHome(project),
  };
}

/**
 * Lay out `items` (in arrival order). `pinned` positions (dragged by the user) win: those nodes
 * stay where they are and the grid skips the cells they cover.
 */
export function layoutCanvas(
  items: readonly LayoutItem[],
  pinned: Readonly<Record<string, XY>>,
  pane: Pane,
  options: LayoutOptions = {},
): Layout {
  const hint = options.hint ?? null;
  const usable = pane.width > 0 && pane.height > 0 ? pane : DEFAULT_PANE;
  const arrival = new Map(items.map((item, i) => [item.id, i]));
  const byArrival = (a: LayoutItem, b: LayoutItem) => arrival.get(a.id)! - arrival.get(b.id)!;
  const byPlace = (a: LayoutItem, b: LayoutItem) => (a.place ?? 0) - (b.place ?? 0);
  // A sort the user chose orders each project's region; the lane keeps blocked before waiting
  // and sorts within that. Regions keep their places either way: only nodes move inside them.
  const byNeed = (a: LayoutItem, b: LayoutItem) => a.rank - b.rank || byPlace(a, b) || byArrival(a, b);
  const bySort = (a: LayoutItem, b: LayoutItem) => byPlace(a, b) || a.rank - b.rank || byArrival(a, b);
  // Stable: ended sessions last (once), else where they arrived.
  const byStay = (a: LayoutItem, b: LayoutItem) =>
    Number(a.rank === RANK_ENDED) - Number(b.rank === RANK_ENDED) || byPlace(a, b) || byArrival(a, b);
  const sorted = items.some((item) => item.place != null);
  const free = items.filter((item) => !pinned[item.id]);

  const lane = free.filter((item) => item.rank <= NEEDS_YOU_RANK).sort(byNeed);
  // A project is a folder on one machine: the region id says both.
  const regionOf = (item: LayoutItem) => projectRegionId(item.host ?? LOCAL_HOST, item.project);
  const needsYouByRegion = new Map<string, number>();
  for (const item of items) {
    if (item.rank <= NEEDS_YOU_RANK) needsYouByRegion.set(regionOf(item), (needsYouByRegion.get(regionOf(item)) ?? 0) + 1);
  }
  type Project = { id: string; host: string; project: string | null; list: LayoutItem[] };
  const projects = new Map<string, Project>();
  for (const item of free) {
    if (item.rank <= NEEDS_YOU_RANK) continue;
    const id = regionOf(item);
    const known = projects.get(id);
    if (known) known.list.push(item);
    else projects.set(id, { id, host: item.host ?? LOCAL_HOST, project: item.project, list: [item] });
  }
  // One machine's projects stay together (this one first, then the remotes by name). Projects
  // keep their place (first arrival first), so a status change moves a node inside its region,
  // never the regions; a project whose sessions all ended goes last among its machine's.
  const allEnded = (list: LayoutItem[]) => list.every((item) => item.rank === RANK_ENDED);
  const projectOrder = [...projects.values()].sort(
    (a, b) =>
      compareHosts(a.host, b.host) ||
      Number(allEnded(a.list)) - Number(allEnded(b.list)) ||
      arrival.get(a.list[0]!.id)! - arrival.get(b.list[0]!.id)!,
  );

  // Cells kept from the last layout (a crowded board in its own order; see `slotted`).
  const slotsKept = options.stableOrder && !sorted;
  const cellsOf = (id: string, list: LayoutItem[], from: LayoutHint | null) =>
    slotsKept ? { cells: slotted(list, from?.regions[id]?.slots) } : {};
  const groupsAt = (rest: NodeSize, from: LayoutHint | null): Group[] => {
    const groups: Group[] = [];
    if (lane.length > 0) {
      groups.push({
        region: { id: "needs-you", kind: "needs-you", label: "Needs you", path: null, count: lane.length, needsYou: 0 },
        items: lane,
        ...cellsOf("needs-you", lane, from),
        size: "full",
      });
    }
    for (const { id, host, project, list } of projectOrder) {
      groups.push({
        region: {
          id,
          kind: "project",
          ...projectLabel(host, project),
          count: list.length,
          needsYou: needsYouByRegion.get(id) ?? 0,
        },
        ...(() => {
          const ordered = [...list].sort(options.stableOrder ? byStay : sorted ? bySort : byNeed);
          return { items: ordered, ...cellsOf(id, ordered, from) };
        })(),
        size: rest,
      });
    }
    return groups;
  };

  const pinnedSize = (item: LayoutItem, rest: NodeSize): NodeSize => (item.rank <= NEEDS_YOU_RANK ? "full" : rest);
  const attempt = (rest: NodeSize): Layout => {
    const pinnedItems = items.filter((item) => pinned[item.id]);
    const pinnedBoxes = pinnedItems.map((item) => ({ ...pinned[item.id]!, ...sizeOf(pinnedSize(item, rest)) }));
    // The last layout's shape while it fits nearly as well as a fresh one (a hint for one size of
    // node means nothing for the other).
    const usableHint = hint?.size === rest ? hint : null;
    const keeps = (layout: Layout, fitZoom: number) => layout.fitZoom >= fitZoom * (1 - HINT_FIT_SLACK);
    let layout: Layout | null = null;
    let fresh = usableHint?.fresh ?? null;
    // About as many sessions as the last fresh layout had: the hint's shape alone, if it fits.
    if (usableHint && fresh && fresh.uses < FRESH_USES && Math.abs(items.length - fresh.count) <= Math.max(2, fresh.count / 10)) {
      const held = layoutAt(groupsAt(rest, usableHint), usableHint.columns, usable, pinnedBoxes, usableHint);
      if (keeps(held, fresh.fitZoom)) {
        layout = held;
        fresh = { ...fresh, uses: fresh.uses + 1 };
      }
    }
    if (!layout) {
      const best = bestPacking(groupsAt(rest, null), usable, pinnedBoxes, null);
      fresh = { fitZoom: best.fitZoom, count: items.length, uses: 0 };
      const held = usableHint ? bestPacking(groupsAt(rest, usableHint), usable, pinnedBoxes, usableHint) : null;
      layout = held && keeps(held, best.fitZoom) ? held : best;
    }
    layout.hint.size = rest;
    layout.hint.fresh = fresh;
    for (const item of pinnedItems) {
      layout.positions[item.id] = { ...pinned[item.id]! };
      layout.sizes[item.id] = pinnedSize(item, rest);
    }
    return layout;
  };

  // Every session a full card while fit-view can show them at a readable size; else the ones
  // that can wait become strips, and only the "Needs you" lane keeps full cards.
  // (Too many full cards to fit the pane at that zoom even packed edge to edge: skip the try.)
  const fullArea = items.length * CELL_WIDTH * CELL_HEIGHT * ZOOM_COMPACT ** 2;
  if (fullArea <= usable.width * usable.height) {
    const roomy = attempt("full");
    if (roomy.fitZoom / (1 + 2 * FIT_PADDING) >= ZOOM_COMPACT) return roomy;
  }
  return attempt("strip");
}
