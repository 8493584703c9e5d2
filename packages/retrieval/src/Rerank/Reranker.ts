import { firstDecodeIssue, type RerankerApi } from "@deepnote-rag/core"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Config, type ConfigError, Context, Duration, Effect, Either, Layer, Option, Redacted, Schedule } from "effect"
import { endpointUrl, rerankApis, type RerankResult } from "./RerankApis.js"
import { isTransientStatus, RerankError } from "./RerankError.js"

/** Where and how to rerank: from `RunConfig.rerankerApi`, `rerankerUrl` and `rerankerModel`. */
export interface RerankTarget {
  readonly api: RerankerApi
  readonly url: string
  readonly model: string | undefined
}

export interface RerankerOptions {
  /** Time limit of one attempt. Default 30 s. */
  readonly timeout?: Duration.DurationInput
  /** Retries of transient failures. Default 3. */
  readonly retries?: number
  /** First backoff delay (exponential, jittered). Default 200 ms. */
  readonly backoff?: Duration.DurationInput
  /** Sent as `Authorization: Bearer …` (Cohere, secured vLLM). */
  readonly apiKey?: Redacted.Redacted | undefined
}

/** A cross-encoder reranker over HTTP: vLLM `/v1/rerank` and `/score`, TEI `/rerank`, Cohere-compatible `/v1/rerank`. */
export interface RerankerService {
  /** Scores documents against the query; returns the best `topN` as (index into documents, score), best first. */
  readonly rerank: (
    target: RerankTarget,
    query: string,
    documents: ReadonlyArray<string>,
    topN: number
  ) => Effect.Effect<ReadonlyArray<RerankResult>, RerankError>
}

const make = (options: RerankerOptions): Effect.Effect<RerankerService, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const timeout = Duration.decode(options.timeout ?? "30 seconds")
    const policy = Schedule.exponential(options.backoff ?? "200 millis").pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(options.retries ?? 3))
    )
    const readReply = (url: string) => (response: HttpClientResponse.HttpClientResponse) =>
      response.status >= 200 && response.status < 300
        ? response.json
        : Effect.flatMap(response.text, (body) =>
          Effect.fail(
            new RerankError({
              url,
              status: response.status,
              transient: isTransientStatus(response.status),
              message: `rerank server replied HTTP ${response.status}: ${body.slice(0, 300)}`
            })
          ))

    const rerank = Effect.fn("Reranker.rerank")(function*(
      target: RerankTarget,
      query: string,
      documents: ReadonlyArray<string>,
      topN: number
    ) {
      if (documents.length === 0) return []
      const spec = rerankApis[target.api]
      const url = endpointUrl(target.url, spec.path)
      yield* Effect.annotateCurrentSpan({
        "deepnote.rerank.api": target.api,
        "deepnote.rerank.documents": documents.length
      })
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyUnsafeJson(spec.body({ model: target.model, query, documents, topN })),
        options.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(Redacted.value(options.apiKey))
      )
      const json = yield* client.execute(request).pipe(
        Effect.flatMap(readReply(url)),
        Effect.catchTags({
          RequestError: (cause) =>
            Effect.fail(
              new RerankError({ url, transient: true, message: `rerank request failed: ${cause.message}`, cause })
            ),
          ResponseError: (cause) =>
            Effect.fail(
              new RerankError({
                url,
                status: cause.response.status,
                transient: cause.reason !== "Decode",
                message: cause.reason === "Decode" ? `malformed rerank reply (not JSON) from ${url}` : cause.message,
                cause
              })
            )
        }),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new RerankError({ url, transient: true, message: `no rerank reply within ${Duration.format(timeout)}` })
        }),
        Effect.retry({ schedule: policy, while: (e) => e.transient })
      )
      const decoded = spec.decode(json)
      if (Either.isLeft(decoded)) {
        return yield* new RerankError({
          url,
          transient: false,
          message: `malformed ${target.api} rerank reply from ${url}: ${firstDecodeIssue(decoded.left, "reply")}`
        })
      }
      const bad = decoded.right.find((r) => r.index >= documents.length)
      if (bad !== undefined) {
        return yield* new RerankError({
          url,
          transient: false,
          message: `malformed rerank reply: index ${bad.index} out of ${documents.length} documents`
        })
      }
      return [...decoded.right].sort((a, b) => b.score - a.score).slice(0, topN)
    })
    return Reranker.of({ rerank })
  })

export class Reranker extends Context.Tag("@deepnote-rag/retrieval/Reranker")<Reranker, RerankerService>() {
  /** Builds the reranker over the `HttpClient` in context (a pooled undici one, e.g. `NodeHttpClient.layerUndici`). */
  static readonly make = make

  /** The live reranker; options default to a 30 s attempt timeout, 3 retries and a 200 ms first backoff. */
  static readonly layer = (options: RerankerOptions = {}): Layer.Layer<Reranker, never, HttpClient.HttpClient> =>
    Layer.effect(Reranker, Reranker.make(options))

  /**
   * Options from `DEEPNOTE_RERANKER_API_KEY`, `DEEPNOTE_RERANKER_TIMEOUT_MS` (30000) and `DEEPNOTE_RERANKER_RETRIES`
   * (3).
   */
  static readonly layerConfig: Layer.Layer<Reranker, ConfigError.ConfigError, HttpClient.HttpClient> = Layer
    .unwrapEffect(
      Effect.gen(function*() {
        const apiKey = yield* Config.option(Config.redacted("DEEPNOTE_RERANKER_API_KEY"))
        const timeoutMs = yield* Config.integer("DEEPNOTE_RERANKER_TIMEOUT_MS").pipe(Config.withDefault(30_000))
        const retries = yield* Config.integer("DEEPNOTE_RERANKER_RETRIES").pipe(Config.withDefault(3))
        return Reranker.layer({ apiKey: Option.getOrUndefined(apiKey), timeout: Duration.millis(timeoutMs), retries })
      })
    )
}
