import { beforeAll, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { App } from "./App";
import { useSwitchboard } from "./state/store";
import { installFlowStubs } from "./test/flow";
import { initialData } from "./state/data";
import * as ipc from "./shared/ipc";

vi.mock("./shared/ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./shared/ipc")>()),
  pageReady: vi.fn(async () => {}),
}));

beforeAll(installFlowStubs);

describe("the window's first show", () => {
  it("is asked for once the first board is drawn, and only once", async () => {
    useSwitchboard.setState(initialData());
    const { rerender } = render(<App />);
    // Not before the snapshot is in: the window would show an empty frame.
    expect(ipc.pageReady).not.toHaveBeenCalled();
    expect(await screen.findByTestId("empty-state")).toBeInTheDocument();
    expect(ipc.pageReady).toHaveBeenCalledTimes(1);
    rerender(<App />);
    expect(ipc.pageReady).toHaveBeenCalledTimes(1);
  });
});
