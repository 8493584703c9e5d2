import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { baseUrl, homeWithTenant, portServer, settings } from "./Harness.js"

interface Row {
  readonly name: string
  readonly method: string
  readonly path: string
  /** A string body, or `chunked` bytes sent without Content-Length. */
  readonly body?: string | { readonly chunked: number }
  readonly headers?: Record<string, string>
  /** Send no API key. */
  readonly anonymous?: boolean
  readonly status: number
  readonly code: string
  /** The error's `field`, when it names one. */
  readonly field?: string
  readonly message?: RegExp
  /** The `Allow` header the response carries. */
  readonly allow?: string
}

const json = { "content-type": "application/json" }
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`
const ask = (body: unknown) => JSON.stringify(body)

/** Every row: one bad request → its status and error code (and field). */
const rows: ReadonlyArray<Row> = [
  {
    name: "JSON nested 100,000 deep",
    method: "POST",
    path: "/v1/ask",
    body: `{"question":${deep(100_000)}}`,
    headers: json,
    status: 400,
    code: "validation_error",
    message: /nested deeper than/
  },
  {
    name: "a misspelled config key",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q", collection: "wiki", config: { max_step: 1 } }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "config.max_step"
  },
  {
    name: "an unknown top-level key",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q", colection: "wiki" }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "colection"
  },
  {
    name: "a knob out of range",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q", collection: "wiki", config: { maxStep: 0 } }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "config.maxStep",
    // the rule alone: not "(and 2 more issues)" for the optional field's and its object's "Expected undefined"
    message: /^config\.maxStep: maxStep must be a positive integer$/
  },
  {
    name: "no question",
    method: "POST",
    path: "/v1/ask",
    body: ask({ collection: "wiki" }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "question"
  },
  {
    name: "not JSON",
    method: "POST",
    path: "/v1/ask",
    body: "{\"question\": ",
    headers: json,
    status: 400,
    code: "malformed_body"
  },
  {
    name: "an over-limit body with Content-Length",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "x".repeat(300 * 1024) }),
    headers: json,
    status: 413,
    code: "payload_too_large"
  },
  {
    name: "an over-limit chunked body",
    method: "POST",
    path: "/v1/ask",
    body: { chunked: 2 * 1024 * 1024 },
    headers: json,
    status: 413,
    code: "payload_too_large"
  },
  {
    name: "an over-limit chunked upload",
    method: "POST",
    path: "/v1/collections/wiki/documents",
    body: { chunked: 2 * 1024 * 1024 },
    headers: { "content-type": "application/x-ndjson" },
    status: 413,
    code: "payload_too_large"
  },
  {
    name: "a binary upload",
    method: "POST",
    path: "/v1/collections/wiki/documents",
    body: "{\"t\u0000\u0001",
    headers: { "content-type": "application/x-ndjson" },
    status: 400,
    code: "validation_error",
    message: /not UTF-8 text/
  },
  {
    name: "an unknown collection",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q", collection: "nope" }),
    headers: json,
    status: 404,
    code: "not_found"
  },
  {
    name: "a run with concurrency 0",
    method: "POST",
    path: "/v1/runs",
    body: ask({ collection: "wiki", jsonl: "{\"id\":\"1\",\"question\":\"q\"}", concurrency: 0 }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "concurrency"
  },
  {
    name: "a run without questions",
    method: "POST",
    path: "/v1/runs",
    body: ask({ collection: "wiki" }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "jsonl",
    message: /the body has neither/
  },
  {
    name: "a run with questions twice",
    method: "POST",
    path: "/v1/runs",
    body: ask({ collection: "wiki", jsonl: "{\"id\":\"1\",\"question\":\"q\"}", datasetPath: "q.jsonl" }),
    headers: json,
    status: 400,
    code: "validation_error",
    field: "datasetPath",
    message: /not both/
  },
  { name: "an unknown run", method: "GET", path: "/v1/runs/r-nope", status: 404, code: "not_found" },
  { name: "an unknown route", method: "GET", path: "/v1/nowhere", status: 404, code: "not_found" },
  {
    name: "a known path with a method it does not take",
    method: "PUT",
    path: "/v1/runs?limit=3",
    body: ask({}),
    headers: json,
    status: 405,
    code: "method_not_allowed",
    message: /^PUT is not allowed on \/v1\/runs \(it takes GET, HEAD, POST\)$/,
    allow: "GET, HEAD, POST"
  },
  {
    name: "a run's path with DELETE",
    method: "DELETE",
    path: "/v1/runs/r-nope",
    status: 405,
    code: "method_not_allowed",
    allow: "GET, HEAD"
  },
  {
    name: "GET on OpenAI's chat completions (its error shape)",
    method: "GET",
    path: "/v1/chat/completions",
    status: 405,
    code: "method_not_allowed",
    message: /it takes POST/,
    allow: "POST"
  },
  {
    name: "no API key",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q" }),
    headers: json,
    anonymous: true,
    status: 401,
    code: "unauthorized"
  },
  {
    name: "a wrong API key",
    method: "POST",
    path: "/v1/ask",
    body: ask({ question: "q" }),
    headers: { ...json, authorization: "Bearer dn_wrong" },
    status: 401,
    code: "unauthorized"
  }
]

const send = (base: string, key: string, row: Row) =>
  Effect.async<
    { readonly status: number; readonly text: string; readonly headers: Http.IncomingHttpHeaders },
    Error
  >((resume) => {
    const headers: Record<string, string> = {
      ...(row.anonymous === true ? {} : { authorization: `Bearer ${key}` }),
      ...row.headers
    }
    const request = Http.request(`${base}${row.path}`, { method: row.method, headers }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () =>
        resume(Effect.succeed({ status: response.statusCode ?? 0, text, headers: response.headers })))
    })
    request.on("error", (e) =>
      resume(Effect.fail(e)))
    const body = row.body
    if (body === undefined) return void request.end()
    if (typeof body === "string") return void request.end(body)
    const chunk = Buffer.from(`${JSON.stringify({ question: "x".repeat(1000) })}\n`)
    let sent = 0
    const write = () => {
      while (sent < body.chunked) {
        sent += chunk.length
        if (!request.write(chunk)) return void request.once("drain", write)
      }
      request.end()
    }
    write()
  })

describe("bad input over HTTP: one clear error per request, never a 500", () => {
  it.scopedLive("the table", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      return yield* Effect.gen(function*() {
        const base = yield* baseUrl
        for (const row of rows) {
          const response = yield* send(base, key, row)
          assert.strictEqual(response.status, row.status, `${row.name}: ${response.text}`)
          const error = (JSON.parse(response.text) as {
            error: { code: string; message: string; field?: string }
          }).error
          assert.strictEqual(error.code, row.code, row.name)
          assert.notInclude(error.message, "\n", `${row.name}: one line`)
          if (row.field !== undefined) assert.strictEqual(error.field, row.field, row.name)
          if (row.message !== undefined) assert.match(error.message, row.message, row.name)
          assert.strictEqual(response.headers.allow, row.allow, `${row.name}: Allow`)
        }
        // the server is still healthy after all of them
        assert.strictEqual(
          (yield* send(base, key, { ...rows[0]!, method: "GET", path: "/readyz", body: "" })).status,
          200
        )
      }).pipe(
        Effect.provide(
          portServer(home, settings({ limits: { maxBodyBytes: 256 * 1024, maxUploadBytes: 1024 * 1024 } }))
        )
      )
    }), 60_000)
})
