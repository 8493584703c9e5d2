import { Schema } from "effect"
import { PositiveInt } from "./NumberFields.js"

/**
 * The roles DNAlign makes preference pairs for (arXiv 2410.08821 §DPO): note initialisation (`init`, D_Init), query
 * refinement (`plan`, D_QR), knowledge accumulation (`update`, D_KA) and answering (`answer`, D_Ans).
 */
export const AlignRole = Schema.Literal("init", "plan", "update", "answer")
export type AlignRole = typeof AlignRole.Type
export const alignRoles: ReadonlyArray<AlignRole> = AlignRole.literals

/** One point of the sampling grid: a temperature and a top_p (the paper: {0.1, 0.5, 0.9}²). */
export const SamplePoint = Schema.Struct({
  temperature: Schema.Number.pipe(Schema.between(0, 2, { message: () => "temperature must be between 0 and 2" })),
  topP: Schema.Number.pipe(
    Schema.greaterThan(0, { message: () => "top_p must be > 0" }),
    Schema.lessThanOrEqualTo(1, { message: () => "top_p must be ≤ 1" })
  )
})
export type SamplePoint = typeof SamplePoint.Type

/** Pairs kept per role when the output is mixed (`paper`: D_Init 1,900, D_QR 1,900, D_KA 1,900, D_Ans 300). */
export const MixQuotas = Schema.Struct({
  init: Schema.optional(Schema.NonNegativeInt),
  plan: Schema.optional(Schema.NonNegativeInt),
  update: Schema.optional(Schema.NonNegativeInt),
  answer: Schema.optional(Schema.NonNegativeInt)
})
export type MixQuotas = typeof MixQuotas.Type

/** `all`: every pair; `paper`: the paper's ratios; quotas: pairs per role (scaled down together to what exists). */
export const AlignMix = Schema.Union(Schema.Literal("all", "paper"), MixQuotas)
export type AlignMix = typeof AlignMix.Type

/** The paper's mix: 6,000 pairs. */
export const paperMix: Required<MixQuotas> = { init: 1900, plan: 1900, update: 1900, answer: 300 }

/** Where the pairs of a run are written when it completes (by `align-data`, or by `resume`). */
export const AlignOutput = Schema.Struct({
  path: Schema.String,
  /** One file per role (`pairs.init.jsonl`, …) instead of one file with a `role` field. */
  splitRoles: Schema.Boolean,
  /** The dataset card (markdown). */
  card: Schema.String
})
export type AlignOutput = typeof AlignOutput.Type

/** Who judges the groups: the LLM (with its model) or the extractive engine's rules (CI, offline). */
export const AlignJudge = Schema.Struct({
  engine: Schema.Literal("llm", "extractive"),
  /** The judge model (the paper: GPT-4o-mini); unset: the run's judge-role model. */
  model: Schema.optional(Schema.String)
})
export type AlignJudge = typeof AlignJudge.Type

/**
 * An align run's recipe, recorded in its manifest: which roles, how many samples over which grid, the top-k range,
 * the judge, the seed every random choice derives from, the mix and the output, and the hash of every prompt used.
 */
export class AlignSpec extends Schema.Class<AlignSpec>("AlignSpec")({
  roles: Schema.NonEmptyArray(AlignRole),
  samples: PositiveInt("samples"),
  grid: Schema.NonEmptyArray(SamplePoint),
  topK: Schema.Struct({ min: PositiveInt("top-k"), max: PositiveInt("top-k") }).pipe(
    Schema.filter((r) => r.min <= r.max || `the top-k range ${r.min}..${r.max} is empty`)
  ),
  judge: AlignJudge,
  seed: Schema.Int,
  mix: AlignMix,
  output: Schema.optional(AlignOutput),
  /** Hash of each prompt template (role prompts and judge prompts, English and Chinese), by name. */
  prompts: Schema.Record({ key: Schema.String, value: Schema.String })
}) {}
