// Reach in the Connections panel (issue 25): how a session that needs you finds you away from
// the board — a short tone here, quiet hours, and push to an ntfy topic or a webhook. Rust sends
// the pushes (src-tauri/engine/src/instance/outputs/push.rs); the tone is the web view's own. All of it is
// off until turned on, and a push carries the session's words only with its privacy switch on.
import "./Reach.css";
import { useEffect, useState } from "react";
import type { AgentStatus } from "../bindings/AgentStatus";
import type { PushChannel } from "../bindings/PushChannel";
import type { PushKind } from "../bindings/PushKind";
import type { PushOutcome } from "../bindings/PushOutcome";
import type { QuietHours } from "../bindings/QuietHours";
import { STATUS_BADGES } from "../bindings/view";
import type { Reach } from "../bindings/Reach";
import type { SavedSettings } from "../state/settings";
import * as ipc from "../shared/ipc";
import { PhoneAnswers } from "./ReachPhone";

/** The statuses a tone can be chosen for, in the words the board's badges use for them. */
export const SOUND_STATUSES: { status: AgentStatus; label: string }[] = (["blocked", "waiting", "done"] as const).map(
  (status) => ({ status, label: STATUS_BADGES[status].word }),
);

/** Why a push URL cannot be used, or `null` when it can: Rust's check and its sentence. */
export async function urlProblem(url: string): Promise<string | null> {
  return ipc.pushUrlProblem(url.trim());
}

/** `HH:MM` as minutes since midnight, or `null`. */
export function minuteOfDay(text: string): number | null {
  const match = /^(\d{1,2}):(\d{1,2})$/.exec(text.trim());
  if (!match) return null;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  return hours < 24 && minutes < 60 ? hours * 60 + minutes : null;
}


let context: AudioContext | null = null;

/** A short two-note tone made on the spot (no sound file). */
export function playTone(): void {
  const Context = globalThis.AudioContext;
  if (!Context) return;
  try {
    context ??= new Context();
    const ctx = context;
    if (ctx.state === "suspended") void ctx.resume();
    const start = ctx.currentTime;
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.18, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.32);
    gain.connect(ctx.destination);
    for (const [frequency, at] of [
      [880, 0],
      [1175, 0.12],
    ] as const) {
      const tone = ctx.createOscillator();
      tone.type = "sine";
      tone.frequency.setValueAtTime(frequency, start + at);
      tone.connect(gain);
      tone.start(start + at);
      tone.stop(start + at + 0.2);
    }
  } catch (err) {
    console.warn("cannot play the tone", err);
  }
}

/** For tests: forget the audio context, so a new mock is used. */
export function resetTone(): void {
  context = null;
}

/**
 * Plays the tone when Rust says one is due (`chime`: a session newly needs you in a status chosen
 * for a tone, outside quiet hours — decided once, in Rust). Mounted once, by the app.
 */
export function useReachSound(): void {
  useEffect(() => {
    let live = true;
    let unlisten: (() => void) | null = null;
    void ipc.onChime(() => playTone()).then((stop) => {
      if (live) unlisten = stop;
      else stop();
    });
    return () => {
      live = false;
      unlisten?.();
    };
  }, []);
}

type TestState = { busy: boolean; outcome: PushOutcome | null; error: string | null };

/** The outcome of a Test in words. */
export function outcomeWords(outcome: PushOutcome): string {
  if (outcome.ok) return `Sent: the server answered ${outcome.status ?? "OK"}.`;
  if (outcome.status !== null) return `Not delivered: the server answered ${outcome.status}.`;
  return `Not delivered: ${outcome.error ?? "no answer"}.`;
}

const CHANNELS: { kind: PushKind; name: string; placeholder: string; note: string }[] = [
  {
    kind: "ntfy",
    name: "ntfy",
    placeholder: "https://ntfy.sh/your-secret-topic",
    note: "A topic URL on ntfy.sh or your own server; subscribe to it in the ntfy app.",
  },
  {
    kind: "webhook",
    name: "Webhook",
    placeholder: "https://example.com/hooks/switchboard",
    note: "Gets a JSON POST per session that needs you.",
  },
];

