// Small inline icons (no icon font, nothing fetched). 16×16 grid, drawn in currentColor.
import { AGENTS } from "../bindings/agents";
import type { ReactNode } from "react";
import type { Tone } from "./status";

type IconProps = { className?: string };

const glyphs: Record<Tone, ReactNode> = {
  working: <path d="M6.3 4.9 11.2 8l-4.9 3.1z" fill="currentColor" stroke="none" />,
  waiting: (
    <>
      <path d="M6 6.3a2 2 0 1 1 2.9 1.8c-.6.3-.9.7-.9 1.3v.5" />
      <circle cx="8" cy="11.9" r=".55" fill="currentColor" />
    </>
  ),
  blocked: (
    <>
      <rect x="5" y="7.4" width="6" height="4.6" rx="1" fill="currentColor" stroke="none" />
      <path d="M6.4 7.4V6.1a1.6 1.6 0 0 1 3.2 0v1.3" />
    </>
  ),
  done: <path d="M4.9 8.3 7 10.4l4.1-4.6" />,
  error: (
    <>
      <path d="M8 4.6v4.3" />
      <circle cx="8" cy="11.4" r=".55" fill="currentColor" />
    </>
  ),
  interrupted: <path d="M6.3 5.3v5.4M9.7 5.3v5.4" />,
  idle: <path d="M5.6 8h4.8" />,
};

/** The status dot: a disc in the tone's colour with the tone's glyph knocked out. */
export function StatusGlyph({ tone, className }: IconProps & { tone: Tone }) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <circle className="status-disc" cx="8" cy="8" r="7.25" />
      <g
        className="status-mark"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {glyphs[tone]}
      </g>
    </svg>
  );
}

export function ClockIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
        <circle cx="8" cy="8" r="6" />
        <path d="M8 4.8V8l2.2 1.4" />
      </g>
    </svg>
  );
}

/** A remote's link is down: a chain broken in two. */
export function LinkDownIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6.6 4.6 7.9 3.3a2.6 2.6 0 0 1 3.7 3.7l-1.3 1.3M9.4 11.4l-1.3 1.3a2.6 2.6 0 0 1-3.7-3.7l1.3-1.3" />
        <path d="M2.6 5.2h1.6M5.2 2.6v1.6M13.4 10.8h-1.6M10.8 13.4v-1.6" />
      </g>
    </svg>
  );
}

/** The Older list: a box of put-away things. */
export function ArchiveIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round">
        <rect x="2.2" y="3" width="11.6" height="3.2" rx="1" />
        <path d="M3.3 6.2v5.8a1 1 0 0 0 1 1h7.4a1 1 0 0 0 1-1V6.2M6.5 8.6h3" />
      </g>
    </svg>
  );
}

/** Connections: a plug. */
export function PlugIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 2.5v3M10 2.5v3M4.2 5.5h7.6v2.2a3.8 3.8 0 0 1-7.6 0zM8 11.5v2" />
      </g>
    </svg>
  );
}

/** Jump to terminal: a terminal window with a prompt. */
export function TerminalIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round">
        <rect x="1.8" y="2.8" width="12.4" height="10.4" rx="2" />
        <path d="m4.8 6.4 2 1.7-2 1.7M8.6 10h2.6" />
      </g>
    </svg>
  );
}

/** New agent: a plus. */
export function PlusIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <path d="M8 3.5v9M3.5 8h9" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}

export function CloseIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <path d="m4.5 4.5 7 7m0-7-7 7" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}

/** The app mark: a switchboard of three jacks, one lit. */
export function LogoMark({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 20 20" width="18" height="18" aria-hidden="true">
      <rect x="1" y="1" width="18" height="18" rx="5" className="logo-plate" />
      <circle cx="6" cy="7" r="1.7" className="logo-jack" />
      <circle cx="10" cy="7" r="1.7" className="logo-jack" />
      <circle cx="14" cy="7" r="1.7" className="logo-jack logo-lit" />
      <path d="M6 7v4.5a2 2 0 0 0 2 2h4a2 2 0 0 0 2-2V7" className="logo-cord" fill="none" />
    </svg>
  );
}

/** The letter that stands for an agent (its row's in Rust's table), else its initial. */
export function agentLetter(agent: string): string {
  const row = AGENTS.find((known) => known.id === agent && known.letter !== "?");
  return row?.letter ?? (agent.slice(0, 1).toUpperCase() || "?");
}

/** Which agent runs a session, as a small lettered tile (its letter, from its row). */
export function AgentMark({ agent, className }: IconProps & { agent: string }) {
  const letter = agentLetter(agent);
  return (
    <svg className={className} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <rect x="0.75" y="0.75" width="14.5" height="14.5" rx="4" fill="none" stroke="currentColor" strokeWidth="1.3" />
      <text x="8" y="11.6" textAnchor="middle" fontSize="10" fontWeight="700" fill="currentColor">
        {letter}
      </text>
    </svg>
  );
}

export function SearchIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
        <circle cx="7" cy="7" r="4.5" />
        <path d="m10.4 10.4 3.4 3.4" />
      </g>
    </svg>
  );
}

/** A git branch: two commits on a line and one off it. */
export function BranchIcon({ className }: IconProps) {
  return (
    <svg className={className} viewBox="0 0 16 16" width="11" height="11" aria-hidden="true">
      <g fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
        <circle cx="5" cy="3.6" r="1.6" />
        <circle cx="5" cy="12.4" r="1.6" />
        <circle cx="11" cy="5.4" r="1.6" />
        <path d="M5 5.2v5.6M11 7c0 2.4-2.2 2.9-5.2 4" />
      </g>
    </svg>
  );
}
