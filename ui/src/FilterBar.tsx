import { useEffect, useRef } from "react";
import { useSwitchboard } from "./store";
import { isFiltering } from "./filter";
import { SearchIcon, CloseIcon } from "./icons";

const CATEGORY_WORDS = { needs: "need you", working: "working", done: "done" } as const;

/**
 * The quick filter (Ctrl+K or `/`): sessions that do not match fade back. Enter brings the
 * matches into view and selects the first; Escape empties and closes it.
 */
export function FilterBar() {
  const open = useSwitchboard((s) => s.filterOpen);
  const filter = useSwitchboard((s) => s.filter);
  const matched = useSwitchboard((s) => s.matches?.size ?? 0);
  const total = useSwitchboard((s) => s.order.length);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  if (!open && !isFiltering(filter)) return null;
  const store = useSwitchboard.getState;
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
      {isFiltering(filter) && (
        <span className="filter-count" data-testid="filter-count">
          {matched} of {total}
        </span>
      )}
      <button
        type="button"
        className="icon-button"
        aria-label="Clear the filter"
        title="Clear the filter (Esc)"
        onClick={() => store().clearFilter()}
      >
        <CloseIcon />
      </button>
    </div>
  );
}
