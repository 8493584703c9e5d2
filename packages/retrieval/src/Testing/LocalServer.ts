import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly body: unknown
  /** The `authorization` header, when sent. */
  readonly authorization?: string | undefined
}

export type Reply = { readonly status: number; readonly body: unknown; readonly raw?: boolean }

/**
 * A real HTTP server on 127.0.0.1 (random port) for the duration of the scope. `handler` maps each request (with
 * its parsed JSON body) to a reply; every request is recorded.
 */
export const localServer = (handler: (request: Recorded, count: number) => Reply) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly requests: Array<Recorded>; readonly server: Http.Server }>(
      (resume) => {
        const requests: Array<Recorded> = []
        const server = Http.createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (c: Buffer) => chunks.push(c))
          req.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            const recorded = {
              method: req.method ?? "",
              path: req.url ?? "",
              body: text.length > 0 ? JSON.parse(text) : undefined,
              authorization: req.headers.authorization
            }
            requests.push(recorded)
            const reply = handler(recorded, requests.length)
            res.writeHead(reply.status, { "content-type": "application/json" })
            res.end(reply.raw === true ? String(reply.body) : JSON.stringify(reply.body))
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, requests, server }))
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
