import { defineConfig } from "vitest/config";

const root = new URL("..", import.meta.url).pathname;

/** Component tests of the web app: happy-dom + Testing Library, files named web/src/** /*.test.tsx. */
export default defineConfig({
  root,
  esbuild: { jsx: "automatic", jsxImportSource: "react" },
  test: {
    environment: "happy-dom",
    include: ["web/src/**/*.test.{ts,tsx}"],
    setupFiles: ["web/vitest.setup.ts"],
    css: false,
    pool: "threads",
    poolOptions: { threads: { maxThreads: 2, minThreads: 1 } },
  },
});
