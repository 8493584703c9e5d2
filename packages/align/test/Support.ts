import { Home, Judge } from "@deepnote-rag/core"
import { loadDataset } from "@deepnote-rag/eval"
import { Extractive } from "@deepnote-rag/extractive"
import { Collections, FtsRetriever } from "@deepnote-rag/retrieval"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as ExtractiveRanker from "../src/Judging/ExtractiveRanker.js"

export const repoRoot = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
export const sampleQuestions = Path.join(repoRoot, "examples/sample/questions/hotpotqa.jsonl")
export const chineseQuestions = Path.join(repoRoot, "examples/sample/questions/cmrc2018.jsonl")
const sampleCorpus = [
  Path.join(repoRoot, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"),
  Path.join(repoRoot, "examples/sample/corpus/cmrc2018-paragraphs.jsonl")
]

/** A temp home with the sample corpus indexed as `sample` (real FTS5), removed with the scope. */
export const sampleHome = Effect.gen(function*() {
  const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "deepnote-align-" })
  yield* Effect.gen(function*() {
    const collections = yield* Collections
    yield* collections.index("sample", sampleCorpus)
  }).pipe(Effect.scoped, Effect.provide(Collections.layer.pipe(Layer.provide(Home.layer(dir)))))
  return dir
}).pipe(Effect.provide(NodeContext.layer), Effect.orDie)

/** The extractive judge, the offline group judge and a retriever over the sample: what an extractive align run uses. */
export const extractiveJudges = (home: string) =>
  Layer.mergeAll(
    Layer.effectContext(
      Effect.map(Extractive.make(), (roles) => Context.make(Judge, Judge.make(roles.judge)))
    ),
    ExtractiveRanker.layer,
    FtsRetriever.layer({ collection: "sample" }).pipe(
      Layer.provide(Collections.layer),
      Layer.provide(Home.layer(home))
    )
  )

export const questions = (path: string, limit: number) =>
  Effect.map(loadDataset(path, { limit }), (d) => d.questions).pipe(Effect.provide(NodeContext.layer), Effect.orDie)
