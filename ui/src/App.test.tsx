import { beforeAll, describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { App } from "./App";
import { useSwitchboard } from "./state/store";
import { installFlowStubs } from "./test/flow";
import { initialData } from "./state/data";

beforeAll(installFlowStubs);

describe("the app in a plain browser (no Tauri runtime)", () => {
  it("renders the empty state without throwing", async () => {
    useSwitchboard.setState(initialData());
    expect(window.__TAURI_INTERNALS__).toBeUndefined();
    render(<App />);
    expect(await screen.findByTestId("empty-state")).toBeInTheDocument();
    expect(screen.getByTestId("count-needs")).toHaveTextContent("0 need you");
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Not running inside the Switchboard app.");
  });
});
