import { Config, type ConfigError, Context, Effect, Layer } from "effect"
import { defaultTermScoresLimits, type TermScoresLimits } from "./TermScoresMemory.js"

/**
 * How much one process keeps between searches, over all its open collections (`TermScoresMemory`): phrase scores and
 * passages, least recently used first out. `defaultTermScoresLimits` unless `searchCacheLayer` sets it from the
 * environment; `Collections` reads it when it is made.
 */
export class SearchCacheLimits extends Context.Reference<SearchCacheLimits>()(
  "@deepnote-rag/retrieval/SearchCacheLimits",
  { defaultValue: (): TermScoresLimits => defaultTermScoresLimits }
) {}

const count = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "Expected a whole number, 0 or more", validation: (n) => n >= 0 }),
    Config.withDefault(fallback)
  )

/**
 * `DEEPNOTE_SEARCH_CACHE_SCORES`: phrase scores kept (12 bytes each; default 1,000,000 ≈ 12 MB; 0 keeps none, and every
 * search runs FTS5's own query); `DEEPNOTE_SEARCH_CACHE_PASSAGES`: passages kept for result lists (default 5,000).
 * A large corpus whose frequent phrases match hundreds of thousands of passages needs more scores to keep them.
 */
export const searchCacheConfig: Config.Config<TermScoresLimits> = Config.all({
  budget: count("DEEPNOTE_SEARCH_CACHE_SCORES", defaultTermScoresLimits.budget),
  documents: count("DEEPNOTE_SEARCH_CACHE_PASSAGES", defaultTermScoresLimits.documents)
}).pipe(Config.map((set): TermScoresLimits => ({ ...defaultTermScoresLimits, ...set })))

/** `SearchCacheLimits` from the environment (`searchCacheConfig`). */
export const searchCacheLayer: Layer.Layer<SearchCacheLimits, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(searchCacheConfig, (limits) => Layer.succeed(SearchCacheLimits, limits))
)
