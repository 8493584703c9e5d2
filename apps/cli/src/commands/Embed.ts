import { Embedder } from "@deepnote-rag/core"
import { embeddingsSettingsFromConfig, EmbeddingsSettingsSchema, HttpEmbedder } from "@deepnote-rag/llm"
import { Collections, type EmbedProgress, type EmbedSummary } from "@deepnote-rag/retrieval"
import { Args, Command, Options } from "@effect/cli"
import { Clock, Config, Console, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"
import { StandardStreams } from "../render/StandardStreams.js"
import { homeLayer, homeOption, jsonOption } from "./Common.js"

/** Refused when no embeddings server is configured. */
const noServer = "embedding needs an embeddings server: set DEEPNOTE_EMBEDDINGS_URL (an OpenAI-compatible " +
  "/v1/embeddings: vLLM with --task embed, or TEI) and DEEPNOTE_EMBEDDINGS_MODEL (see docs/dense-retrieval.md)"

export const renderEmbedSummary = (s: EmbedSummary): string =>
  `collection ${s.collection}: ${s.embedded} passages embedded with ${s.model} (${s.dimensions} dimensions) in ` +
  `${s.batches} requests; ${s.vectors} of ${s.documents} passages have vectors; ANN index ${s.annFile}` +
  `${s.rebuilt ? " (rebuilt from the stored vectors)" : ""} (${(s.ms / 1000).toFixed(1)} s)`

/** One line per committed batch at most every `intervalMs` (stderr), so a long embedding is never silent. */
const progressLines = (intervalMs: number) =>
  Effect.map(Effect.zip(Clock.currentTimeMillis, StandardStreams), ([started, streams]) => {
    let last = started
    return (p: EmbedProgress) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (now - last < intervalMs && p.embedded < p.pending) return Effect.void
        last = now
        const rate = p.embedded / Math.max((now - started) / 1000, 0.001)
        return Effect.sync(() =>
          streams.writeStderr(
            `embedding ${p.collection}: ${p.embedded}/${p.pending} passages · ${Math.round(rate)} passages/s\n`
          )
        )
      })
  })

/**
 * Embeds the passages of a collection that have no vector yet with the embeddings server of `DEEPNOTE_EMBEDDINGS_*`
 * (`deepnote embed`, `deepnote index --embed`): batched, each batch committed with its vectors, so an interrupted run
 * (Ctrl-C, kill -9) resumes without sending a finished batch again. Needs `Collections`.
 */
export const embedCollection = (collection: string, reset: boolean) =>
  Effect.gen(function*() {
    const settings = yield* embeddingsSettingsFromConfig.pipe(
      Effect.mapError((e) => new UsageError({ message: e.message }))
    )
    if (Option.isNone(settings)) return yield* new CommandFailed({ message: noServer })
    const layer = HttpEmbedder.layer(Schema.encodeSync(EmbeddingsSettingsSchema)(settings.value))
    const embedder = Context.get(yield* Layer.build(layer), Embedder)
    const interval = yield* Config.duration("DEEPNOTE_PROGRESS_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(10)),
      Effect.mapError((e) => new UsageError({ message: `DEEPNOTE_PROGRESS_INTERVAL: ${e.message}` }))
    )
    const onProgress = yield* progressLines(Duration.toMillis(interval))
    // as many requests in flight as the embeddings servers take (DEEPNOTE_EMBEDDINGS_CONCURRENCY per endpoint)
    const parallel = settings.value.concurrency * settings.value.endpoints.length
    return yield* (yield* Collections).embed(collection, embedder, { reset, onProgress, parallel }).pipe(
      Effect.mapError((e) =>
        e._tag === "InvalidCollectionName"
          ? new UsageError({ message: e.message })
          : new CommandFailed({ message: e.message })
      )
    )
  }).pipe(Effect.scoped)

const collection = Args.text({ name: "collection" }).pipe(Args.withDescription("the collection to embed"))
const reset = Options.boolean("reset").pipe(
  Options.withDescription("drop the stored vectors first and embed every passage again (another model or dimensions)")
)

/** `deepnote embed COLLECTION`: vectors for dense and hybrid retrieval (resumable). */
export const embedCommand = Command.make(
  "embed",
  { collection, reset, json: jsonOption, home: homeOption },
  (opts) =>
    Effect.gen(function*() {
      const summary = yield* embedCollection(opts.collection, opts.reset)
      yield* Console.log(opts.json ? JSON.stringify(summary, null, 2) : renderEmbedSummary(summary))
    }).pipe(Effect.provide(Collections.layer.pipe(Layer.provideMerge(homeLayer(opts.home)))))
).pipe(
  Command.withDescription(
    "Embed a collection's passages for --retriever dense|hybrid with the server of DEEPNOTE_EMBEDDINGS_URL " +
      "(batched and resumable: only passages without a vector are sent)."
  )
)
