import { Schema } from "effect"

/**
 * Why the note loop ended:
 * - `max-step`: every step ran;
 * - `max-failure`: cumulative rejected notes reached `maxFailure`;
 * - `passage-cap`: `paper` profile, unique passages exceeded `maxUniquePassages`;
 * - `no-new-queries`: `deepnote` profile, the planner proposed nothing that was not asked before;
 * - `baseline`: a baseline profile without a loop.
 */
export const StopReason = Schema.Literal("max-step", "max-failure", "passage-cap", "no-new-queries", "baseline")
export type StopReason = typeof StopReason.Type
