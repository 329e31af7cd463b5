import { beforeEach, describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { AppearanceSettings } from "./Appearance";
import { startTheme, useTheme } from "../state/theme";

beforeEach(() => {
  window.localStorage.clear();
  delete document.documentElement.dataset.theme;
  startTheme();
});

describe("Appearance", () => {
  it("starts as the system says, and a choice sets the root's theme and is kept", () => {
    render(<AppearanceSettings />);
    expect(screen.getByTestId("theme-system")).toBeChecked();
    expect(document.documentElement.dataset.theme).toBe("light"); // the test's system is light

    fireEvent.click(screen.getByTestId("theme-dark"));
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(window.localStorage.getItem("switchboard.theme")).toBe("dark");

    // A new start reads it back.
    useTheme.setState({ choice: "system", theme: "light" });
    startTheme();
    expect(useTheme.getState().choice).toBe("dark");
    expect(document.documentElement.dataset.theme).toBe("dark");

    fireEvent.click(screen.getByTestId("theme-system"));
    expect(document.documentElement.dataset.theme).toBe("light");
    expect(window.localStorage.getItem("switchboard.theme")).toBeNull();
  });
});
