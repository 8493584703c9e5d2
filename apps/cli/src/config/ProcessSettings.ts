import { describeConfigFailure } from "@deepnote-rag/core"
import { searchCacheLayer } from "@deepnote-rag/retrieval"
import { Layer } from "effect"
import { UsageError } from "../Errors.js"

/**
 * Settings of the whole `deepnote` process, read from the environment before its command runs: what retrieval keeps
 * between searches (`DEEPNOTE_SEARCH_CACHE_SCORES`, `DEEPNOTE_SEARCH_CACHE_PASSAGES`), shared by every collection the
 * process opens. A value that does not read is a usage error naming the variable.
 */
export const processSettings = searchCacheLayer.pipe(
  Layer.mapError((e) => new UsageError({ message: describeConfigFailure(e) }))
)
