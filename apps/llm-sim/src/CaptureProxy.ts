import { listenLocally } from "@deepnote-rag/core/testing"
import { Effect } from "effect"
import * as Http from "node:http"

export interface Captured {
  readonly path: string
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The JSON body of a POST (undefined for a GET or a body that is not JSON). */
  readonly body: Record<string, unknown> | undefined
}

/**
 * A 127.0.0.1 reverse proxy in front of `target` that records each request's path, headers and JSON body, so a test
 * can check exactly what the LLM client sends over the wire (priority, fairness key, traceparent, role). It stops when
 * the scope closes.
 */
export const captureProxy = (target: string) =>
  Effect.gen(function*() {
    const seen: Array<Captured> = []
    const upstream = new URL(target)
    const agent = new Http.Agent({ keepAlive: true })
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const raw = Buffer.concat(chunks)
        let body: Record<string, unknown> | undefined
        try {
          body = raw.length > 0 ? JSON.parse(raw.toString()) as Record<string, unknown> : undefined
        } catch {
          body = undefined
        }
        const headers: Record<string, string | undefined> = {}
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v
        seen.push({ path: req.url ?? "", headers, body })
        const forward = Http.request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
            agent
          },
          (reply) => {
            res.writeHead(reply.statusCode ?? 502, reply.headers)
            reply.pipe(res)
          }
        )
        forward.on("error", () => {
          res.writeHead(502)
          res.end()
        })
        forward.end(raw)
      })
    })
    const port = yield* listenLocally(server, () => agent.destroy())
    return {
      url: `http://127.0.0.1:${port}`,
      /** Every request, in arrival order. */
      seen: (): ReadonlyArray<Captured> => seen,
      /** Requests to the completion routes, in arrival order. */
      completions: () => seen.filter((s) => s.path.endsWith("/completions"))
    }
  })
