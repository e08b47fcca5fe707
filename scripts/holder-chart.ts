/**
 * Writes src/app/panels/holderChart.json: the holder machine's shape as plain data, which
 * the statechart panel draws without loading xstate in the page. Run after changing
 * src/core/holder/holderMachine.ts (`npm run chart`); tests/app/statechart-plain.test.ts
 * fails until it is run.
 */
import { writeFileSync } from "node:fs";
import { holderMachine } from "../src/core/holder/holderMachine";
import { plainMachine } from "../src/app/panels/statechartPlain";

const out = new URL("../src/app/panels/holderChart.json", import.meta.url);
writeFileSync(out, `${JSON.stringify(plainMachine(holderMachine), null, 1)}\n`);
console.log(`wrote ${out.pathname}`);
