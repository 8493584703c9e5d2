import { Effect, type Scope } from "effect"
import { spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

// The built binary (`npx tsc -b` first).
const main = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../dist/src/main.js")

export interface SimProcess {
  readonly url: string
  readonly port: number
  /** Kills the process (SIGKILL, as a crash or an OOM kill would) and waits for it to exit. */
  readonly stop: Effect.Effect<void>
}

/**
 * The simulator in a child process of its own, listening once its first stdout line says so; killed when the scope
 * closes (if still running).
 */
export const spawnSim = (args: ReadonlyArray<string>): Effect.Effect<SimProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: ReturnType<typeof spawn>; readonly port: number }>((resume) => {
      const child = spawn(process.execPath, [main, ...args], {
        env: { NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
        if (port !== undefined) resume(Effect.succeed({ child, port: Number(port) }))
      })
      child.on("exit", (code) => resume(Effect.dieMessage(`the simulator exited with ${code}: ${out}${err}`)))
      return Effect.sync(() => void child.kill("SIGKILL"))
    }),
    ({ child }) => stopChild(child)
  ).pipe(Effect.map(({ child, port }) => ({ url: `http://127.0.0.1:${port}`, port, stop: stopChild(child) })))

const stopChild = (child: ReturnType<typeof spawn>) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })
