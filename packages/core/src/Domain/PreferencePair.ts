import { Schema } from "effect"
import { AlignRole } from "./AlignSpec.js"

/** A chat message as trainers read it (`{role, content}`). */
export const PairMessage = Schema.Struct({
  role: Schema.Literal("system", "user", "assistant"),
  content: Schema.String
})
export type PairMessage = typeof PairMessage.Type

/** The one assistant turn of a completion. */
export const PairCompletion = Schema.Tuple(Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.String.pipe(Schema.nonEmptyString({ message: () => "a completion is empty" }))
}))
export type PairCompletion = typeof PairCompletion.Type

/** Where one side of a pair was sampled: its sample number, temperature, top_p and seed. */
export const SampleRef = Schema.Struct({
  sample: Schema.NonNegativeInt,
  temperature: Schema.Number,
  top_p: Schema.Number,
  seed: Schema.Int
})
export type SampleRef = typeof SampleRef.Type

/**
 * How a pair was labelled: `rank` (the judge named the best and worst of the group), `ard` (the adaptive-retrieval
 * judge said True for the chosen note and False for the rejected one), `metric` (the task metric against gold).
 * The same keys for every role, so a columnar reader (Arrow, `datasets`) sees one schema.
 */
export const PairJudge = Schema.Struct({
  method: Schema.Literal("rank", "ard", "metric"),
  /** The judge model, `extractive` for the offline rules, or the metric's name. */
  model: Schema.String,
  /** Distinct candidates the label was chosen among. */
  candidates: Schema.Int,
  /** The chosen side's label (`best`, `True`, `acc=1`) and the rejected side's. */
  chosen: Schema.String,
  rejected: Schema.String
})
export type PairJudge = typeof PairJudge.Type

export const PairMeta = Schema.Struct({
  question_id: Schema.String,
  role: AlignRole,
  sampling: Schema.Struct({ chosen: SampleRef, rejected: SampleRef, top_k: Schema.Int }),
  judge: PairJudge
})
export type PairMeta = typeof PairMeta.Type

/**
 * One DPO preference pair in TRL's conversational format: `prompt` is the role's chat messages ending with the user
 * turn; `chosen` and `rejected` are one assistant message each, different, answering that same prompt.
 */
export const PreferencePair = Schema.Struct({
  prompt: Schema.NonEmptyArray(PairMessage),
  chosen: PairCompletion,
  rejected: PairCompletion,
  role: AlignRole,
  meta: PairMeta
}).pipe(
  Schema.filter((pair) => {
    if (pair.prompt[pair.prompt.length - 1]!.role !== "user") {
      return { path: ["prompt"], message: "the prompt must end with the user turn" }
    }
    if (pair.chosen[0].content === pair.rejected[0].content) {
      return { path: ["rejected"], message: "chosen and rejected are the same text" }
    }
    if (pair.role !== pair.meta.role) return { path: ["meta", "role"], message: "meta.role differs from role" }
    return true
  })
)
export type PreferencePair = typeof PreferencePair.Type
