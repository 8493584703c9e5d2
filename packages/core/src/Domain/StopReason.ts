import { Schema } from "effect"

/**
 * Why the note loop ended:
 * - `max-step`: every step ran (`adaptive-note`: iterations reached T_CI);
 * - `max-failure`: cumulative rejected notes reached `maxFailure` (`adaptive-note`: invalid updates reached T_IU);
 * - `passage-cap`: `paper`, unique passages exceeded `maxUniquePassages` (`adaptive-note`: reached T_RP);
 * - `no-new-queries`: `deepnote` profile, the planner proposed nothing that was not asked before;
 * - `finish`: `renact`, the model's action was `finish[…]`;
 * - `baseline`: a baseline profile without a loop.
 */
export const StopReason = Schema.Literal(
  "max-step",
  "max-failure",
  "passage-cap",
  "no-new-queries",
  "finish",
  "baseline"
)
export type StopReason = typeof StopReason.Type
