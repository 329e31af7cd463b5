// Switchboard's bridge for OpenCode (switchboard-bridge 1). Written by `switchboard install
// opencode`; removed by `switchboard install opencode --uninstall`. Edits here are overwritten by
// the next install.
//
// OpenCode runs no hook commands, so this plugin does what Claude Code's hooks do: on each event
// named in switchboard-hooks.json (beside this folder) it runs that event's commands with the
// event as JSON on stdin, one after another in OpenCode's order, never holding OpenCode up. A
// `permission.asked` command may answer for the Switchboard board while OpenCode's own dialog is
// open: {"behavior":"allow"} replies "once", {"behavior":"deny","message":…} rejects with that
// message — the same reply as the dialog's, through OpenCode's own server; whichever comes first wins.
// A question goes to the same command as a permission of the tool `question`: an allow that
// carries `updatedInput.answers` (an answer per question's text) is its reply, through the same
// server (`/question/{id}/reply`); an answer given in OpenCode first ends the wait.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

function configDir() {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "opencode");
}

function loadHooks() {
  try {
    const config = JSON.parse(readFileSync(join(configDir(), "switchboard-hooks.json"), "utf8"));
    const hooks = config && typeof config.hooks === "object" && config.hooks ? config.hooks : {};
    const valid = {};
    for (const [event, entries] of Object.entries(hooks)) {
      if (Array.isArray(entries)) valid[event] = entries.filter((e) => e && typeof e.command === "string");
    }
    return valid;
  } catch {
    return {};
  }
}

/** Runs one command with `input` on stdin; resolves with its stdout ("" on any failure). */
function run(entry, input, running) {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    let child;
    try {
      child = spawn(entry.command, { shell: true, stdio: ["pipe", "pipe", "ignore"], windowsHide: true });
    } catch {
      resolve("");
      return;
    }
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running?.delete(stop);
      resolve(out);
    };
    const stop = () => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish();
    };
    running?.add(stop);
    const timer = setTimeout(stop, Math.max(1, entry.timeout ?? 3) * 1000);
    timer.unref?.();
    child.stdout?.on("data", (chunk) => {
      if (out.length < 1 << 20) out += chunk;
    });
    child.on("error", finish);
    child.on("close", finish);
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  });
}

function decision(out) {
  for (const line of out.split("\n").reverse()) {
    try {
      const reply = JSON.parse(line);
      if (reply && typeof reply.behavior === "string") return reply;
    } catch {}
  }
  return {};
}

// Which instance of the bridge speaks for a session. OpenCode may instantiate a plugin twice in
// one process for the same folder: with --port (1.18.33) the first instance never hears an event
// and the second hears them all, so a bridge per folder kept at its first instance put nothing on
// the board. The first instance that hears of a session keeps it; another that also hears of it
// stays silent, so nothing is sent twice.
const speakers = globalThis.__switchboardSpeakers ?? (globalThis.__switchboardSpeakers = new Map());

/** The session an OpenCode event is about (its own id for a session's events). */
function sessionOf(p) {
  return p.sessionID ?? p.part?.sessionID ?? p.info?.sessionID ?? p.info?.id;
}