function ChannelRow({
  kind,
  name,
  placeholder,
  note,
  saved,
  disabled,
  onSave,
}: {
  kind: PushKind;
  name: string;
  placeholder: string;
  note: string;
  saved: PushChannel;
  disabled: boolean;
  onSave(next: PushChannel): Promise<boolean>;
}) {
  const [url, setUrl] = useState(saved.url);
  const [problem, setProblem] = useState<string | null>(null);
  const [test, setTest] = useState<TestState>({ busy: false, outcome: null, error: null });
  // A newly saved address replaces the draft (adjusted while rendering, not in an effect).
  const [savedUrl, setSavedUrl] = useState(saved.url);
  if (saved.url !== savedUrl) {
    setSavedUrl(saved.url);
    setUrl(saved.url);
  }

  const typed = { ...saved, url: url.trim() };
  const problemId = `push-problem-${kind}`;

  const commitUrl = async () => {
    if (url.trim() === saved.url) return;
    const wrong = url.trim() === "" && !saved.enabled ? null : await urlProblem(url);
    setProblem(wrong);
    if (!wrong) void onSave(typed);
  };

  const toggle = async (enabled: boolean) => {
    const wrong = enabled ? await urlProblem(url) : null;
    setProblem(wrong);
    if (!wrong) void onSave({ ...typed, enabled });
  };

  const runTest = async () => {
    const wrong = await urlProblem(url);
    setProblem(wrong);
    if (wrong) return;
    setTest({ busy: true, outcome: null, error: null });
    try {
      const outcome = await ipc.testPush(kind, typed);
      setTest({ busy: false, outcome, error: null });
    } catch (err) {
      setTest({ busy: false, outcome: null, error: ipc.toIpcError(err).message });
    }
  };

  const result = test.outcome ? outcomeWords(test.outcome) : test.error;
  const ok = test.outcome?.ok ?? false;

  return (
    <li className="push-channel" data-testid={`push-${kind}`} data-enabled={saved.enabled}>
      <div className="push-channel-line">
        <label className="decide-setting push-channel-name">
          <input
            type="checkbox"
            data-testid={`push-${kind}-enabled`}
            checked={saved.enabled}
            disabled={disabled}
            onChange={(event) => void toggle(event.target.checked)}
          />
          {name}
        </label>
        <input
          type="url"
          className="remote-input push-url"
          data-testid={`push-${kind}-url`}
          aria-label={`${name} URL`}
          placeholder={placeholder}
          autoComplete="off"
          spellCheck={false}
          value={url}
          disabled={disabled}
          aria-invalid={problem !== null}
          aria-describedby={problem ? problemId : undefined}
          onChange={(event) => {
            setUrl(event.target.value);
            if (problem) setProblem(null);
          }}
          onBlur={() => void commitUrl()}
          onKeyDown={(event) => {
            if (event.key === "Enter") void commitUrl();
          }}
        />
        <button
          type="button"
          className="copy-button push-test"
          data-testid={`push-${kind}-test`}
          title={`Send one test message to this ${name} URL now`}
          disabled={disabled || test.busy || url.trim() === ""}
          onClick={() => void runTest()}
        >
          {test.busy ? "Sending…" : "Test"}
        </button>
      </div>
      {problem && (
        <p className="remote-problem" id={problemId} role="alert" data-testid={`push-${kind}-problem`}>
          {problem}
        </p>
      )}
      {result && (
        <p
          className={`push-result ${ok ? "is-ok" : "is-error"}`}
          role="status"
          data-testid={`push-${kind}-result`}
          data-ok={ok}
        >
          {result}
        </p>
      )}
      <label className="decide-setting push-privacy" title="Off: only the agent, the status, the machine and a short session id are sent">
        <input
          type="checkbox"
          data-testid={`push-${kind}-include-text`}
          checked={saved.includeText}
          disabled={disabled}
          onChange={(event) => void onSave({ ...typed, includeText: event.target.checked })}
        />
        Include the session&apos;s words (title, project, question or command, folder)
      </label>
      <p className="decide-settings-note">{note}</p>
    </li>
  );
}

