// Jump to terminal: from the details panel, the node's button and Enter on an open node. Rust
// picks the way (tmux pane, terminal window, or the resume command); the result is told briefly,
// on the node and in the panel, instead of in a dialog to dismiss.
import { createElement, Fragment, type ReactNode } from "react";
import type { Jump } from "../bindings/Jump";
import * as ipc from "./ipc";
import { setNote, type JumpNote } from "../state/jumpNotes";

function plain(lead: string, failed = false): JumpNote {
  return { text: lead, lead, command: null, copied: false, failed, brief: null };
}

/** What a jump did, in words; `copied`: its resume command is on the clipboard. */
export function jumpNote(jump: Jump, copied: boolean): JumpNote {
  switch (jump.how) {
    case "tmux":
      return plain(`Switched tmux to pane ${jump.pane}.`);
    case "window":
      return plain("Brought its terminal window forward.");
    case "tab":
      return plain(`Brought its terminal tab (${jump.tty}) forward.`);
    case "resume": {
      // Only say "copied" when it is: the clipboard can be missing, or refuse (no focus).
      if (copied) {
        const lead = "No terminal to show; copied:";
        return { text: `${lead} ${jump.command}`, lead, command: jump.command, copied, failed: false, brief: null };
      }
      const lead = "No terminal to show, and the clipboard is not available. To resume it, run in a terminal:";
      return {
        text: `${lead} ${jump.command}`,
        lead,
        command: jump.command,
        copied,
        failed: false,
        brief: "No terminal to show; could not copy. Open the card to resume it.",
      };
    }
    case "refused":
      return plain(jump.reason, true);
    case "elsewhere":
      return plain(
        `It runs in a terminal Switchboard cannot bring forward (pid ${jump.pid}${jump.tty ? ` on ${jump.tty}` : ""}).`,
      );
    case "remote": {
      // A new terminal reaches it over ssh; a remote reached by another pipe hands the command over.
      if (jump.opened) return plain(`Opened a terminal on ${jump.host}.`);
      if (copied) {
        const lead = `No terminal to open on ${jump.host}; copied:`;
        return { text: `${lead} ${jump.command}`, lead, command: jump.command, copied, failed: false, brief: null };
      }
      const lead = `No terminal to open on ${jump.host}, and the clipboard is not available. To reach it, run in a terminal:`;
      return {
        text: `${lead} ${jump.command}`,
        lead,
        command: jump.command,
        copied,
        failed: false,
        brief: `No terminal to open on ${jump.host}; could not copy. Open the card for the command.`,
      };
    }
  }
}

/** The command a jump hands over to copy: the resume command, or how to reach a remote's session. */
function commandToCopy(jump: Jump | null): string | null {
  if (jump?.how === "resume") return jump.command;
  if (jump?.how === "remote" && !jump.opened) return jump.command;
  return null;
}

/**
 * Where a line may break in a path or command besides its spaces: before each `/` that follows
 * a name (`/home` + `/ana`), never inside a name. The text cut into those pieces.
 */
export function slashBreaks(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "/" && !" ~/:(\"'=".includes(text[i - 1]!)) {
      parts.push(text.slice(start, i));
      start = i;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** One piece between break opportunities: a word with a `-` is kept whole (`--resume`, a
 * session id), since browsers break after a hyphen. */
function piece(text: string): ReactNode[] {
  return text
    .split(/(\s+)/)
    .map((word) => (word.includes("-") ? createElement("span", { className: "no-break" }, word) : word));
}

/**
 * Text that may hold paths and commands: a line breaks between words or before a `/` (`<wbr>`,
 * copied as nothing), never inside a name.
 */
export function PathText({ text }: { text: string }): ReactNode {
  const parts = slashBreaks(text);
  return createElement(
    Fragment,
    null,
    ...parts.flatMap((part, i) => (i === 0 ? piece(part) : [createElement("wbr"), ...piece(part)])),
  );
}

/** A note's words: the lead, then its command (code), both broken only between names. */
export function JumpNoteText({ note }: { note: JumpNote }): ReactNode {
  return createElement(
    Fragment,
    null,
    createElement("span", { className: "jump-lead" }, createElement(PathText, { text: note.lead })),
    note.command && " ",
    note.command && createElement("code", { className: "jump-command" }, createElement(PathText, { text: note.command })),
  );
}

/**
 * Puts the command `answer` hands over (a resume command, or how to reach a remote's session) on
 * the clipboard; true once it is there. The write starts
 * now, during the click or key: WebKit (the app's web view on Linux and macOS) refuses one begun
 * when the IPC answer arrives, as the user's gesture is over by then, but takes one begun during
 * the gesture whose text comes later. With nothing to copy the clipboard is left as it was.
 */
function copyResumeCommand(answer: Promise<Jump | null>): Promise<boolean> {
  const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
  const command = answer.then((result) => commandToCopy(result) ?? Promise.reject(new Error("no resume command")));
  if (clipboard?.write && typeof ClipboardItem !== "undefined") {
    const blob = command.then((text) => new Blob([text], { type: "text/plain" }));
    blob.catch(() => {}); // the write reports it
    return clipboard.write([new ClipboardItem({ "text/plain": blob })]).then(
      () => true,
      () => false,
    );
  }
  if (!clipboard?.writeText) {
    command.catch(() => {});
    return Promise.resolve(false);
  }
  return command.then((text) => clipboard.writeText(text)).then(
    () => true,
    () => false,
  );
}

/** Brings the session's terminal forward (or copies its resume command) and notes the result. */
export async function jump(sessionId: string): Promise<void> {
  const answer = ipc.jumpToTerminal(sessionId);
  const copying = copyResumeCommand(answer);
  try {
    const result = await answer;
    if (!result) return;
    setNote(sessionId, jumpNote(result, await copying));
  } catch (err) {
    setNote(sessionId, plain(`Could not jump: ${ipc.toIpcError(err).message}`, true));
  }
}
