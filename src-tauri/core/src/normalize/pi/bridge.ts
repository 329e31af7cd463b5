// Switchboard's bridge for pi (switchboard-bridge 1). Written by `switchboard install pi`; removed
// by `switchboard install pi --uninstall`. Edits here are overwritten by the next install.
//
// pi runs no hook commands of its own, so this extension does what Claude Code's hooks do: on
// each pi event named in switchboard-hooks.json (beside this folder) it runs that event's
// commands with the event as JSON on stdin. Events go out one after another, in pi's order,
// without holding pi up; only a `tool_call` waits for its command's answer, and only when that
// answer is a decision from the Switchboard board:
//   {"behavior":"deny","message":…} blocks the call, {"behavior":"allow"} lets it run,
//   {"behavior":"ask"} (the board held it and nobody answered) asks here in pi's own dialog.
// Anything else, or no answer at all, leaves pi as it is: it never asks before a tool.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

type Entry = { command: string; timeout?: number };
type Hooks = Record<string, Entry[]>;

function agentDir(): string {
  const moved = process.env.PI_CODING_AGENT_DIR;
  if (moved) return moved === "~" ? homedir() : moved.startsWith("~/") ? join(homedir(), moved.slice(2)) : moved;
  return join(homedir(), ".pi", "agent");
}

function loadHooks(): Hooks {
  try {
    const config = JSON.parse(readFileSync(join(agentDir(), "switchboard-hooks.json"), "utf8"));
    const hooks = config && typeof config.hooks === "object" && config.hooks ? config.hooks : {};
    const valid: Hooks = {};
    for (const [event, entries] of Object.entries(hooks)) {
      if (!Array.isArray(entries)) continue;
      valid[event] = entries.filter((e: any) => e && typeof e.command === "string") as Entry[];
    }
    return valid;
  } catch {
    return {};
  }
}

/** Runs one command with `input` on stdin; resolves with its stdout ("" on any failure). */
function run(entry: Entry, input: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    let child: ReturnType<typeof spawn>;
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
      signal?.removeEventListener("abort", stop);
      resolve(out);
    };
    const stop = () => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish();
    };
    const timer = setTimeout(stop, Math.max(1, entry.timeout ?? 3) * 1000);
    timer.unref?.();
    if (signal?.aborted) return stop();
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout?.on("data", (chunk) => {
      if (out.length < 1 << 20) out += chunk;
    });
    child.on("error", finish);
    child.on("close", finish);
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  });
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part: any) => part && part.type === "text" && typeof part.text === "string")
    .map((part: any) => part.text)
    .join("\n");
}

function lastAssistant(messages: any[]): any {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i--) if (messages[i]?.role === "assistant") return messages[i];
  return undefined;
}

/** What each event adds to the common fields. */
function fields(name: string, event: any): Record<string, unknown> {
  switch (name) {
    case "session_start":
    case "session_shutdown":
      return { reason: event.reason };
    case "input":
      return { prompt: event.text, source: event.source };
    case "tool_execution_start":
      return { tool_name: event.toolName, tool_input: event.args, tool_use_id: event.toolCallId };
    case "tool_call":
      return { tool_name: event.toolName, tool_input: event.input, tool_use_id: event.toolCallId };
    case "tool_execution_end":
      return { tool_name: event.toolName, tool_use_id: event.toolCallId, is_error: !!event.isError };
    case "agent_end": {
      const last = lastAssistant(event.messages);
      return {
        stop_reason: last?.stopReason,
        error_message: last?.errorMessage,
        last_assistant_message: last ? text(last.content) : undefined,
      };
    }
    default:
      return {};
  }
}

function payload(name: string, event: any, ctx: any): string {
  const sessions = ctx.sessionManager;
  const common = {
    hook_event_name: name,
    session_id: sessions.getSessionId(),
    transcript_path: sessions.getSessionFile(),
    session_name: sessions.getSessionName(),
    cwd: ctx.cwd,
  };
  return JSON.stringify({ ...common, ...fields(name, event) });
}

function decision(out: string): { behavior?: string; message?: string } {
  for (const line of out.split("\n").reverse()) {
    try {
      const reply = JSON.parse(line);
      if (reply && typeof reply.behavior === "string") return reply;
    } catch {}
  }
  return {};
}

function summary(event: any): string {
  const input = event.input ?? {};
  const what = input.command ?? input.path ?? input.file_path ?? JSON.stringify(input);
  const line = String(what).replace(/\s+/g, " ").trim();
  return line.length > 200 ? line.slice(0, 199) + "…" : line;
}

export default function (pi: any) {
  const hooks = loadHooks();
  // Every event goes out after the one before it has been delivered, so they arrive in order.
  let queue: Promise<unknown> = Promise.resolve();
  const send = (entries: Entry[], input: string, signal?: AbortSignal): Promise<string> => {
    const sent = queue.then(async () => {
      let out = "";
      for (const entry of entries) out += await run(entry, input, signal);
      return out;
    });
    queue = sent.catch(() => "");
    return sent.catch(() => "");
  };

  for (const [name, entries] of Object.entries(hooks)) {
    if (entries.length === 0) continue;
    if (name === "tool_call") {
      pi.on("tool_call", async (event: any, ctx: any) => {
        const out = await send(entries, payload(name, event, ctx), ctx.signal);
        if (ctx.signal?.aborted) return { block: true, reason: "Interrupted by the user." };
        const reply = decision(out);
        if (reply.behavior === "deny") return { block: true, reason: reply.message || "The user denied this." };
        if (reply.behavior !== "ask") return undefined;
        if (!ctx.hasUI) return { block: true, reason: "Nobody answered this permission on Switchboard." };
        const choice = await ctx.ui.select(`Allow ${event.toolName}: ${summary(event)}`, ["Allow", "Deny"], {
          signal: ctx.signal,
        });
        return choice === "Allow" ? undefined : { block: true, reason: "The user denied this." };
      });
    } else {
      pi.on(name, (event: any, ctx: any) => {
        const sent = send(entries, payload(name, event, ctx));
        // pi may exit right after its shutdown event: that one is delivered before it does.
        return name === "session_shutdown" ? sent.then(() => undefined) : undefined;
      });
    }
  }
}
