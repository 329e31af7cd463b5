import type { Check } from "../bindings/Check";
import type { DoctorReport } from "../bindings/DoctorReport";

export function check(id: string, outcome: Check["outcome"], fix: string | null = null, detail = "details"): Check {
  return { id, label: id.split(".")[1] ?? id, outcome, detail, fix };
}

/** Claude connected, Codex installed but untrusted, Gemini missing, Switchboard running. */
export function doctorReport(overrides: Partial<DoctorReport> = {}): DoctorReport {
  return {
    ok: false,
    agents: [
      {
        agent: "claude",
        name: "Claude Code",
        found: true,
        path: "/usr/bin/claude",
        version: "2.1.332",
        checks: [check("claude.path", "pass"), check("claude.hooks", "pass"), check("claude.enabled", "pass")],
      },
      {
        agent: "codex",
        name: "Codex CLI",
        found: true,
        path: "/usr/bin/codex",
        version: "0.171.0",
        checks: [
          check("codex.path", "pass"),
          check("codex.hooks", "fail", "switchboard install codex", "no Switchboard hook in ~/.codex/hooks.json"),
          check("codex.enabled", "pass"),
          check("codex.trust", "skip", null, "no Switchboard hook to trust yet"),
        ],
      },
      {
        agent: "gemini",
        name: "Gemini CLI",
        found: false,
        path: null,
        version: null,
        checks: [check("gemini.path", "skip", "npm install -g @google/gemini-cli", "not installed")],
      },
    ],
    switchboard: [check("switchboard.running", "pass"), check("switchboard.roundTrip", "pass")],
    summary: "1 check failed.",
    ...overrides,
  };
}

/** Every check passes. */
export function healthyReport(): DoctorReport {
  const report = doctorReport({ ok: true, summary: "All checks passed." });
  return {
    ...report,
    agents: report.agents.map((agent) => ({
      ...agent,
      checks: agent.checks.map((c) => ({ ...c, outcome: c.outcome === "fail" ? "pass" : c.outcome, fix: null })),
    })),
  };
}
