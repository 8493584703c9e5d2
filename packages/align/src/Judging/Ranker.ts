import type { CallContext, Passage, RoleError } from "@deepnote-rag/core"
import { Context, type Effect, Layer, Schema } from "effect"

/**
 * The judge's verdict on a group: the candidate ids it named best and worst (the same id: no usable pair), or the
 * reply it gave when that reply named no two candidates (the group then gives no pair; the run goes on).
 */
export const Ranking = Schema.Union(
  Schema.TaggedStruct("Ranked", { bestId: Schema.Int, worstId: Schema.Int }),
  Schema.TaggedStruct("Unreadable", { reply: Schema.String })
)
export type Ranking = typeof Ranking.Type

export interface RankNotesInput {
  readonly question: string
  readonly passages: ReadonlyArray<Passage>
  /** The distinct notes, by id (their index). */
  readonly candidates: ReadonlyArray<string>
  readonly context: CallContext
}

export interface RankQueriesInput {
  readonly question: string
  readonly note: string
  readonly queryLog: ReadonlyArray<string>
  /** The distinct query sets, by id (their index), and each set as the planner wrote it (what the judge reads). */
  readonly candidates: ReadonlyArray<ReadonlyArray<string>>
  readonly rendered: ReadonlyArray<string>
  readonly context: CallContext
}

export interface RankerService {
  /** Best and worst initial note of a group (relevance, coherence, completeness, accuracy). */
  readonly rankNotes: (input: RankNotesInput) => Effect.Effect<Ranking, RoleError>
  /** Best and worst query set of a group (relevance, specificity, keywords, non-redundancy). */
  readonly rankQueries: (input: RankQueriesInput) => Effect.Effect<Ranking, RoleError>
}

/** DNAlign's group judge: names the best and the worst of a group of samples for one prompt. */
export class Ranker extends Context.Tag("@deepnote-rag/align/Ranker")<Ranker, RankerService>() {
  /** A test double's layer. */
  static readonly layerTest = (impl: RankerService) => Layer.succeed(Ranker, impl)
}
