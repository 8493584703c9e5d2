import { countTokens, parsePrompt } from "@deepnote-rag/llm"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { respond } from "../Content.js"
import { drawFor } from "../Sampling.js"
import type { SimState } from "../SimState.js"
import * as Generate from "./Generate.js"
import { CompletionBody } from "./Wire.js"

/** The instructions of a raw prompt: whatever precedes its first `### ` section. */
const instructionsOf = (prompt: string) => prompt.split(/\n### /)[0] ?? ""

/**
 * `POST /v1/completions`: `prompt` is a string or a list; each prompt runs as its own sequence (as in vLLM) and the
 * reply holds one choice per prompt, by index, when the slowest is done.
 */
export const completionsHandler = (state: SimState) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* Generate.decodeBody(CompletionBody, "completion")
    if (HttpServerResponse.isServerResponse(body)) return body
    const role = Generate.noteRequest(state, request)
    const prompts = typeof body.prompt === "string" ? [body.prompt] : body.prompt
    if (prompts.length === 0) return Generate.jsonError(400, "prompt must not be empty")
    const maxTokens = body.max_tokens ?? 16
    const promptTokens = prompts.map(countTokens)
    const fault = yield* Generate.admit(state, request, body.model ?? undefined, promptTokens, maxTokens)
    if (HttpServerResponse.isServerResponse(fault)) return fault
    if (fault === "malformed") {
      Generate.countFault(state, fault)
      return HttpServerResponse.text(`{"object":"text_completion","choices":[{"index":0,"text":`, {
        contentType: "application/json"
      })
    }
    if (fault === "garbage") Generate.countFault(state, fault)
    const outputs = prompts.map((p) => {
      const prompt = parsePrompt(p)
      const text = fault === "garbage"
        ? Generate.garbageReply
        : respond(state.engine, {
          role,
          system: [prompt.task ?? "", instructionsOf(p)].join("\n"),
          prompt,
          structured: undefined,
          draw: drawFor(body, state.options.defaultTemperature, p, state.unseeded)
        })
      return Generate.outputPieces(text, maxTokens)
    })
    const cached = prompts.map((p, i) => Generate.cachedPrefix(state, p, promptTokens[i]!))
    yield* Effect.forEach(
      outputs,
      (o, i) => Generate.generate(state, promptTokens[i]!, o.pieces, cached[i], body.priority ?? 0),
      {
        concurrency: "unbounded",
        discard: true
      }
    )
    return HttpServerResponse.unsafeJson({
      id: `cmpl-sim-${state.nextId++}`,
      object: "text_completion",
      created: Math.floor(Date.now() / 1000),
      model: Generate.modelOf(state, body.model),
      choices: outputs.map((o, index) => ({ index, text: o.pieces.join(""), finish_reason: o.finish, logprobs: null })),
      usage: Generate.usageOf(
        state,
        promptTokens.reduce((n, t) => n + t, 0),
        outputs.reduce((n, o) => n + o.pieces.length, 0),
        cached.reduce((n, c) => n + c, 0)
      )
    })
  })
