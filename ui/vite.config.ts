/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";
import { withKeptPaintStart } from "./src/start/keptPaint.ts";

// The app embeds ui/dist at compile time (no devUrl), so the build must be self-contained:
// no external fonts or CDNs, which the app's CSP forbids anyway.
export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    // The entry module loads after the first frame the app may have kept (src/start/keptPaint.ts).
    { name: "kept-paint-start", apply: "build", transformIndexHtml: { order: "post", handler: withKeptPaintStart } },
  ],
  clearScreen: false,
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
      { find: /^react-dom$/, replacement: "preact/compat" },
      { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
      { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-dev-runtime" },
      { find: /^react$/, replacement: "preact/compat" },
    ],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari16",
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
