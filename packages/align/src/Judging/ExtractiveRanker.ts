import { rankNotes, rankQueries } from "@deepnote-rag/extractive"
import { Effect, Layer } from "effect"
import { Ranker, type RankerService } from "./Ranker.js"

/** The offline group judge: the extractive engine's rules for the paper's criteria (`rankNotes`, `rankQueries`). */
export const make: Effect.Effect<RankerService> = Effect.succeed({
  rankNotes: (input) =>
    Effect.sync(() => {
      const ranked = rankNotes(input.question, input.passages, input.candidates)
      return { _tag: "Ranked" as const, bestId: ranked.best, worstId: ranked.worst }
    }).pipe(Effect.withSpan("Ranker.rankNotes")),
  rankQueries: (input) =>
    Effect.sync(() => {
      const ranked = rankQueries(input.question, input.note, input.queryLog, input.candidates)
      return { _tag: "Ranked" as const, bestId: ranked.best, worstId: ranked.worst }
    }).pipe(Effect.withSpan("Ranker.rankQueries"))
})

export const layer = Layer.effect(Ranker, make)
