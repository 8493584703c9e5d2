import { Home, type HomeService } from "@deepnote-rag/core"
import { Effect, Layer, Option } from "effect"
import { LlmCache } from "./LlmCache.js"
import { LlmClient } from "./LlmClient.js"
import { llmHttpClientLayer } from "./LlmHttp.js"
import { LlmSettings, type LlmSettingsData } from "./LlmSettings.js"
import * as LlmAnswerer from "./Roles/LlmAnswerer.js"
import * as LlmJudge from "./Roles/LlmJudge.js"
import * as LlmNoteWriter from "./Roles/LlmNoteWriter.js"
import * as LlmQueryPlanner from "./Roles/LlmQueryPlanner.js"
import { UsageLedger } from "./UsageLedger.js"

/**
 * Where the settings put the response cache: `cacheFile`, else `<home>/llm-cache.sqlite` (the `Home` in context, else
 * `./.deepnote`); `undefined` when the cache is off.
 */
export const cacheFile = (settings: LlmSettingsData, home: Option.Option<HomeService>): string | undefined =>
  settings.cache
    ? settings.cacheFile ?? LlmCache.fileIn(Option.getOrElse(home, () => Home.make(".deepnote")).root)
    : undefined

const cacheLayer = (file: string | undefined): Layer.Layer<LlmCache> => LlmCache.layer({ file })

const cache = Layer.unwrapEffect(
  Effect.map(
    Effect.all([LlmSettings, Effect.serviceOption(Home)]),
    ([settings, home]) => cacheLayer(cacheFile(settings, home))
  )
)

/** LlmClient + UsageLedger + LlmCache from the settings, over the pooled undici HttpClient. */
const client = LlmClient.layer.pipe(Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, cache, llmHttpClientLayer)))

/**
 * The client alone (no response cache), for a startup check before anything runs: `LlmClient.checkModels`, health.
 * Needs `LlmSettings`.
 */
export const clientLayer = LlmClient.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, cacheLayer(undefined), llmHttpClientLayer))
)

/**
 * The four core role tags over the `LlmClient` in context: what `layer` puts over the pooled client, and what tests and
 * benchmarks put over a client of their own (a fake server, a simulator with static sizing).
 */
export const rolesLayer = Layer.mergeAll(LlmNoteWriter.layer, LlmQueryPlanner.layer, LlmJudge.layer, LlmAnswerer.layer)

/**
 * The LLM engine: the four core role tags (NoteWriter, QueryPlanner, Judge, Answerer) backed by the LLM servers of
 * `LlmSettings`, with the LlmClient, UsageLedger, LlmCache and HttpClient they share (the client and the ledger stay
 * in the output, for status and usage reports). Reads `Home` when present, for the cache's default file.
 */
export const layer = rolesLayer.pipe(Layer.provideMerge(client))

/** The same, with the settings read from `Config` (`DEEPNOTE_LLM_URL`, …; see `LlmSettings.layerConfig`). */
export const layerConfig = layer.pipe(Layer.provide(LlmSettings.layerConfig))
