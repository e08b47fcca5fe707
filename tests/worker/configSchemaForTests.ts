/** The settings as one zod schema (as config.ts declared them before they became plain data), to check the plain checks against. */
import { z } from "zod/mini";
import { SETTING_SCHEMAS, TOP_SCHEMAS } from "../../src/core/sim/configSchema";

export const simConfigSchemaForTests = z.strictObject({
  seed: TOP_SCHEMAS.seed,
  nodes: TOP_SCHEMAS.nodes,
  spares: TOP_SCHEMAS.spares,
  raft: z.prefault(z.strictObject(SETTING_SCHEMAS.raft), {}),
  network: z.prefault(z.strictObject(SETTING_SCHEMAS.network), {}),
  clients: z.prefault(z.strictObject(SETTING_SCHEMAS.clients), {}),
  lease: z.prefault(z.strictObject(SETTING_SCHEMAS.lease), {}),
  holders: z.prefault(z.strictObject(SETTING_SCHEMAS.holders), {}),
  storage: z.prefault(z.strictObject(SETTING_SCHEMAS.storage), {}),
  checkers: TOP_SCHEMAS.checkers,
  hashTrace: TOP_SCHEMAS.hashTrace,
  stopOnViolation: TOP_SCHEMAS.stopOnViolation,
  inboxLimit: TOP_SCHEMAS.inboxLimit,
});
