import { render, screen, fireEvent, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

vi.mock("./ipc", () => ({
  notices: vi.fn(async () => ["The session database was damaged; it was set aside as /x/switchboard.db.corrupt-1."]),
}));

import { Notices } from "./Notices";

describe("Notices", () => {
  it("shows what the Rust side reports and can be dismissed", async () => {
    render(<Notices />);
    await waitFor(() => expect(screen.getByTestId("notices").textContent).toContain("set aside"));
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByTestId("notices")).toBeNull();
  });
});
