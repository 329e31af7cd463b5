import { act, render, screen, fireEvent, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

const bridge = vi.hoisted(() => ({ push: null as ((notices: string[]) => void) | null }));

vi.mock("../shared/ipc", () => ({
  notices: vi.fn(async () => ["The session database was damaged; it was set aside as /x/switchboard.db.corrupt-1."]),
  onNoticesChanged: vi.fn(async (handler: (notices: string[]) => void) => {
    bridge.push = handler;
    return () => {};
  }),
}));

import { Notices } from "./Notices";

describe("Notices", () => {
  it("shows what the Rust side reports and can be dismissed", async () => {
    render(<Notices />);
    await waitFor(() => expect(screen.getByTestId("notices").textContent).toContain("set aside"));
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByTestId("notices")).toBeNull();
  });

  it("shows a notice raised while the app runs, and hides it once resolved", async () => {
    render(<Notices />);
    await waitFor(() => expect(bridge.push).not.toBeNull());
    act(() => bridge.push!(["Sessions are not being saved: disk full."]));
    expect(screen.getByTestId("notices").textContent).toContain("not being saved");
    act(() => bridge.push!([]));
    expect(screen.queryByTestId("notices")).toBeNull();
  });
});
