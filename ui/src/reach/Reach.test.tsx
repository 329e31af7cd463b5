import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConnectionsDrawer } from "../settings/Connections";
import { outcomeWords, resetTone, useReachSound } from "./Reach";
import type { Settings } from "../bindings/Settings";
import { healthyReport } from "../test/doctor";
import * as ipc from "../shared/ipc";
import { useConnections } from "../state/connections";

vi.mock("../shared/ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../shared/ipc")>()),
  doctor: vi.fn(),
  // Rust's check (settings.rs `url_problem`, tested there), for the URLs these tests type.
  pushUrlProblem: vi.fn(async (url: string) =>
    /^https?:\/\/[^/\s]/.test(url) ? null : "The URL must start with https:// or http://.",
  ),
  settings: vi.fn(),
  setSettings: vi.fn(),
  remotes: vi.fn(),
  testPush: vi.fn(),
  onChime: vi.fn(),
}));

const SAVED: Settings = { decide: [], holdSeconds: 30, remotes: [], reach: ipc.DEFAULT_REACH };

beforeEach(() => {
  useConnections.setState({ open: false, report: null, checking: false, error: null });
  vi.mocked(ipc.doctor).mockReset();
  vi.mocked(ipc.doctor).mockResolvedValue(healthyReport());
  vi.mocked(ipc.remotes).mockReset();
  vi.mocked(ipc.remotes).mockResolvedValue([]);
  vi.mocked(ipc.settings).mockReset();
  vi.mocked(ipc.settings).mockResolvedValue(SAVED);
  vi.mocked(ipc.setSettings).mockReset();
  vi.mocked(ipc.setSettings).mockImplementation(async (next) => next);
  vi.mocked(ipc.testPush).mockReset();
});

async function openReach(): Promise<HTMLElement> {
  render(<ConnectionsDrawer />);
  act(() => useConnections.getState().setOpen(true));
  const section = await screen.findByTestId("reach-settings");
  await waitFor(() => expect(within(section).getByTestId("push-ntfy-enabled")).toBeEnabled());
  return section;
}

describe("push URLs", () => {
  it("shows the problem inline and saves nothing until the URL is right", async () => {
    const section = await openReach();
    const url = within(section).getByTestId("push-ntfy-url");
    fireEvent.change(url, { target: { value: "ntfy.sh/topic" } });
    fireEvent.click(within(section).getByTestId("push-ntfy-enabled"));
    expect(await within(section).findByTestId("push-ntfy-problem")).toHaveTextContent("must start with https://");
    expect(url).toHaveAttribute("aria-invalid", "true");
    expect(ipc.setSettings).not.toHaveBeenCalled();

    fireEvent.change(url, { target: { value: "https://ntfy.sh/topic" } });
    expect(within(section).queryByTestId("push-ntfy-problem")).toBeNull();
    fireEvent.click(within(section).getByTestId("push-ntfy-enabled"));
    await waitFor(() =>
      expect(ipc.setSettings).toHaveBeenLastCalledWith({
        ...SAVED,
        reach: { ...ipc.DEFAULT_REACH, ntfy: { enabled: true, url: "https://ntfy.sh/topic", includeText: false } },
      }),
    );
    await waitFor(() => expect(within(section).getByTestId("push-ntfy")).toHaveAttribute("data-enabled", "true"));
  });

  it("keeps the privacy switch off unless turned on, per channel", async () => {
    const section = await openReach();
    expect(within(section).getByTestId("push-webhook-include-text")).not.toBeChecked();
    fireEvent.change(within(section).getByTestId("push-webhook-url"), { target: { value: "https://hooks.example.com/x" } });
    fireEvent.click(within(section).getByTestId("push-webhook-include-text"));
    await waitFor(() => expect(ipc.setSettings).toHaveBeenCalled());
    const saved = vi.mocked(ipc.setSettings).mock.lastCall![0];
    expect(saved.reach.webhook).toEqual({ enabled: false, url: "https://hooks.example.com/x", includeText: true });
    expect(saved.reach.ntfy.includeText).toBe(false);
  });
});

describe("answer from the phone", () => {
  it("needs the ntfy push, is off by default, and saves the switch and the token", async () => {
    const section = await openReach();
    const phone = within(section).getByTestId("phone-enabled");
    expect(phone).not.toBeChecked();
    expect(phone).toBeDisabled();
    expect(within(section).queryByTestId("phone-token")).toBeNull();

    const ntfy = { enabled: true, url: "https://ntfy.sh/topic", includeText: false };
    vi.mocked(ipc.setSettings).mockImplementation(async (next) =>
      next.reach.answerFromPhone && !next.reach.replyTopic
        ? { ...next, reach: { ...next.reach, replyTopic: "0123456789abcdef0123456789abcdef" } }
        : next,
    );
    fireEvent.click(within(section).getByTestId("push-ntfy-url"));
    fireEvent.change(within(section).getByTestId("push-ntfy-url"), { target: { value: ntfy.url } });
    fireEvent.click(within(section).getByTestId("push-ntfy-enabled"));
    await waitFor(() => expect(within(section).getByTestId("phone-enabled")).toBeEnabled());
    fireEvent.click(within(section).getByTestId("phone-enabled"));
    await waitFor(() => expect(vi.mocked(ipc.setSettings).mock.lastCall![0].reach.answerFromPhone).toBe(true));
    expect(await within(section).findByTestId("phone-topic")).toHaveTextContent("0123456789abcdef0123456789abcdef");

    const token = within(section).getByTestId("phone-token");
    fireEvent.change(token, { target: { value: " tk_phone " } });
    fireEvent.blur(token);
    await waitFor(() => expect(vi.mocked(ipc.setSettings).mock.lastCall![0].reach.replyToken).toBe("tk_phone"));
  });
});

