// What `make lint` holds the web view to: typescript-eslint's recommended rules and React's
// rules of hooks (exhaustive-deps too), with no warning let through (`--max-warnings 0`).
import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // The bindings are written by Rust's ts-rs tests, not by hand.
  { ignores: ["dist/", "node_modules/", "src/bindings/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    extends: [reactHooks.configs.flat.recommended],
  },
  {
    files: ["scripts/**/*.{js,mjs}", "*.config.{js,ts}"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
