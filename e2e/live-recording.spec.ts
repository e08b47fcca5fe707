/**
 * A live run's recording opened from a file (docs/live.md, Recordings): "Open a recording…"
 * replays it in the simulator and checks each process's digest; a file that is not a recording
 * is refused with what is wrong in it, and the run on screen stays; Save recording gives the
 * same file back. The recording is made in Node by the live run's stand-in for the workers
 * (tests/support/liveHarness.ts), so this test does not depend on the machine's timing.
 */
import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { recordingToText } from "../src/core/live/schema";
import { faultyRun } from "../tests/support/liveRuns";
import { nodes, watchErrors } from "./support";

const text = recordingToText(faultyRun(5, 4_000_000).recording());

async function openRecording(page: Page, name: string, body: string): Promise<void> {
  await page.getByLabel("A live run's recording").setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(body) });
}

test("a saved recording opens in the simulator, replays to every digest, and saves back the same file; a broken one is refused", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto("/?seed=2");
  await expect(nodes(page)).toHaveCount(5);
  await expect(page.getByRole("button", { name: "Simulated", exact: true })).toHaveAttribute("aria-pressed", "true");

  // Not a recording: refused, naming the field; the simulated run on screen stays.
  const broken = text.replace(/"digests": \{\n {2}"n1": "[0-9a-f]{16}"/, '"digests": {\n  "n1": "zz"');
  expect(broken).not.toBe(text);
  await openRecording(page, "broken.json", broken);
  const alert = page.getByRole("alert").filter({ hasText: "broken.json could not be opened as a live run's recording" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("digests.n1");
  await expect(page.getByRole("button", { name: "Simulated", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText("seed 2")).toBeVisible();

  // The real one: replayed whole, every digest the same.
  await openRecording(page, "run.json", text);
  await expect(page.getByTestId("replay-check")).toHaveText(
    /^✓ The replay is the same run: all 9 processes end in exactly the state they ended in live \(their digests match\)\./,
    { timeout: 30_000 },
  );
  await expect(page.getByText("seed 5")).toBeVisible();

  // Saved again: the same text, byte for byte (the file format is written one way).
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Save recording" }).click()]);
  expect(download.suggestedFilename()).toBe("lease-lab-live-seed-5.json");
  expect(readFileSync(await download.path(), "utf8")).toBe(text);
  expect(errors).toEqual([]);
});
