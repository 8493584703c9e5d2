import { Home } from "@deepnote/core"
import { Effect, Layer, Option } from "effect"
import { LlmCache } from "./LlmCache.js"
import { LlmClient } from "./LlmClient.js"
import { llmHttpClientLayer } from "./LlmHttp.js"
import { LlmSettings } from "./LlmSettings.js"
import { LlmAnswerer } from "./Roles/LlmAnswerer.js"
import { LlmJudge } from "./Roles/LlmJudge.js"
import { LlmNoteWriter } from "./Roles/LlmNoteWriter.js"
import { LlmQueryPlanner } from "./Roles/LlmQueryPlanner.js"
import { UsageLedger } from "./UsageLedger.js"

/** The cache the settings ask for: SQLite at `cacheFile`, else in the home (else `./.deepnote`), or off. */
export const cacheFromSettings = Layer.unwrapEffect(Effect.gen(function*() {
  const settings = yield* LlmSettings
  if (!settings.cache) return LlmCache.layer({ file: undefined })
  const home = yield* Effect.serviceOption(Home)
  const root = Option.getOrElse(Option.map(home, (h) => h.root), () => Home.make(".deepnote").root)
  return LlmCache.layer({ file: settings.cacheFile ?? LlmCache.fileIn(root) })
}))

/** LlmClient + UsageLedger + LlmCache from the settings, over the pooled undici HttpClient. */
const clientStack = LlmClient.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, cacheFromSettings, llmHttpClientLayer))
)

const roles = Layer.mergeAll(LlmNoteWriter, LlmQueryPlanner, LlmJudge, LlmAnswerer)

/**
 * The LLM engine: the four core role tags (NoteWriter, QueryPlanner, Judge, Answerer) backed by an LLM server.
 * - `layerRoles`: the roles over an LlmClient and UsageLedger already in context (tests, custom stacks);
 * - `layer`: roles + LlmClient + UsageLedger + LlmCache + HttpClient from `LlmSettings` (and `Home` when present);
 * - `layerConfig`: the same with the settings read from `Config` (`DEEPNOTE_LLM_URL`, …).
 */
export const LlmEngine = {
  layerRoles: roles,
  layer: roles.pipe(Layer.provideMerge(clientStack)),
  layerConfig: roles.pipe(Layer.provideMerge(clientStack), Layer.provide(LlmSettings.layerConfig))
} as const
