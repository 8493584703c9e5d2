import { errorMessage, profiles, withoutCredentials } from "@deepnote-rag/core"
import { Engine } from "@deepnote-rag/engine"
import type { LlmSettings } from "@deepnote-rag/llm"
import { Collections, type MeiliOptions } from "@deepnote-rag/retrieval"
import type { Run } from "@deepnote-rag/store"
import { type ConfigError, Effect, Either, Layer, Option, Scope } from "effect"
import type { EngineServices } from "../Executor/EngineServices.js"
import { collectionOf, meiliTargetOf } from "../RunSetup.js"
import type { WorkerOptions } from "./WorkerOptions.js"

/**
 * The engines a queue worker answers any run's questions with: the roles of each engine kind are built once (one LLM
 * client pool for every run, not one per run) and each run gets a retriever over its collection. A run this process
 * cannot serve is refused, with the reason: its engine is unavailable here (no LLM servers configured, bad settings),
 * its collection is missing here, or this machine's copy of the collection differs from the run's (by fingerprint); a
 * run over a Meilisearch index, when this process searches another index (or server).
 */
export const makeWorkerEngines = <E>(
  llm: Layer.Layer<LlmSettings, E>,
  options: {
    /** An engine already built by this process (the HTTP app's), used for its kind instead of building another. */
    readonly shared?: Pick<Engine.Shared, "engine" | "layerFor"> | undefined
    /** The Meilisearch index this process searches for `retriever: meilisearch` runs; none: it refuses them. */
    readonly meili?: MeiliOptions | undefined
  } = {}
): Effect.Effect<Pick<WorkerOptions, "engineFor" | "refuse">, never, Collections | Scope.Scope> =>
  Effect.gen(function*() {
    const collections = yield* Collections
    const scope = yield* Effect.scope
    const build = (
      engine: Engine.Name
    ): Effect.Effect<Either.Either<Pick<Engine.Shared, "layerFor">, E | ConfigError.ConfigError>> =>
      options.shared !== undefined && options.shared.engine === engine
        ? Effect.succeed(Either.right(options.shared))
        : Engine.make({ engine, llm, meili: options.meili }).pipe(
          Effect.provideService(Collections, collections),
          Scope.extend(scope),
          Effect.either
        )
    const extractive = yield* Effect.cached(build("extractive"))
    const llmEngine = yield* Effect.cached(build("llm"))
    const sharedFor = (name: Engine.Name) => (name === "llm" ? llmEngine : extractive)

    const engineFor = (run: Run): Layer.Layer<EngineServices, unknown> =>
      Layer.unwrapEffect(
        Effect.flatMap(sharedFor(run.manifest.config.engine), (shared) =>
          Either.match(shared, {
            onLeft: (error) => Effect.fail(error),
            onRight: (engine) => Effect.succeed(engine.layerFor(run.manifest.config, collectionOf(run)))
          }))
      )

    const refuse = (run: Run): Effect.Effect<Option.Option<string>> =>
      Effect.gen(function*() {
        const config = run.manifest.config
        const shared = yield* sharedFor(config.engine)
        if (Either.isLeft(shared)) {
          return Option.some(`its engine (${config.engine}) cannot start here: ${errorMessage(shared.left)}`)
        }
        if (!profiles[config.profile].retrieves) return Option.none()
        if (config.retriever === "meilisearch") return meiliRefusal(run)
        const name = collectionOf(run)
        const known = yield* collections.list
        if (!known.includes(name)) {
          return Option.some(`the collection "${name}" is not on this machine (copy its file into <home>/collections)`)
        }
        const expected = run.manifest.collectionFingerprint
        if (expected === undefined) return Option.none()
        const here = yield* collections.fingerprint(name).pipe(Effect.either)
        if (Either.isLeft(here)) {
          return Option.some(`the collection "${name}" cannot be read here: ${here.left.message}`)
        }
        return here.right === expected ? Option.none() : Option.some(
          `this machine's copy of collection "${name}" differs from the run's (${here.right.slice(0, 19)}… here, ` +
            `${expected.slice(0, 19)}… in the run): copy the collection file the run was made with`
        )
      })

    /** One run is never answered from two indexes: a worker searching another Meilisearch index leaves its jobs. */
    const meiliRefusal = (run: Run): Option.Option<string> => {
      const here = options.meili
      if (here === undefined) return Option.some("no Meilisearch is configured here (DEEPNOTE_MEILI_HOST)")
      return Option.flatMap(
        meiliTargetOf(run),
        (recorded) =>
          here.index === recorded.index && withoutCredentials(here.host) === recorded.host
            ? Option.none()
            : Option.some(
              `this process searches Meilisearch index ${here.index} at ${
                withoutCredentials(here.host)
              }, the run index ${recorded.index} at ${recorded.host}`
            )
      )
    }

    return { engineFor, refuse }
  })