export const SwitchboardBridge = async ({ client, directory }) => {
  const self = Symbol("bridge");
  const mine = (id) => {
    if (typeof id !== "string" || id === "") return false;
    if (!speakers.has(id)) speakers.set(id, self);
    return speakers.get(id) === self;
  };
  const hooks = loadHooks();
  let queue = Promise.resolve();
  const send = (name, fields, running) => {
    const entries = hooks[name] ?? [];
    if (entries.length === 0) return Promise.resolve("");
    const input = JSON.stringify({ hook_event_name: name, ...fields });
    const sent = queue.then(async () => {
      let out = "";
      for (const entry of entries) out += await run(entry, input, running);
      return out;
    });
    queue = sent.catch(() => "");
    return sent.catch(() => "");
  };

  // What a session's turn has been, for the idle that ends it.
  const sessions = new Map();
  const session = (id) => {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { parent: undefined, cwd: directory, busy: false, error: undefined, said: "" }));
    return s;
  };
  const roles = new Map(); // message id → role
  const holds = new Map(); // permission id → the stops of its running command
  const base = (id) => {
    const s = session(id);
    return s.parent
      ? { session_id: s.parent, subagent_id: id, cwd: s.cwd }
      : { session_id: id, cwd: s.cwd };
  };

  // The reply OpenCode's own dialog gives, through its own server: the route that takes a
  // message with a refusal; else the SDK's older route, which takes the verdict alone.
  const reply = async (p, verdict, message) => {
    const config = client?._client?.getConfig?.();
    if (config?.fetch) {
      const url = String(config.baseUrl ?? "http://opencode.internal").replace(/\/$/, "") + `/permission/${p.id}/reply`;
      const body = JSON.stringify(message ? { reply: verdict, message } : { reply: verdict });
      const sent = await config
        .fetch(new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body }))
        .catch(() => undefined);
      if (sent?.ok) return;
    }
    await client
      ?.postSessionIdPermissionsPermissionId?.({ path: { id: p.sessionID, permissionID: p.id }, body: { response: verdict } })
      ?.catch?.(() => undefined);
  };

  // A question's answers, through OpenCode's own server (what its dialog sends).
  const answerQuestion = async (p, answers) => {
    const config = client?._client?.getConfig?.();
    const body = JSON.stringify({ answers: (p.questions ?? []).map((q) => (q.question in answers ? [String(answers[q.question])] : [])) });
    if (config?.fetch) {
      const url = String(config.baseUrl ?? "http://opencode.internal").replace(/\/$/, "") + `/question/${p.id}/reply`;
      const sent = await config
        .fetch(new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body }))
        .catch(() => undefined);
      if (sent?.ok) return;
    }
    await client?.question?.reply?.({ requestID: p.id, answers: JSON.parse(body).answers })?.catch?.(() => undefined);
  };

  const question = async (p) => {
    const running = new Set();
    holds.set(p.id, running);
    const out = await send(
      "permission.asked",
      { ...base(p.sessionID), tool_name: "question", tool_input: { questions: p.questions ?? [] }, question_id: p.id },
      running,
    );
    const answered = !holds.has(p.id);
    holds.delete(p.id);
    if (answered) return; // answered in OpenCode meanwhile
    const verdict = decision(out);
    const answers = verdict.updatedInput?.answers;
    if (verdict.behavior === "allow" && answers && typeof answers === "object") await answerQuestion(p, answers);
  };

  const permission = async (p) => {
    const running = new Set();
    holds.set(p.id, running);
    const meta = p.metadata ?? {};
    const out = await send(
      "permission.asked",
      {
        ...base(p.sessionID),
        tool_name: p.permission,
        tool_input: { command: meta.command ?? meta.filepath ?? (p.patterns ?? []).join(" "), ...meta },
        permission_id: p.id,
      },
      running,
    );
    const answered = !holds.has(p.id);
    holds.delete(p.id);
    if (answered) return; // answered in OpenCode meanwhile
    const verdict = decision(out);
    if (verdict.behavior === "allow") await reply(p, "once");
    if (verdict.behavior === "deny") await reply(p, "reject", verdict.message || "The user denied this.");
  };

  const event = async ({ event: e }) => {
    const p = e?.properties ?? {};
    if (!mine(sessionOf(p))) return;
    switch (e?.type) {
      case "session.created":
      case "session.updated": {
        const info = p.info ?? {};
        const s = session(info.id ?? p.sessionID);
        s.parent = info.parentID || undefined;
        if (info.directory) s.cwd = info.directory;
        void send(e.type, { ...base(info.id ?? p.sessionID), title: info.title });
        break;
      }
      case "session.status": {
        const s = session(p.sessionID);
        const kind = p.status?.type;
        if (kind === "busy" || kind === "retry") {
          s.busy = true;
          void send("session.status", { ...base(p.sessionID), status: kind, message: p.status?.message, attempt: p.status?.attempt });
        }
        break;
      }
      case "session.error": {
        if (!p.sessionID) break;
        const error = p.error ?? {};
        session(p.sessionID).error = { name: error.name, message: error.data?.message ?? error.name };
        break;
      }
      case "session.idle": {
        const s = session(p.sessionID);
        if (!s.busy) break; // a second idle after an error or an abort
        s.busy = false;
        const error = s.error;
        s.error = undefined;
        void send("session.idle", {
          ...base(p.sessionID),
          interrupted: error?.name === "MessageAbortedError",
          error_name: error && error.name !== "MessageAbortedError" ? error.name : undefined,
          error_message: error && error.name !== "MessageAbortedError" ? error.message : undefined,
          last_assistant_message: s.said,
        });
        break;
      }
      case "message.updated": {
        const info = p.info ?? {};
        if (info.id && info.role) roles.set(info.id, info.role);
        break;
      }
      case "message.part.updated": {
        const part = p.part ?? {};
        if (part.type === "text" && roles.get(part.messageID) === "assistant" && part.time?.end) {
          session(part.sessionID).said = part.text ?? "";
        }
        break;
      }
      case "permission.asked":
        void permission(p);
        break;
      case "permission.replied": {
        const running = holds.get(p.requestID);
        holds.delete(p.requestID);
        running?.forEach((stop) => stop());
        void send(e.type, { ...base(p.sessionID), reply: p.reply });
        break;
      }
      case "question.asked":
        void question(p);
        break;
      case "question.replied":
      case "question.rejected": {
        const running = holds.get(p.requestID);
        holds.delete(p.requestID);
        running?.forEach((stop) => stop());
        void send(e.type, { ...base(p.sessionID) });
        break;
      }
    }
  };

  return {
    event,
    "chat.message": async (input, output) => {
      if (!mine(input?.sessionID)) return;
      const s = session(input.sessionID);
      s.busy = true;
      s.error = undefined;
      s.said = "";
      const prompt = (output?.parts ?? [])
        .filter((part) => part.type === "text" && !part.synthetic)
        .map((part) => part.text)
        .join("\n");
      void send("chat.message", { ...base(input.sessionID), prompt });
    },
    dispose: async () => {
      // OpenCode exits: each of its sessions ends (delivered before it goes).
      for (const id of sessions.keys()) speakers.delete(id);
      await Promise.all(
        [...sessions.entries()]
          .filter(([, s]) => !s.parent)
          .map(([id, s]) => send("dispose", { session_id: id, cwd: s.cwd })),
      );
    },
  };
};
