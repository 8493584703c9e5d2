import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Layer } from "effect"

/** What a fake server answers a chat call of a role with (by the `x-deepnote-role` header). */
const replies: Record<string, string> = {
  init: "Jaws is a 1975 film directed by Steven Spielberg.",
  update: "Jaws is a 1975 film directed by Steven Spielberg, born in Cincinnati.",
  plan: "{\"queries\": [\"Steven Spielberg birthplace\"]}",
  judge: "False",
  answer: "Steven Spielberg"
}

/**
 * The next turn of the event loop, as a reply over a socket would come: a loop of thousands of calls to this server
 * lets Node's I/O through between them (beside a CPU hog, 2,000 questions answered within one turn held a Vitest worker
 * 85 s, in which it read none of Vitest's replies: "Timeout calling onTaskUpdate").
 */
const nextTurn = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })

/**
 * An in-process OpenAI-compatible server behind an `HttpClient` (no sockets): `/health`, `/v1/models`, and chat
 * completions that answer each role with a fixed, well-formed reply and report usage. For tests that exercise the
 * whole client (pool, retries, ledger, roles) thousands of times, cheaply.
 */
export const fakeServer = (
  model = "fake-model",
  options: {
    /** Answer a non-zero `priority` as vLLM V0 does under fcfs (400), recording every body seen. */
    readonly refusePriority?: boolean
    readonly bodies?: Array<Record<string, unknown>>
  } = {}
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request, url) =>
      Effect.zipRight(
        nextTurn,
        Effect.sync(() => {
          const body = request.body._tag === "Uint8Array"
            ? JSON.parse(new TextDecoder().decode(request.body.body)) as Record<string, unknown>
            : undefined
          if (body !== undefined) options.bodies?.push(body)
          if (options.refusePriority === true && typeof body?.["priority"] === "number" && body["priority"] !== 0) {
            return HttpClientResponse.fromWeb(
              request,
              new Response(
                JSON.stringify({
                  error: { message: `Got priority ${body["priority"]} but Priority scheduling is not enabled.` }
                }),
                { status: 400 }
              )
            )
          }
          if (url.pathname === "/health") return HttpClientResponse.fromWeb(request, new Response(""))
          if (url.pathname === "/v1/models") {
            return HttpClientResponse.fromWeb(request, json({ data: [{ id: model, max_model_len: 8192 }] }))
          }
          const content = replies[request.headers["x-deepnote-role"] ?? ""] ?? "?"
          return HttpClientResponse.fromWeb(
            request,
            json({
              model,
              choices: [{ message: { content }, finish_reason: "stop" }],
              usage: { prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 40 } }
            })
          )
        })
      )
    )
  )
