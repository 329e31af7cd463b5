import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  // Tauri serves ui/dist itself; the dev server is only for `npm run dev`.
  server: { port: 1420, strictPort: true },
  // One bundle, nothing fetched at run time (the preload polyfill would be dead code).
  build: { outDir: "dist", target: "es2021", sourcemap: false, modulePreload: { polyfill: false } },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test/setup.ts"],
    css: false,
  },
});
