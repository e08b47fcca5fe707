import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"],
    environment: "node",
    setupFiles: ["tests/setup/workerParts.ts", "tests/setup/dataFiles.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
