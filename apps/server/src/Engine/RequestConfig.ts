import { type ConfigPatch, ValidationError } from "@deepnote-rag/api"
import { retrieverOf, RunConfig, usesVectors } from "@deepnote-rag/core"
import { Effect, ParseResult, Schema } from "effect"
import { validationFromIssues } from "../Http/ErrorResponses.js"

const encode = Schema.encodeSync(RunConfig)
const decode = Schema.decodeUnknown(RunConfig, { errors: "all", onExcessProperty: "error" })

/**
 * A request's config: its knobs over the server's defaults, validated as a whole. The engine is the server's, and
 * the reranker endpoint is the operator's to choose (a request cannot point the server at a URL); `retriever:
 * meilisearch` only when the operator configured Meilisearch (`meilisearch`).
 */
export const resolveRequestConfig = (
  defaults: RunConfig,
  patch: ConfigPatch | undefined,
  field: string,
  meilisearch: boolean
) =>
  Effect.gen(function*() {
    if (patch?.retriever === "meilisearch" && !meilisearch) {
      return yield* ValidationError.of(
        `${field}.retriever: this server has no Meilisearch configured (the operator sets DEEPNOTE_MEILI_HOST)`,
        `${field}.retriever`
      )
    }
    if (patch === undefined) return defaults
    if (patch.engine !== undefined && patch.engine !== defaults.engine) {
      return yield* ValidationError.of(
        `${field}.engine: this server runs the ${defaults.engine} engine`,
        `${field}.engine`
      )
    }
    if (patch.rerankerUrl !== undefined) {
      return yield* ValidationError.of(
        `${field}.rerankerUrl: the reranker endpoint is set by the server operator`,
        `${field}.rerankerUrl`
      )
    }
    const base = encode(defaults)
    const roles = { ...base.roles }
    for (const [role, sampling] of Object.entries(patch.roles ?? {})) {
      roles[role as keyof typeof roles] = { ...roles[role as keyof typeof roles], ...sampling }
    }
    const merged = { ...base, ...patch, sampling: { ...base.sampling, ...patch.sampling }, roles }
    return yield* decode(merged).pipe(
      Effect.mapError((error) => validationFromIssues(ParseResult.ArrayFormatter.formatErrorSync(error), [field]))
    )
  })

/** Dense and hybrid retrieval need the operator's embeddings server: without one, such a request is a 400. */
export const requireEmbeddings = (dense: boolean, config: RunConfig, field: string) =>
  !usesVectors(config) || dense
    ? Effect.void
    : ValidationError.of(
      `${field}.retriever: this server has no embeddings server for ${retrieverOf(config)} retrieval (its operator ` +
        "sets DEEPNOTE_EMBEDDINGS_URL)",
      `${field}.retriever`
    )
