import {
  chatChunkObject,
  chatCompletionObject,
  countChatTokens,
  parsePrompt,
  usageChunkObject
} from "@deepnote-rag/llm"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Queue, Stream } from "effect"
import { respond, roleOf, type SimStructured } from "../Content.js"
import { drawFor } from "../Sampling.js"
import type { SimState } from "../SimState.js"
import * as Generate from "./Generate.js"
import { ChatBody, messageText } from "./Wire.js"

const structuredOf = (body: ChatBody): SimStructured | undefined => {
  if (body.structured_outputs) return { choice: body.structured_outputs.choice, json: body.structured_outputs.json }
  if (body.guided_choice) return { choice: body.guided_choice }
  if (body.guided_json !== undefined) return { json: body.guided_json }
  if (body.response_format?.type === "json_schema") return { json: body.response_format.json_schema?.schema }
  return undefined
}

const usesStructured = (body: ChatBody) =>
  body.structured_outputs != null || body.guided_choice != null || body.guided_json != null ||
  body.response_format?.type === "json_schema"

/** `POST /v1/chat/completions`: plain JSON or SSE (`stream: true`, usage chunk with `stream_options.include_usage`). */
export const chatHandler = (state: SimState) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* Generate.decodeBody(ChatBody, "chat")
    if (HttpServerResponse.isServerResponse(body)) return body
    const role = Generate.noteRequest(state, request)
    if (!state.options.structuredOutputs && usesStructured(body)) {
      state.metrics.rejected++
      return Generate.jsonError(
        400,
        "structured outputs are not supported by this server (extra inputs are not permitted)"
      )
    }
    const messages = body.messages.map((m) => ({ role: m.role, content: messageText(m.content) }))
    const promptTokens = countChatTokens(messages)
    const maxTokens = body.max_tokens ?? 1024
    const fault = yield* Generate.admit(state, request, body.model ?? undefined, [promptTokens], maxTokens)
    if (HttpServerResponse.isServerResponse(fault)) return fault
    // the prompt as a chat template lays it out: role headers and contents, in order
    const templated = messages.map((m) => `<|${m.role}|>\n${m.content}\n`).join("")
    const cachedTokens = Generate.cachedPrefix(state, templated, promptTokens)
    const draw = drawFor(body, state.options.defaultTemperature, templated, state.unseeded)
    const prompt = parsePrompt(messages.filter((m) => m.role !== "system").map((m) => m.content).join("\n"))
    // the instructions: a `Task` section (shared-prefix layout) first, then the system message(s)
    const system = [prompt.task ?? "", ...messages.filter((m) => m.role === "system").map((m) => m.content)].join("\n")
    if (fault === "garbage") Generate.countFault(state, fault)
    const text = fault === "garbage"
      ? Generate.garbageReply
      : respond(state.engine, { role, system, prompt, structured: structuredOf(body), draw })
    const reasoning = Generate.reasoningPieces(state, roleOf(role, prompt), templated)
    const { finish, pieces: answer } = Generate.outputPieces(text, Math.max(1, maxTokens - reasoning.length))
    const pieces = [...reasoning, ...answer]
    const split = (all: ReadonlyArray<string>) => ({
      reasoning: all.slice(0, reasoning.length).join(""),
      content: all.slice(reasoning.length).join("")
    })
    const id = `chatcmpl-sim-${state.nextId++}`
    const created = Math.floor(Date.now() / 1000)
    const header = { id, created, model: Generate.modelOf(state, body.model) }
    const priority = body.priority ?? 0
    const usage = Generate.usageOf(state, promptTokens, pieces.length, cachedTokens)

    if (body.stream !== true) {
      if (fault === "malformed") {
        Generate.countFault(state, fault)
        return HttpServerResponse.text(
          `{"id":"${id}","object":"chat.completion","choices":[{"index":0,"message":{"content":`,
          { contentType: "application/json" }
        )
      }
      yield* Generate.generate(state, promptTokens, pieces, cachedTokens, priority)
      const message = {
        role: "assistant",
        content: split(pieces).content,
        ...(reasoning.length > 0 ? { reasoning_content: split(pieces).reasoning } : {})
      }
      return HttpServerResponse.unsafeJson(chatCompletionObject(header, message, finish, usage))
    }

    const chunk = (delta: Record<string, string>, finishReason: string | null) =>
      JSON.stringify(chatChunkObject(header, delta, finishReason))
    const queue = yield* Queue.unbounded<string | null>()
    const seq = {
      promptTokens,
      cachedTokens,
      priority,
      output: pieces,
      cancelled: false,
      onToken: (piece: string, index: number) => {
        const field = index < reasoning.length ? "reasoning_content" : "content"
        Queue.unsafeOffer(queue, chunk(index === 0 ? { role: "assistant", [field]: piece } : { [field]: piece }, null))
        if (fault === "malformed" && index === 0) Queue.unsafeOffer(queue, `{"choices":[{"delta":`)
      },
      onDone: () => {
        Queue.unsafeOffer(queue, chunk({}, finish))
        if (body.stream_options?.include_usage === true) {
          Queue.unsafeOffer(queue, JSON.stringify(usageChunkObject(header, usage)))
        }
        Queue.unsafeOffer(queue, "[DONE]")
        Queue.unsafeOffer(queue, null)
      }
    }
    if (fault === "malformed") Generate.countFault(state, fault)
    state.scheduler.unsafeSubmit(seq)
    const events = Stream.fromQueue(queue).pipe(
      Stream.takeWhile((x): x is string => x !== null),
      Stream.map((data) => `data: ${data}\n\n`),
      Stream.encodeText,
      Stream.ensuring(Effect.sync(() => {
        seq.cancelled = true
      }))
    )
    return HttpServerResponse.stream(events, {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache" }
    })
  })
