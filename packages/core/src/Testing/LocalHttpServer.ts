import { Effect, type Scope } from "effect"
import type * as Http from "node:http"

/**
 * Listens with `server` on a free port of 127.0.0.1 for the scope and resolves the port. When the scope closes,
 * `beforeClose` runs (e.g. destroying an upstream agent), open connections are cut and the server closes. The local
 * servers tests talk to (the OTLP receiver, the simulator's capture proxy) share it.
 */
export const listenLocally = (
  server: Http.Server,
  beforeClose: () => void = () => {}
): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.async<void>((resume) => {
        beforeClose()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
