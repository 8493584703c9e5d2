import { splitTokens } from "@deepnote-rag/llm"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, type Schema } from "effect"
import { hash32 } from "../Sampling.js"
import type { FaultKind } from "../SimOptions.js"
import type { SimState } from "../SimState.js"
import { errorBody } from "./Wire.js"

export const jsonError = (status: number, message: string, type?: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(errorBody(status, message, type), { status, headers })

/** Decodes a request body; a failure is the 400 vLLM sends for an invalid request (`what`: the kind of request). */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, what: string) =>
  Effect.either(HttpServerRequest.schemaBodyJson(schema)).pipe(
    Effect.map((decoded) =>
      decoded._tag === "Left" ? jsonError(400, `invalid ${what} request: ${decoded.left.message}`) : decoded.right
    )
  )

/** Checks that every generation request passes: auth, model, context length. A response means "reject" (counted). */
export const validate = (
  state: SimState,
  request: HttpServerRequest.HttpServerRequest,
  model: string | undefined,
  promptTokens: number,
  maxTokens: number
): HttpServerResponse.HttpServerResponse | undefined => {
  const refusal = accessRefusal(state, request, model) ??
    lengthRefusal(state.options.maxModelLen, promptTokens, maxTokens)
  if (refusal !== undefined) state.metrics.rejected++
  return refusal
}

const lengthRefusal = (maxModelLen: number, promptTokens: number, maxTokens: number) =>
  promptTokens + maxTokens > maxModelLen
    ? jsonError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${
        promptTokens + maxTokens
      } tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`
    )
    : undefined

/** Auth and model checks, shared by every /v1 route: 401 on a wrong key, 404 on a model not served. */
export const accessRefusal = (
  state: SimState,
  request: HttpServerRequest.HttpServerRequest,
  model: string | undefined
): HttpServerResponse.HttpServerResponse | undefined => {
  const key = state.options.apiKey
  if (key !== undefined && request.headers["authorization"] !== `Bearer ${key}`) {
    return jsonError(401, "Unauthorized", "AuthenticationError")
  }
  if (model !== undefined && !state.models.includes(model)) {
    return jsonError(404, `The model \`${model}\` does not exist.`, "NotFoundError")
  }
  return undefined
}

/** The model a reply names: the one asked for (vLLM echoes it), else the first served. */
export const modelOf = (state: SimState, requested: string | null | undefined): string => requested ?? state.models[0]

/** Records who called (role header, traceparent) and counts the request. */
export const noteRequest = (state: SimState, request: HttpServerRequest.HttpServerRequest) => {
  const m = state.metrics
  m.requests++
  const role = request.headers["x-deepnote-role"]
  m.lastRole = role
  m.lastTraceparent = request.headers["traceparent"]
  if (role !== undefined) m.byRole[role] = (m.byRole[role] ?? 0) + 1
  return role
}

/**
 * The early faults: 429 or 529 with Retry-After, 503, a stall (never answers; ends when the client gives up) or a
 * dropped connection (socket destroyed). `malformed` and `garbage` are applied by the handlers to the reply itself.
 */
export const earlyFault = (
  state: SimState,
  request: HttpServerRequest.HttpServerRequest,
  fault: FaultKind | undefined
) => {
  if (fault === undefined || fault === "malformed" || fault === "garbage") return undefined
  state.metrics.faults[fault] = (state.metrics.faults[fault] ?? 0) + 1
  switch (fault) {
    case "429":
      return Effect.succeed(
        jsonError(429, "Too many requests", "RateLimitError", {
          "retry-after": String(state.options.retryAfterSeconds)
        })
      )
    case "503":
      return Effect.succeed(jsonError(503, "Service unavailable", "ServiceUnavailableError"))
    case "529":
      return Effect.succeed(
        jsonError(529, "The server is overloaded, please try again later.", "OverloadedError", {
          "retry-after": String(state.options.retryAfterSeconds)
        })
      )
    case "stall":
      return Effect.never
    case "drop":
      return Effect.zipRight(
        Effect.sync(() => NodeHttpServerRequest.toIncomingMessage(request).socket.destroy()),
        Effect.never
      )
  }
}