describe("the Test button", () => {
  it("sends the channel as shown and says what the server answered", async () => {
    vi.mocked(ipc.testPush).mockResolvedValue({ ok: true, status: 200, error: null, attempts: 1 });
    const section = await openReach();
    fireEvent.change(within(section).getByTestId("push-ntfy-url"), { target: { value: "https://ntfy.sh/t" } });
    fireEvent.click(within(section).getByTestId("push-ntfy-test"));
    expect(await within(section).findByTestId("push-ntfy-result")).toHaveTextContent("Sent: the server answered 200.");
    expect(ipc.testPush).toHaveBeenCalledWith("ntfy", { enabled: false, url: "https://ntfy.sh/t", includeText: false });
  });

  it("shows a refusal or a connection error inline", async () => {
    vi.mocked(ipc.testPush)
      .mockResolvedValueOnce({ ok: false, status: 404, error: null, attempts: 1 })
      .mockResolvedValueOnce({ ok: false, status: null, error: "Connection refused", attempts: 1 });
    const section = await openReach();
    fireEvent.change(within(section).getByTestId("push-webhook-url"), { target: { value: "http://127.0.0.1:9/x" } });
    fireEvent.click(within(section).getByTestId("push-webhook-test"));
    const result = await within(section).findByTestId("push-webhook-result");
    expect(result).toHaveTextContent("Not delivered: the server answered 404.");
    expect(result).toHaveAttribute("data-ok", "false");
    fireEvent.click(within(section).getByTestId("push-webhook-test"));
    await waitFor(() =>
      expect(within(section).getByTestId("push-webhook-result")).toHaveTextContent("Not delivered: Connection refused."),
    );
  });

  it("does not test a URL that cannot be used", async () => {
    const section = await openReach();
    fireEvent.change(within(section).getByTestId("push-webhook-url"), { target: { value: "hooks.example.com" } });
    fireEvent.click(within(section).getByTestId("push-webhook-test"));
    expect(await within(section).findByTestId("push-webhook-problem")).toBeInTheDocument();
    expect(ipc.testPush).not.toHaveBeenCalled();
  });

  it("words every outcome", () => {
    expect(outcomeWords({ ok: true, status: 204, error: null, attempts: 1 })).toBe("Sent: the server answered 204.");
    expect(outcomeWords({ ok: false, status: null, error: "timed out", attempts: 1 })).toBe("Not delivered: timed out.");
  });
});

describe("quiet hours", () => {
  it("saves the window from the panel", async () => {
    const section = await openReach();
    fireEvent.change(within(section).getByTestId("quiet-from"), { target: { value: "21:30" } });
    fireEvent.blur(within(section).getByTestId("quiet-from"));
    await waitFor(() => expect(ipc.setSettings).toHaveBeenCalled());
    expect(vi.mocked(ipc.setSettings).mock.lastCall![0].reach.quietHours).toEqual({
      enabled: false,
      from: "21:30",
      to: "07:00",
    });
  });
});

describe("the tone", () => {
  // When it is due is Rust's rule (`push::chimes`, tested there): the board plays it when told.
  let oscillators = 0;
  let chime: ((sessionId: string) => void) | null = null;
  class FakeAudioContext {
    state = "running";
    currentTime = 0;
    destination = {};
    resume = vi.fn();
    createGain() {
      return {
        gain: { setValueAtTime: vi.fn(), exponentialRampToValueAtTime: vi.fn() },
        connect: vi.fn(),
      };
    }
    createOscillator() {
      oscillators += 1;
      return { type: "", frequency: { setValueAtTime: vi.fn() }, connect: vi.fn(), start: vi.fn(), stop: vi.fn() };
    }
  }

  function Sound() {
    useReachSound();
    return null;
  }

  beforeEach(() => {
    oscillators = 0;
    chime = null;
    resetTone();
    vi.stubGlobal("AudioContext", FakeAudioContext);
    vi.mocked(ipc.onChime).mockImplementation(async (handler) => {
      chime = handler;
      return () => {
        chime = null;
      };
    });
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("plays when Rust says it is due, and only then", async () => {
    const { unmount } = render(<Sound />);
    await waitFor(() => expect(chime).not.toBeNull());
    expect(oscillators).toBe(0);
    act(() => chime!("a"));
    expect(oscillators).toBe(2);
    unmount();
    expect(chime).toBeNull();
  });
});
