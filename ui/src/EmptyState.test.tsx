import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { EmptyState } from "./EmptyState";
import * as ipc from "./ipc";

vi.mock("./ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./ipc")>()),
  installHooks: vi.fn(),
}));

beforeEach(() => {
  vi.mocked(ipc.installHooks).mockReset();
});

describe("the empty state", () => {
  it("says what Switchboard does and shows the install command and button", () => {
    render(<EmptyState />);
    expect(screen.getByText(/tells you the moment one of them needs you/)).toBeInTheDocument();
    expect(screen.getByTestId("install-command")).toHaveTextContent("switchboard install");
    expect(screen.getByRole("button", { name: "Connect my CLIs" })).toBeEnabled();
    expect(screen.getByText("Waiting for the first agent…")).toBeInTheDocument();
  });

  it("the button installs hooks for all CLIs and shows the summary", async () => {
    vi.mocked(ipc.installHooks).mockResolvedValue("Claude Code: 9 hooks added");
    render(<EmptyState />);
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    expect(ipc.installHooks).toHaveBeenCalledWith("all");
    expect(await screen.findByRole("status")).toHaveTextContent("Claude Code: 9 hooks added");
  });

  it("shows the installer's error message when it fails", async () => {
    vi.mocked(ipc.installHooks).mockImplementation(() => Promise.reject({ kind: "parse", message: "~/.codex/hooks.json is not valid JSON" }));
    render(<EmptyState />);
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("~/.codex/hooks.json is not valid JSON");
    expect(screen.getByRole("button", { name: "Connect my CLIs" })).toBeEnabled();
  });

  it("with sessions in Older, says all is quiet and points there instead of installing", () => {
    render(<EmptyState olderCount={3} />);
    expect(screen.getByText("All quiet")).toBeInTheDocument();
    expect(screen.getByTestId("empty-state")).toHaveTextContent("3 earlier sessions are under Older");
    expect(screen.queryByTestId("install-hooks")).toBeNull();
  });
});
