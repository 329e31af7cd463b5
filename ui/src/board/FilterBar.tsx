import "./FilterBar.css";
import { useEffect, useRef, type KeyboardEvent } from "react";
import { useSwitchboard } from "../state/store";
import { isFiltering } from "../shared/filter";
import { BranchIcon, SearchIcon, CloseIcon } from "../shared/icons";
import { SORTS, type SortBy } from "../shared/usage";

const CATEGORY_WORDS = { needs: "need you", working: "working", done: "done" } as const;

/**
 * The quick filter (Ctrl+K or `/`): sessions that do not match fade back. Enter brings the
 * matches into view and selects the first; Escape empties and closes it. Beside it a branch
 * field (git branch contains) and the sort: what orders the nodes inside each region — the
 * default (what needs you first), cost, context used or memory. The regions themselves keep
 * their places. While a sort is on, a closed bar leaves a small "Sorted by cost" pill, so the
 * order is never a mystery.
 */
export function FilterBar() {
  const open = useSwitchboard((s) => s.filterOpen);
  const filter = useSwitchboard((s) => s.filter);
  const matched = useSwitchboard((s) => s.matches?.size ?? 0);
  const total = useSwitchboard((s) => s.order.length);
  const sort = useSwitchboard((s) => s.sort);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  if (!open && !isFiltering(filter) && sort === "default") return null;
  const store = useSwitchboard.getState;
  const sortWord = SORTS.find((s) => s.by === sort)?.label.toLowerCase() ?? sort;
  if (!open && !isFiltering(filter)) {
    // Only a sort is on: a small pill says so (and undoes it) without covering the board.
    return (
      <div className="filter-bar is-sort-only" role="search" data-testid="filter-bar">
        <button
          type="button"
          className="filter-sort-pill"
          data-testid="filter-sort-pill"
          title="Change the sort or filter (/)"
          onClick={() => store().setFilterOpen(true)}
        >
          Sorted by {sortWord}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Clear the sort"
          title="Back to what needs you first"
          onClick={() => store().setSort("default")}
        >
          <CloseIcon />
        </button>
      </div>
    );
  }
  // Escape in any field of the bar: empty it and close it (a sort stays until it is undone).
  const onEscape = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    store().clearFilter();
    (event.target as HTMLElement).blur();
  };
  return (
    <div className="filter-bar" role="search" data-testid="filter-bar">
      <SearchIcon className="filter-icon" />
      {filter.category && (
        <button
          type="button"
          className="filter-chip"
          data-testid="filter-category"
          title="Show every state"
          onClick={() => store().toggleCategory(filter.category!)}
        >
          {CATEGORY_WORDS[filter.category]} <CloseIcon />
        </button>
      )}
      <input
        ref={input}
        className="filter-input"
        data-testid="filter-input"
        type="search"
        placeholder="Filter by title, project, agent or status"
        aria-label="Filter sessions"
        value={filter.text}
        onFocus={() => store().setFilterOpen(true)}
        onChange={(event) => store().setFilterText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            store().clearFilter();
            input.current?.blur();
          } else if (event.key === "Enter") {
            event.preventDefault();
            store().showFilterMatches();
            input.current?.blur();
          }
        }}
      />
      <label className="filter-branch" title="Only sessions whose git branch contains this">
        <BranchIcon />
        <input
          className="filter-branch-input"
          data-testid="filter-branch"
          type="search"
          placeholder="branch"
          aria-label="Filter by git branch"
          value={filter.branch ?? ""}
          onFocus={() => store().setFilterOpen(true)}
          onChange={(event) => store().setFilterBranch(event.target.value)}
          onKeyDown={(event) => {
            onEscape(event);
            if (event.key === "Enter") {
              event.preventDefault();
              store().showFilterMatches();
              event.currentTarget.blur();
            }
          }}
        />
      </label>
      <label className={sort === "default" ? "filter-sort" : "filter-sort is-on"} title="What orders the sessions inside each region">
        <span className="filter-sort-word">Sort</span>
        <select
          className="filter-sort-select"
          data-testid="filter-sort"
          aria-label="Sort sessions"
          value={sort}
          onFocus={() => store().setFilterOpen(true)}
          onChange={(event) => store().setSort(event.target.value as SortBy)}
          onKeyDown={onEscape}
        >
          {SORTS.map(({ by, label }) => (
            <option key={by} value={by}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {isFiltering(filter) && (
        <span className="filter-count" data-testid="filter-count">
          {matched} of {total}
        </span>
      )}
      <button
        type="button"
        className="icon-button"
        aria-label="Clear the filter"
        title={sort === "default" ? "Clear the filter (Esc)" : "Clear the filter and the sort"}
        onClick={() => {
          store().clearFilter();
          store().setSort("default");
        }}
      >
        <CloseIcon />
      </button>
    </div>
  );
}
