import { type BootstrapOptions, type CompareInput, compareItems } from "@deepnote-rag/eval"
import { RunStore } from "@deepnote-rag/store"
import { Chunk, Effect, Stream } from "effect"

const allStatuses = ["done", "failed", "pending", "running"] as const

/** Every question of a run (any status) as the comparison reads it. */
const inputsOf = (store: typeof RunStore.Service, runId: string) =>
  Stream.runCollect(store.results(runId, { statuses: [...allStatuses] })).pipe(
    Effect.map((records) =>
      Chunk.toReadonlyArray(records).map((r): CompareInput => ({
        seq: r.seq,
        status: r.status,
        question: r.question,
        result: r.result
      }))
    )
  )

/**
 * Compares two stored runs question by question (`compareItems`: paired by question id, paired-bootstrap intervals):
 * the one comparison `deepnote compare` prints and `GET /v1/compare` answers.
 */
export const compareRuns = Effect.fn("compareRuns")(
  function*(baseId: string, candidateId: string, options: BootstrapOptions = {}) {
    yield* Effect.annotateCurrentSpan({ "deepnote.run.id": baseId, "deepnote.candidate.id": candidateId })
    const store = yield* RunStore
    const base = yield* store.getRun(baseId)
    const candidate = yield* store.getRun(candidateId)
    const comparison = yield* compareItems(
      yield* inputsOf(store, base.id),
      yield* inputsOf(store, candidate.id),
      options
    )
    return { base, candidate, comparison }
  }
)
