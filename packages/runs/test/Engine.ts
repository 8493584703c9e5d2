import { Answerer, Home, Judge, NoteWriter, QueryPlanner, Retriever } from "@deepnote-rag/core"
import { Extractive } from "@deepnote-rag/extractive"
import { Collections, FtsRetriever } from "@deepnote-rag/retrieval"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
export const sampleQuestions = Path.join(repoRoot, "examples/sample/questions/hotpotqa.jsonl")
const sampleCorpus = Path.join(repoRoot, "examples/sample/corpus/hotpotqa-paragraphs.jsonl")

/** A temp home with the sample collection indexed (real FTS5), removed with the scope. */
export const sampleHome = Effect.gen(function*() {
  const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "deepnote-runs-" })
  yield* Effect.gen(function*() {
    const collections = yield* Collections
    yield* collections.index("sample", [sampleCorpus])
  }).pipe(Effect.scoped, Effect.provide(Collections.layer.pipe(Layer.provideMerge(Home.layer(dir)))))
  return dir
}).pipe(Effect.provide(NodeContext.layer), Effect.orDie)

/** Counts engine calls; `dieAfter` makes call number N (1-based) crash the process-like way (a defect). */
export interface CallCounter {
  calls: number
  readonly dieAfter?: number
  readonly failQuestion?: string
  /** Every call takes at least this long (a slow engine). */
  readonly delayMs?: number
}

const counted = <A, E>(counter: CallCounter, questionId: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    counter.calls += 1
    if (counter.dieAfter !== undefined && counter.calls >= counter.dieAfter) {
      return Effect.die(new Error("simulated crash"))
    }
    return counter.delayMs === undefined ? effect : Effect.zipRight(Effect.sleep(counter.delayMs), effect)
  }).pipe(Effect.tap(() => (counter.failQuestion === questionId ? Effect.dieMessage("never") : Effect.void)))

/** The real engine (extractive roles + FTS retriever over the sample) wrapped by a counting layer. */
export const countingEngine = (home: string, counter: CallCounter) =>
  Layer.mergeAll(
    Layer.effect(
      Retriever,
      Effect.map(Retriever, (inner) => ({ search: (r) => counted(counter, r.context.questionId, inner.search(r)) }))
    ),
    Layer.effect(
      NoteWriter,
      Effect.map(NoteWriter, (inner) => ({
        init: (i) => counted(counter, i.context.questionId, inner.init(i)),
        update: (i) => counted(counter, i.context.questionId, inner.update(i))
      }))
    ),
    Layer.effect(
      QueryPlanner,
      Effect.map(QueryPlanner, (inner) => ({ plan: (i) => counted(counter, i.context.questionId, inner.plan(i)) }))
    ),
    Layer.effect(
      Judge,
      Effect.map(Judge, (inner) => ({ compare: (i) => counted(counter, i.context.questionId, inner.compare(i)) }))
    ),
    Layer.effect(
      Answerer,
      Effect.map(Answerer, (inner) => ({ answer: (i) => counted(counter, i.context.questionId, inner.answer(i)) }))
    )
  ).pipe(
    Layer.provide(Layer.merge(Extractive.layer, FtsRetriever.layer({ collection: "sample" }))),
    Layer.provide(Collections.layer),
    Layer.provide(Home.layer(home))
  )
