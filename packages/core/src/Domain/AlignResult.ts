import { Schema } from "effect"
import { AlignRole } from "./AlignSpec.js"
import { PreferencePair } from "./PreferencePair.js"

/**
 * Why a question gave no pair for a role (the paper drops questions lacking a positive or a negative):
 * - `identical-samples`: fewer than two distinct outputs among the samples;
 * - `judge-tie`: the judge named the same candidate best and worst;
 * - `judge-unreadable`: the judge's reply named no two candidates of the group;
 * - `no-positive` / `no-negative`: no sample labelled positive (ARD True, answer correct) / negative;
 * - `no-gold`: answer pairs need gold answers;
 * - `no-passages`: retrieval found nothing to write from;
 * - `no-queries`: the best plan asked nothing to retrieve with (knowledge accumulation cannot start).
 */
export const DropReason = Schema.Literal(
  "identical-samples",
  "judge-tie",
  "judge-unreadable",
  "no-positive",
  "no-negative",
  "no-gold",
  "no-passages",
  "no-queries"
)
export type DropReason = typeof DropReason.Type

/**
 * The task metric's view of a pair where gold exists: the chosen side scores higher (`agree`), lower (`disagree`) or
 * the same (`tie`). Notes score the gold answer's presence; queries the gold passages' titles they name.
 */
export const Agreement = Schema.Literal("agree", "disagree", "tie")
export type Agreement = typeof Agreement.Type

/** What one role gave for one question: a pair, or why not. */
export const RoleOutcome = Schema.Struct({
  role: AlignRole,
  /** Samples generated, and how many of them were distinct. */
  samples: Schema.NonNegativeInt,
  distinct: Schema.NonNegativeInt,
  pair: Schema.optional(PreferencePair),
  dropped: Schema.optional(DropReason),
  agreement: Schema.optional(Agreement)
})
export type RoleOutcome = typeof RoleOutcome.Type

/** An align run's result for one question: one outcome per role asked, in the recipe's order. */
export class AlignItemResult extends Schema.TaggedClass<AlignItemResult>()("AlignItemResult", {
  questionId: Schema.String,
  /** The top-k this question's retrievals used (drawn from the range, by seed). */
  topK: Schema.Int,
  outcomes: Schema.Array(RoleOutcome),
  elapsedMs: Schema.Number
}) {}
