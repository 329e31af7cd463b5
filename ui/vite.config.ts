import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  // Tauri serves ui/dist itself; the dev server is only for `npm run dev`.
  server: { port: 1420, strictPort: true },
  // The page's bundle, and xterm in a chunk of its own that the live terminal imports when it
  // first opens (from the app's own assets; WebKit has modulepreload, so no polyfill).
  build: { outDir: "dist", target: "es2021", sourcemap: false, modulePreload: { polyfill: false } },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    css: false,
  },
});
