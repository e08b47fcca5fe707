/**
 * The scenario check behind share links and opened files (link.ts loads this on demand):
 * the schema's errors, naming the field, then settings that clash with each other.
 */
import { scenarioConfig } from "../../core/scenario/settings";
import { parseScenarioText } from "../../core/scenario/schema";
import { configProblems } from "../../core/sim/config";
import { compactScenarioText, type DecodeResult } from "./link";

/**
 * Scenario text -> the scenario, or its errors each starting with `prefix`: the schema's
 * (naming the field) and then settings that clash with each other (which the simulator
 * would refuse).
 */
export function checkScenario(text: string, prefix: string): DecodeResult {
  const parsed = parseScenarioText(text);
  if (!parsed.ok) return { ok: false, errors: parsed.errors.map((e) => `${prefix}${e}`) };
  let clash: string[];
  try {
    clash = configProblems(scenarioConfig(parsed.scenario));
  } catch (e) {
    clash = [e instanceof Error ? e.message : String(e)];
  }
  if (clash.length > 0) return { ok: false, errors: clash.map((e) => `${prefix}settings that cannot run together: ${e}`) };
  return { ok: true, scenario: parsed.scenario, text: compactScenarioText(text) };
}

