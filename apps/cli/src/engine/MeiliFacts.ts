import { MeiliClient, type MeiliOptions } from "@deepnote-rag/retrieval"
import type { MeiliTarget } from "@deepnote-rag/runs"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { CommandFailed } from "../Errors.js"

/**
 * Before a run over a Meilisearch index is created: the server answers, the index exists and the key may search it
 * (one empty search), else one clear line. Returns what the manifest records: the server without credentials, the
 * index and the server's version.
 */
export const meiliFacts = (options: MeiliOptions): Effect.Effect<MeiliTarget, CommandFailed> =>
  Effect.gen(function*() {
    const meili = yield* MeiliClient
    yield* meili.health
    yield* meili.search("", 1)
    // a search-only key may not read /version (HTTP 403): the run is recorded without the version then
    const version = yield* meili.version.pipe(
      Effect.map((v): string | undefined => v),
      Effect.catchIf((e) => e.status === 403, () => Effect.succeed(undefined))
    )
    return { ...meili.target, version }
  }).pipe(
    Effect.mapError((e) => new CommandFailed({ message: e.message })),
    Effect.provide(MeiliClient.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )
