import { Effect } from "effect"
import * as Net from "node:net"

/** A 127.0.0.1 URL nothing listens on (a port that was just free): an LLM server that is down for good. */
export const deadUrl = Effect.async<string>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 1
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})
