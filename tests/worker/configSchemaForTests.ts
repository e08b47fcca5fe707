/** The settings as one zod schema (as config.ts declared them before they became plain data), to check the plain checks against. */
import { z } from "zod";
import { SETTING_SCHEMAS, TOP_SCHEMAS } from "../../src/core/sim/configSchema";

export const simConfigSchemaForTests = z.strictObject({
  seed: TOP_SCHEMAS.seed,
  nodes: TOP_SCHEMAS.nodes,
  spares: TOP_SCHEMAS.spares,
  raft: z.strictObject(SETTING_SCHEMAS.raft).prefault({}),
  network: z.strictObject(SETTING_SCHEMAS.network).prefault({}),
  clients: z.strictObject(SETTING_SCHEMAS.clients).prefault({}),
  lease: z.strictObject(SETTING_SCHEMAS.lease).prefault({}),
  holders: z.strictObject(SETTING_SCHEMAS.holders).prefault({}),
  storage: z.strictObject(SETTING_SCHEMAS.storage).prefault({}),
  checkers: TOP_SCHEMAS.checkers,
  hashTrace: TOP_SCHEMAS.hashTrace,
  stopOnViolation: TOP_SCHEMAS.stopOnViolation,
  inboxLimit: TOP_SCHEMAS.inboxLimit,
});
