import { Effect } from "effect"
import * as Http from "node:http"

export interface ProxiedRequest {
  readonly method: string
  readonly path: string
  readonly traceparent: string | undefined
}

/**
 * A 127.0.0.1 reverse proxy in front of `target` that records each request's path and `traceparent` header, so a
 * test can check what the LLM client sends. It stops when the scope closes.
 */
export const headerProxy = (target: string) =>
  Effect.gen(function*() {
    const seen: Array<ProxiedRequest> = []
    const upstream = new URL(target)
    const agent = new Http.Agent({ keepAlive: true })
    const server = Http.createServer((req, res) => {
      const header = req.headers["traceparent"]
      seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        traceparent: Array.isArray(header) ? header[0] : header
      })
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
      req.pipe(forward)
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () =>
        Effect.async<void>((resume) => {
          agent.destroy()
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { url: `http://127.0.0.1:${port}`, seen: () => [...seen] }
  })
