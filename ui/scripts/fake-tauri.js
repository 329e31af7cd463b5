// A stand-in for the Tauri runtime, for looking at the UI in a plain browser (screenshots,
// manual checks). Served by serve-with-fake.mjs; never imported by src/, never in the bundle.
//   ?empty        no sessions (the empty state)
//   ?failinstall  install_hooks rejects
//   ?focus=ID     a notification click for session ID, shortly after start (opens its details)
//   ?older        opens the Older drawer;  ?pick=ID  also picks that Older session
//   ?allolder     every session is archived (the quiet empty state)
//   ?arrive       starts empty; the sessions arrive a moment later (the canvas fits to them)
//   ?many=N       N generated sessions instead (default 100) over ?projects=P projects (default
//                 12), a fixed mix of states, the same every time
//   ?connections  opens the Connections drawer;  ?doctorok  every doctor check passes
(() => {
  const params = new URLSearchParams(location.search);
  const now = Date.now();
  const min = 60_000;
  const base = {
    kind: "session",
    tool: null,
    title: null,
    cwd: null,
    awaitingInput: false,
    question: null,
    message: null,
    interrupted: false,
    errored: false,
    ended: false,
    unread: false,
    subagents: 0,
    statusChangedAt: null,
    transcriptPath: null,
    stale: false,
    restored: false,
    archived: false,
    position: null,
    process: null,
    exited: false,
  };
  // What Rust stamps as `boardRank` (core/src/view.rs `board_rank`).
  const rank = (x) =>
    x.ended ? 6 : x.status === "blocked" ? 0 : x.status === "waiting" ? 1 : x.status === "working" ? 3
      : x.status === "done" ? (x.errored ? 1 : x.unread ? 2 : 5) : x.unread ? 2 : 4;
  const s = (id, agent, firstMinAgo, lastMinAgo, fields) => {
    const made = {
      ...base,
      sessionId: id,
      agent,
      firstEventAt: now - firstMinAgo * min,
      lastEventAt: now - lastMinAgo * min,
      statusChangedAt: now - lastMinAgo * min,
      ...fields,
    };
    return { ...made, boardRank: rank(made) };
  };
  const long = "Here is the full log summary. ".repeat(2100); // ~60 KB
  const hour = 60;
  const day = 24 * hour;

  const sessions = params.has("empty")
    ? []
    : [
        s("c1a2b3c4-blocked", "claude", 95, 2, {
          status: "blocked", title: "auth-refactor", cwd: "/home/maya/src/webapp",
          tool: "Bash", message: "rm -rf dist && npm run build", unread: true, subagents: 2,
        }),
        s("x9f8e7d6-waiting", "codex", 80, 4, {
          status: "waiting", title: "Pick a database for sessions", cwd: "/home/maya/src/switchboard",
          awaitingInput: true, unread: true,
          question: "Should the session store use SQLite or Postgres? SQLite keeps it embedded; Postgres matches production.",
        }),
        s("a1b2c3d4-working", "claude", 70, 0.2, {
          status: "working", title: "Migrate CI to GitHub Actions", cwd: "/home/maya/src/webapp", tool: "Edit",
        }),
        s("g5h6i7j8-working", "gemini", 60, 1, {
          status: "working", cwd: "/Users/maya/work/infra-terraform", tool: "run_shell_command", subagents: 1,
        }),
        s("d0n3d0n3-unread", "claude", 55, 3, {
          status: "done", title: "Fix flaky login test", cwd: "/home/maya/src/webapp", unread: true,
          message: "Fixed the race in LoginForm.test.tsx by awaiting the redirect before asserting. All 214 tests pass locally.",
        }),
        s("p4g1n4t3-done", "codex", 50, 12, {
          status: "done", title: "Add pagination to /api/orders", cwd: "/home/maya/src/shop-api",
          message: "Added cursor-based pagination with a default page size of 50 and updated the OpenAPI spec.",
        }),
        s("e4r4r0r0-errored", "gemini", 45, 6, {
          status: "done", errored: true, title: "Generate API client", cwd: "/home/maya/src/shop-api",
          message: "API error 429: quota exceeded for gemini-2.5-pro. Retry after 60 s.",
        }),
        s("i7t3r7pt-interrupted", "claude", 40, 9, {
          status: "done", interrupted: true, title: "Rename UserService", cwd: "/home/maya/src/webapp",
        }),
        s("n3wn3wn3-starting", "claude", 0.1, 0.1, { status: null, cwd: "/home/maya/src/notes" }),
        s("3nd3d3nd-ended", "codex", 200, 150, {
          status: "done", ended: true, title: "Bump dependencies", cwd: "/home/maya/src/shop-api",
          message: "Bumped 14 packages; no breaking changes.",
        }),
        s("41d3r41d-custom", "aider", 30, 0.5, {
          status: "working", title: "docs: rewrite README", cwd: "/opt/projects/handbook",
        }),
        s("l0ng10ng-long", "claude", 25, 7, {
          status: "done", title: "Summarize the nightly logs", cwd: "/home/maya/ops", unread: true, message: long,
        }),
        s("st4l3st4-stale", "codex", 20, 14, {
          status: "working", title: "Long migration run", cwd: "/home/maya/src/warehouse", stale: true, tool: "shell",
        }),
        // Loaded from the database at start-up, not heard from since.
        s("r3st0r3d-restored", "claude", 6 * hour, 3 * hour, {
          status: "done", title: "Tidy the release notes", cwd: "/home/maya/src/webapp", restored: true,
          message: "Grouped the 0.9 changes by area and linked each PR.",
        }),
        // Silent for a day or more: off the canvas, in the Older list.
        s("0ld0ld01-archived", "claude", 3 * day, 2 * day, {
          status: "done", title: "Spike: websocket transport", cwd: "/home/maya/src/switchboard", archived: true,
          restored: true, message: "Prototype works; latency is 4 ms p50 on loopback.",
        }),
        s("0ld0ld02-archived", "codex", 2 * day, 30 * hour, {
          status: "waiting", title: "Choose a chart library", cwd: "/home/maya/src/dashboard", archived: true,
          restored: true, awaitingInput: true, question: "Recharts or visx?",
        }),
        s("0ld0ld03-archived", "gemini", 9 * day, 8 * day, {
          status: "done", ended: true, title: "Translate onboarding copy", cwd: "/home/maya/src/webapp", archived: true,
          restored: true, message: "Added de, fr and es strings.",
        }),
      ].map((x) => (params.has("allolder") ? { ...x, archived: true } : x));

  // ?many: a crowd of sessions, deterministic (no Math.random), for the "hundred agents" views.
  if (params.has("many")) {
    const count = Number(params.get("many")) || 100;
    const projectCount = Number(params.get("projects")) || 12;
    const names = ["webapp", "switchboard", "billing", "dashboard", "mobile", "infra", "docs-site", "search",
      "payments", "auth-service", "data-pipeline", "design-system", "cli", "notifier", "importer", "gateway"];
    const tasks = ["Fix flaky login test", "Migrate to Vite 7", "Add CSV export", "Refactor the cache layer",
      "Bump dependencies", "Write the release notes", "Speed up cold start", "Port the charts to SVG",
      "Add retry to the uploader", "Clean up feature flags", "Investigate memory leak", "Add dark mode",
      "Rename the API fields", "Paginate the audit log", "Harden the webhook handler", "Split the monolith module",
      "Translate the settings page", "Add an index on orders", "Review the auth flow", "Trim the Docker image"];
    const agents = ["claude", "codex", "gemini"];
    // Roughly: 1 in 6 needs you, a third working, a third done, a few ended.
    const mix = ["working", "done", "working", "blocked", "done", "working", "waiting", "done", "working",
      "done", "working", "done"];
    sessions.splice(0, sessions.length);
    for (let i = 0; i < count; i++) {
      const project = names[(i * 7) % projectCount % names.length];
      const status = i % 17 === 16 ? "done" : mix[i % mix.length];
      const sub = i % 5 === 3 ? "/packages/core" : "";
      sessions.push(s(`many-${String(i).padStart(3, "0")}`, agents[i % 3], 200 - i, (i * 13) % 40 + 0.2, {
        status,
        title: `${tasks[(i * 3) % tasks.length]}${i >= tasks.length ? ` #${i}` : ""}`,
        cwd: `/home/maya/src/${project}${sub}`,
        ended: i % 17 === 16,
        unread: status === "blocked" || status === "waiting" || (status === "done" && i % 3 === 0),
        tool: status === "blocked" ? "Bash" : status === "working" ? "Edit" : null,
        message: status === "blocked" ? "npm run migrate -- --force" : status === "done" ? "All tests pass." : null,
        question: status === "waiting" ? "Keep the old endpoint as a redirect, or remove it?" : null,
        awaitingInput: status === "waiting",
      }));
    }
  }

  // Recent status changes per session, oldest first (newest last), like session_history.
  function historyOf(x) {
    const span = Math.max(x.lastEventAt - x.firstEventAt, 4 * min);
    const at = (f) => Math.round(x.firstEventAt + span * f);
    const e = (f, status, fields = {}) => ({
      at: at(f), status, tool: null, question: null, message: null, interrupted: false, errored: false, ...fields,
    });
    const last = e(1, x.status ?? "working", {
      tool: x.tool, question: x.question, message: x.message, interrupted: x.interrupted, errored: x.errored,
    });
    if (x.status == null) return [];
    if (x.sessionId === "c1a2b3c4-blocked") {
      return [
        e(0, "working", { tool: "Read" }),
        e(0.2, "blocked", { tool: "Bash", message: "npm test -- --run" }),
        e(0.25, "working", { tool: "Bash" }),
        e(0.45, "done", { message: "Split AuthService into TokenStore and SessionGuard; 41 tests pass." }),
        e(0.6, "working", { tool: "Edit" }),
        e(0.8, "waiting", { question: "Keep the old /login route as a redirect, or remove it?" }),
        e(0.85, "working", { tool: "Edit" }),
        last,
      ];
    }
    return [
      e(0, "working", { tool: "Read" }),
      e(0.3, "done", { message: "Looked around; here is the plan: 1. tests 2. fix 3. docs." }),
      e(0.5, "working", { tool: "Edit" }),
      e(0.7, "done", { interrupted: true }),
      e(0.8, "working", { tool: x.tool ?? "Bash" }),
      last,
    ];
  }

  // What the `doctor` command reports: Claude connected, Codex untrusted, Gemini not installed.
  function doctorReport() {
    const ok = params.has("doctorok");
    const check = (id, label, outcome, detail, fix = null) => ({ id, label, outcome, detail, fix });
    return {
      ok,
      agents: [
        {
          agent: "claude", name: "Claude Code", found: true, path: "/home/maya/.local/bin/claude", version: "2.1.332",
          checks: [
            check("claude.path", "On PATH", "pass", "/home/maya/.local/bin/claude 2.1.332"),
            check("claude.hooks", "Hooks installed", "pass", "for every event, in /home/maya/.claude/settings.json"),
            check("claude.enabled", "Hooks switched on", "pass", "no setting turns them off"),
          ],
        },
        {
          agent: "codex", name: "Codex CLI", found: true, path: "/usr/local/bin/codex", version: "0.171.0",
          checks: [
            check("codex.path", "On PATH", "pass", "/usr/local/bin/codex 0.171.0"),
            check("codex.hooks", "Hooks installed", "pass", "for every event, in /home/maya/.codex/hooks.json"),
            check("codex.enabled", "Hooks switched on", "pass", "no setting turns them off"),
            ok
              ? check("codex.trust", "Hooks trusted", "pass", "Codex trusts all 14 of Switchboard's hooks")
              : check("codex.trust", "Hooks trusted", "fail",
                  "Codex skips untrusted hooks: not trusted yet: SessionStart, SessionEnd, PreToolUse, PostToolUse",
                  'run codex and choose "Trust all and continue" when it says hooks need review (or trust them in /hooks)'),
          ],
        },
        {
          agent: "gemini", name: "Gemini CLI", found: false, path: null, version: null,
          checks: [
            check("gemini.path", "On PATH", "skip", "not installed: no `gemini` on PATH and no /home/maya/.gemini",
              "npm install -g @google/gemini-cli"),
          ],
        },
      ],
      switchboard: [
        check("switchboard.running", "Switchboard running", "pass", "pid 4242, port 41873, state in /home/maya/.local/share/dev.switchboard.app"),
        check("switchboard.roundTrip", "Test event", "pass", "sent with `switchboard hook custom`, seen in 3 ms"),
      ],
    };
  }

  const arriving = params.has("arrive") ? sessions.splice(0) : [];
  const byId = new Map(sessions.map((x) => [x.sessionId, x]));
  const callbacks = new Map();
  const listeners = new Map(); // event name -> callback ids
  let nextId = 1;
  const calls = []; // every command the UI invoked, for checks from the console

  function emit(event, payload) {
    for (const id of listeners.get(event) ?? []) callbacks.get(id)?.({ event, id, payload });
  }

  const later = (fn) => setTimeout(fn, 30);

  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener() {} };
  window.__TAURI_INTERNALS__ = {
    transformCallback(callback, once) {
      const id = nextId++;
      callbacks.set(id, (arg) => {
        if (once) callbacks.delete(id);
        callback(arg);
      });
      return id;
    },
    unregisterCallback(id) {
      callbacks.delete(id);
    },
    async invoke(cmd, args) {
      if (!cmd.startsWith("plugin:")) calls.push([cmd, args]);
      switch (cmd) {
        case "snapshot":
          return { sessions: [...byId.values()] };
        case "plugin:event|listen": {
          const ids = listeners.get(args.event) ?? [];
          ids.push(args.handler);
          listeners.set(args.event, ids);
          return args.handler;
        }
        case "plugin:event|unlisten":
          return null;
        case "clear_unread": {
          const x = byId.get(args.sessionId);
          if (x && x.unread) {
            const next = { ...x, unread: false };
            byId.set(x.sessionId, next);
            later(() => emit("sessions-changed", { changed: [next], removed: [] }));
          }
          return null;
        }
        case "set_position": {
          const x = byId.get(args.sessionId);
          if (!x) throw { kind: "unknownSession", message: `no session ${args.sessionId}` };
          if (!Number.isInteger(args.x) || !Number.isInteger(args.y)) {
            throw { kind: "invalid", message: "set_position wants whole numbers" };
          }
          const next = { ...x, position: { x: args.x, y: args.y } };
          byId.set(x.sessionId, next);
          later(() => emit("sessions-changed", { changed: [next], removed: [] }));
          return null;
        }
        case "session_history": {
          const x = byId.get(args.sessionId);
          return x ? historyOf(x) : [];
        }
        case "remove_ended": {
          const ended = [...byId.values()].filter((x) => x.ended).map((x) => x.sessionId);
          for (const id of ended) byId.delete(id);
          if (ended.length) later(() => emit("sessions-changed", { changed: [], removed: ended }));
          return ended.length;
        }
        case "remove_session":
          byId.delete(args.sessionId);
          later(() => emit("sessions-changed", { changed: [], removed: [args.sessionId] }));
          return null;
        case "doctor":
          return doctorReport();
        case "install_hooks":
          if (params.has("failinstall")) {
            throw { kind: "parse", message: "~/.codex/hooks.json is not valid JSON (line 3); nothing was changed." };
          }
          return "Claude Code: 9 hooks added to ~/.claude/settings.json\nCodex: 6 hooks added to ~/.codex/hooks.json (run /hooks in Codex to trust them)\nGemini CLI: 7 hooks added to ~/.gemini/settings.json";
        default:
          throw { kind: "unknown_command", message: `fake runtime has no ${cmd}` };
      }
    },
  };
  if (arriving.length) {
    setTimeout(() => {
      for (const x of arriving) byId.set(x.sessionId, x);
      emit("sessions-changed", { changed: arriving.slice(0, 1), removed: [] });
    }, 700);
    setTimeout(() => emit("sessions-changed", { changed: arriving.slice(1), removed: [] }), 1000);
  }
  if (params.has("focus")) setTimeout(() => emit("focus-session", params.get("focus")), 600);
  // Screenshot helpers: click what a user would click (the app itself has no such switches).
  const click = (selector) => document.querySelector(selector)?.click();
  if (params.has("older") || params.has("pick")) setTimeout(() => click('[data-testid="older-toggle"]'), 500);
  if (params.has("connections")) setTimeout(() => click('[data-testid="connections-toggle"]'), 500);
  if (params.has("pick")) setTimeout(() => click(`[data-testid="older-item"][data-session-id="${params.get("pick")}"]`), 800);
  // For poking at it from the console: __fake.emit("focus-session", "x9f8e7d6-waiting")
  window.__fake = { emit, sessions: byId, calls };
})();
