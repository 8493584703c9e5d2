import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import { type Child, spawnCliScoped } from "./CrashHarness.js"
import { runCli, tempHome } from "./RunCli.js"

/** Polls `check` every 100 ms until it returns a value (or `timeoutMs` passes: undefined). */
const until = <A>(check: () => A | undefined, timeoutMs: number) =>
  Effect.async<A | undefined>((resume) => {
    const started = Date.now()
    const timer = setInterval(() => {
      const value = check()
      if (value !== undefined || Date.now() - started > timeoutMs) {
        clearInterval(timer)
        resume(Effect.succeed(value))
      }
    }, 100)
    return Effect.sync(() => clearInterval(timer))
  })

/** `GET /healthz` on a new connection: the `x-deepnote-process` header of the answer. */
const processOf = (port: number) =>
  Effect.async<string | undefined>((resume) => {
    const request = Http.get({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (response) => {
      response.resume()
      const header = response.headers["x-deepnote-process"]
      resume(Effect.succeed(typeof header === "string" ? header : undefined))
    })
    request.on("error", () => resume(Effect.succeed(undefined)))
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const output = (child: Child) => `${child.stdout()}${child.stderr()}`

describe("deepnote serve --processes and ui (child processes)", () => {
  it.scopedLive(
    "two processes share one port and both answer (the docs UI too); killing the supervisor stops them",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const child = yield* spawnCliScoped(["serve", "--home", home, "--port", "0", "--no-auth", "--processes", "2"])
        const pids = yield* until(() => {
          const match = /serving with 2 processes \(pids (\d+), (\d+)\)/.exec(output(child))
          return match === null ? undefined : [Number(match[1]), Number(match[2])]
        }, 60_000)
        assert.isDefined(pids, output(child))
        const port = Number(/Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output(child))?.[1])
        const seen = new Set<string>()
        for (let i = 0; i < 40 && seen.size < 2; i++) {
          const answered = yield* processOf(port)
          if (answered !== undefined) seen.add(answered)
        }
        assert.deepStrictEqual([...seen].sort(), pids!.map(String).sort(), "each process answered a request")
        // the docs UI's script and style, files beside the bundle (scripts/bundle-cli.mjs), are in the page
        const docs = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/docs`).then(async (r) => ({ status: r.status, body: await r.text() }))
        )
        assert.strictEqual(docs.status, 200)
        assert.include(docs.body, "SwaggerUIBundle")
        assert.include(docs.body, ".swagger-ui .topbar")

        child.process.kill("SIGKILL")
        const gone = yield* until(() => pids!.every((pid) => !alive(pid)) ? true : undefined, 30_000)
        assert.isTrue(gone, "the serving processes stop when their supervisor is killed")
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "an in-memory store is one process's own: --processes 2 with one, by --store or DEEPNOTE_STORE, is a usage error",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const expected = "deepnote: --processes 2: an in-memory store (sqlite::memory:) belongs to one process; " +
          "use a store file or postgres:// for several\n"
        const byFlag = yield* runCli([
          "serve",
          "--home",
          home,
          "--port",
          "0",
          "--store",
          "sqlite::memory:",
          "--processes",
          "2"
        ])
        assert.strictEqual(byFlag.code, 2, byFlag.stderr)
        assert.strictEqual(byFlag.stderr, expected)
        const byEnvironment = yield* runCli(["serve", "--home", home, "--port", "0", "--processes", "2"], {
          DEEPNOTE_STORE: "sqlite::memory:"
        })
        assert.strictEqual(byEnvironment.code, 2, byEnvironment.stderr)
        assert.strictEqual(byEnvironment.stderr, expected)
      }),
    { timeout: 90_000 }
  )

  it.scopedLive(
    "logs are written once, to stderr: stdout holds only the command's own output",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const child = yield* spawnCliScoped(["serve", "--home", home, "--port", "0"])
        const ready = yield* until(() => child.stderr().includes("Listening on") ? true : undefined, 60_000)
        assert.isTrue(ready, output(child))
        assert.strictEqual(child.stdout(), "", "serve writes nothing of its own to stdout")
        const listening = child.stderr().split("\n").filter((line) => line.includes("Listening on"))
        assert.strictEqual(listening.length, 1, `stderr: ${child.stderr()}`)
        assert.strictEqual(JSON.parse(listening[0]!).level, "INFO", "stderr is not a terminal: JSON lines")
      }),
    { timeout: 90_000 }
  )

  it.scopedLive(
    "ui prints the inspector's address and none of the server's start-up lines",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const child = yield* spawnCliScoped(["ui", "--home", home, "--port", "0"])
        const ready = yield* until(() => child.stdout().includes("run inspector: ") ? true : undefined, 60_000)
        assert.isTrue(ready, output(child))
        const stdout = child.stdout().trim().split("\n")
        assert.strictEqual(stdout.length, 1, `stdout: ${child.stdout()}`)
        assert.match(stdout[0]!, /^run inspector: http:\/\/127\.0\.0\.1:\d+\/ui\/#\/runs /)
        // the page answers, so the server is up: its info lines (listening, answer slots) would have been written
        const url = /^run inspector: (\S+)/.exec(stdout[0]!)![1]!
        const page = yield* Effect.promise(() => fetch(url).then((r) => r.status))
        assert.strictEqual(page, 200)
        assert.strictEqual(child.stderr(), "", "ui writes only warnings and errors of the server's log")
      }),
    { timeout: 90_000 }
  )
})