/** Sound, quiet hours and the push channels. */
export function ReachSettings({ settings }: { settings: SavedSettings }) {
  const { saved, saving } = settings;
  const reach = saved?.reach ?? ipc.DEFAULT_REACH;
  const [from, setFrom] = useState(reach.quietHours.from);
  const [to, setTo] = useState(reach.quietHours.to);
  const [error, setError] = useState<string | null>(null);
  // Newly saved quiet hours replace the draft (adjusted while rendering, not in an effect).
  const [savedHours, setSavedHours] = useState(reach.quietHours);
  if (reach.quietHours.from !== savedHours.from || reach.quietHours.to !== savedHours.to) {
    setSavedHours(reach.quietHours);
    setFrom(reach.quietHours.from);
    setTo(reach.quietHours.to);
  }
  // What the tone follows is what was saved last.
  useEffect(() => {
  }, [saved]);

  const save = async (next: Reach): Promise<boolean> => {
    if (!saved) return false;
    setError(null);
    try {
      await settings.save({ ...saved, reach: next });
      return true;
    } catch (err) {
      setError(ipc.toIpcError(err).message);
      return false;
    }
  };

  const disabled = !saved || saving;
  const toggleSound = (status: AgentStatus, on: boolean) => {
    const sound = reach.sound.filter((s) => s !== status);
    void save({ ...reach, sound: on ? [...sound, status] : sound });
  };
  const saveQuiet = (next: Partial<QuietHours>) => {
    const quietHours = { ...reach.quietHours, from, to, ...next };
    if (minuteOfDay(quietHours.from) === null || minuteOfDay(quietHours.to) === null) return;
    void save({ ...reach, quietHours });
  };

  return (
    <section className="reach-settings" data-testid="reach-settings" aria-busy={saving} aria-label="Reach">
      <h3 className="check-heading">
        <span className="check-name">When you are away</span>
      </h3>
      <div className="reach-row" role="group" aria-label="Sound">
        <span className="reach-label">Sound for</span>
        {SOUND_STATUSES.map(({ status, label }) => (
          <label key={status} className="decide-setting">
            <input
              type="checkbox"
              data-testid={`sound-${status}`}
              checked={reach.sound.includes(status)}
              disabled={disabled}
              onChange={(event) => toggleSound(status, event.target.checked)}
            />
            {label}
          </label>
        ))}
      </div>
      <div className="reach-row" role="group" aria-label="Quiet hours">
        <label className="decide-setting">
          <input
            type="checkbox"
            data-testid="quiet-enabled"
            checked={reach.quietHours.enabled}
            disabled={disabled}
            onChange={(event) => saveQuiet({ enabled: event.target.checked })}
          />
          Quiet hours
        </label>
        <input
          type="time"
          className="remote-input reach-time"
          data-testid="quiet-from"
          aria-label="Quiet from"
          value={from}
          disabled={disabled}
          onChange={(event) => setFrom(event.target.value)}
          onBlur={() => saveQuiet({ from })}
        />
        <span className="reach-label">to</span>
        <input
          type="time"
          className="remote-input reach-time"
          data-testid="quiet-to"
          aria-label="Quiet until"
          value={to}
          disabled={disabled}
          onChange={(event) => setTo(event.target.value)}
          onBlur={() => saveQuiet({ to })}
        />
      </div>
      <p className="decide-settings-note">Quiet hours silence the sound and the pushes; notifications on this desktop still show.</p>
      <ul className="push-channels">
        {CHANNELS.map((channel) => (
          <ChannelRow
            key={channel.kind}
            {...channel}
            saved={reach[channel.kind]}
            disabled={disabled}
            onSave={(next) => save({ ...reach, [channel.kind]: next })}
          />
        ))}
      </ul>
      <PhoneAnswers reach={reach} disabled={disabled} onSave={save} />
      {error && (
        <p className="install-result is-error" role="alert" data-testid="reach-error">
          {error}
        </p>
      )}
    </section>
  );
}
