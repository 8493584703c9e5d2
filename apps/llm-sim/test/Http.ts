import { httpClientLayer } from "@deepnote-rag/llm"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert } from "@effect/vitest"
import { Effect, Schema } from "effect"

export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** One HTTP exchange with the simulator over a real socket (a fresh small pool per call, closed with it). */
export const send = (method: "GET" | "POST", url: string, body?: unknown, headers: Record<string, string> = {}) =>
  Effect.scoped(
    Effect.flatMap(HttpClient.HttpClient, (http) => {
      const base = method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url)
      const request = base.pipe(
        HttpClientRequest.setHeaders(headers),
        body === undefined ? (r) => r : HttpClientRequest.bodyUnsafeJson(body)
      )
      return http.execute(request).pipe(
        Effect.flatMap((r) => Effect.map(r.text, (text): Reply => ({ status: r.status, headers: r.headers, text })))
      )
    })
  ).pipe(Effect.provide(httpClientLayer({ connections: 2 })), Effect.orDie)

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send("POST", url, body, headers)

/** A reply body as JSON (a test failure, not a crash, when it is not). */
export const json = (reply: { readonly text: string }): unknown =>
  Schema.decodeUnknownSync(Schema.parseJson())(reply.text)

const ChatReply = Schema.Struct({
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({ message: Schema.Struct({ content: Schema.String }) }))
})

/** The content of a plain chat reply. */
export const chatContent = (reply: Reply): string => {
  assert.strictEqual(reply.status, 200, reply.text)
  return Schema.decodeUnknownSync(Schema.parseJson(ChatReply))(reply.text).choices[0]?.message.content ?? ""
}

const Chunk = Schema.Struct({
  choices: Schema.Array(Schema.Struct({ delta: Schema.Struct({ content: Schema.optional(Schema.String) }) }))
})

/** The content of an SSE chat reply: its `content` deltas joined, in order. */
export const streamedContent = (reply: Reply): string =>
  reply.text
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => Schema.decodeUnknownSync(Schema.parseJson(Chunk))(line.slice(6)).choices[0]?.delta.content ?? "")
    .join("")

/** A chat request body for the role prompts of `Prompts.ts`. */
export const chatBody = (system: string, user: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: "system", content: system }, { role: "user", content: user }],
  ...extra
})

/** Waits (polling every 5 ms) until `condition` holds; the test's own timeout bounds it. */
export const eventually = (condition: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() => condition() ? Effect.void : Effect.zipRight(Effect.sleep("5 millis"), eventually(condition)))