/**
 * The gate every generation request passes once decoded: each prompt is validated (`validate`), then the request's
 * fault is drawn and an early one applied (`earlyFault`). A response ends the request there; otherwise the fault the
 * reply itself is to carry (`malformed`, `garbage`), if any.
 */
export const admit = (
  state: SimState,
  request: HttpServerRequest.HttpServerRequest,
  model: string | undefined,
  promptTokens: ReadonlyArray<number>,
  maxTokens: number
) =>
  Effect.gen(function*() {
    for (const n of promptTokens) {
      const invalid = validate(state, request, model, n, maxTokens)
      if (invalid !== undefined) return invalid
    }
    const fault = state.faults.next()
    const early = earlyFault(state, request, fault)
    if (early !== undefined) return yield* early
    return fault
  })

export const countFault = (state: SimState, fault: FaultKind) => {
  state.metrics.faults[fault] = (state.metrics.faults[fault] ?? 0) + 1
}

export const garbageReply = "¯\\_(ツ)_/¯ maybe"

/** The reply's token pieces, cut at max_tokens (finish "length"); an empty reply still takes one step (EOS). */
export const outputPieces = (
  text: string,
  maxTokens: number
): { readonly pieces: ReadonlyArray<string>; readonly finish: "stop" | "length" } => {
  const all = splitTokens(text)
  if (all.length === 0) return { pieces: [""], finish: "stop" }
  return all.length > maxTokens
    ? { pieces: all.slice(0, maxTokens), finish: "length" }
    : { pieces: all, finish: "stop" }
}

/**
 * A reasoning part of exponentially distributed length, one token per piece. Its mean is the role's entry in
 * `reasoningMeanTokensByRole`, else `reasoningMeanTokens`; drawn per `reasoningDraw`. (Exponential: production traces of language models fit
 * output lengths that way, e.g. ServeGen, arXiv 2505.09999.)
 */
export const reasoningPieces = (state: SimState, role: string, prompt: string): ReadonlyArray<string> => {
  const byRole: Partial<Record<string, number>> = state.options.reasoningMeanTokensByRole
  const mean = byRole[role] ?? state.options.reasoningMeanTokens
  if (mean <= 0) return []
  const u = state.options.reasoningDraw === "prompt"
    ? (hash32(`${state.options.faultSeed}\u0000${prompt}`) + 0.5) / 2 ** 32
    : state.random()
  const n = Math.round(-mean * Math.log(1 - u))
  return Array.from({ length: n }, (_, i) => (i === 0 ? "Let" : " hmm"))
}

/**
 * Looks a prompt up in the prefix cache (and caches it): the leading tokens that need no prefill, counted in the
 * `vllm:prefix_cache_*` metrics. 0 with prefix caching off.
 */
export const cachedPrefix = (state: SimState, promptText: string, promptTokens: number): number => {
  if (state.prefixCache === undefined) return 0
  const cached = state.prefixCache.admit(promptText, promptTokens)
  state.metrics.prefixCacheQueries += promptTokens
  state.metrics.prefixCacheHits += cached
  return cached
}

/** A reply's `usage` as vLLM reports it: the token counts and, with prefix caching on, `prompt_tokens_details`. */
export const usageOf = (state: SimState, promptTokens: number, completionTokens: number, cachedTokens: number) => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
  ...(state.prefixCache === undefined ? {} : { prompt_tokens_details: { cached_tokens: cachedTokens } })
})

/**
 * Runs one sequence through the scheduler; resolves when its last token is out (prefill-only work, with no pieces,
 * when its prompt is in).
 */
export const generate = (
  state: SimState,
  promptTokens: number,
  pieces: ReadonlyArray<string>,
  cachedTokens = 0,
  priority = 0
) =>
  Effect.async<void>((resume) => {
    const seq = {
      promptTokens,
      cachedTokens,
      priority,
      output: pieces,
      onToken: () => {},
      onDone: () => resume(Effect.void),
      cancelled: false
    }
    state.scheduler.unsafeSubmit(seq)
    return Effect.sync(() => {
      seq.cancelled = true
    })
  })
