// A 127.0.0.1 proxy in front of the simulator that writes every POST it forwards (path and body, one JSON line each) to
// a file: the requests of one `deepnote run`, for `bare-client.mjs` to send again. It runs in the benchmark's own
// process, whose CPU is not measured.
import * as Fs from "node:fs"
import * as Http from "node:http"

/** Starts the proxy; resolves `{ url, requests, close }` (`requests()`: how many POSTs were written so far). */
export const captureRequests = (target, file) =>
  new Promise((resolve) => {
    const upstream = new URL(target)
    const agent = new Http.Agent({ keepAlive: true })
    const out = Fs.openSync(file, "w")
    let requests = 0
    const server = Http.createServer((req, res) => {
      const chunks = []
      req.on("data", (c) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks)
        if (req.method === "POST") {
          Fs.writeSync(out, JSON.stringify({ path: req.url, body: body.toString("utf8") }) + "\n")
          requests++
        }
        const forward = Http.request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
          (reply) => {
            res.writeHead(reply.statusCode ?? 502, reply.headers)
            reply.pipe(res)
          }
        )
        forward.on("error", () => res.destroy())
        forward.end(body)
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        requests: () => requests,
        close: () =>
          new Promise((done) => {
            agent.destroy()
            server.closeAllConnections()
            server.close(() => {
              Fs.closeSync(out)
              done()
            })
          })
      }))
  })
