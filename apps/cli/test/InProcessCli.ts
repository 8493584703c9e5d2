import { NodeContext } from "@effect/platform-node"
import { ConfigProvider, Console, Effect, Layer, Sink } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { commandLine } from "../src/Program.js"
import { StandardStreams } from "../src/render/StandardStreams.js"

/** What a command line wrote and how it ended. */
export interface CliOutput {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A writable stream that appends what it is given to `append`. */
const collecting = (append: (text: string) => void) =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      append(chunk.toString())
      done()
    }
  })

/** Effect's `Console` over Node's, writing to `out` and `err` (as `console` formats for a pipe: no colour). */
const consoleOver = (unsafe: globalThis.Console): Console.Console => ({
  [Console.TypeId]: Console.TypeId,
  assert: (condition, ...args) => Effect.sync(() => unsafe.assert(condition, ...args)),
  clear: Effect.sync(() => unsafe.clear()),
  count: (label) => Effect.sync(() => unsafe.count(label)),
  countReset: (label) => Effect.sync(() => unsafe.countReset(label)),
  debug: (...args) => Effect.sync(() => unsafe.debug(...args)),
  dir: (item, options) => Effect.sync(() => unsafe.dir(item, options)),
  dirxml: (...args) => Effect.sync(() => unsafe.dirxml(...args)),
  error: (...args) => Effect.sync(() => unsafe.error(...args)),
  group: (options) =>
    Effect.sync(() =>
      options?.collapsed === true ? unsafe.groupCollapsed(options.label) : unsafe.group(options?.label)
    ),
  groupEnd: Effect.sync(() => unsafe.groupEnd()),
  info: (...args) => Effect.sync(() => unsafe.info(...args)),
  log: (...args) => Effect.sync(() => unsafe.log(...args)),
  table: (data, properties) => Effect.sync(() => unsafe.table(data, properties)),
  time: (label) => Effect.sync(() => unsafe.time(label)),
  timeEnd: (label) => Effect.sync(() => unsafe.timeEnd(label)),
  timeLog: (label, ...args) => Effect.sync(() => unsafe.timeLog(label, ...args)),
  trace: (...args) => Effect.sync(() => unsafe.trace(...args)),
  warn: (...args) => Effect.sync(() => unsafe.warn(...args)),
  unsafe
})

/**
 * Runs the `deepnote` command line `args` inside this process, as `main.ts` runs it in its own: the same program, exit
 * code and messages, with stdout and stderr captured (neither is a terminal) and the settings read from `env` alone
 * (as a child process given only `env`). A test of what only a process has — signals, exit on a crash, the entry
 * point, two processes on one run (the run lease tells them apart by pid) — runs the built command instead
 * (`runCliProcess`). Past `timeoutMs` the command line is interrupted (code 130).
 */
export const runCliInProcess = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  timeoutMs = 60_000
): Effect.Effect<CliOutput> =>
  Effect.suspend(() => {
    let stdout = ""
    let stderr = ""
    const toStdout = (text: string) => void (stdout += text)
    const toStderr = (text: string) => void (stderr += text)
    const streams = StandardStreams.layerTest({
      writeStderr: toStderr,
      stdoutSink: Sink.forEach((chunk: string | Uint8Array) =>
        Effect.sync(() => toStdout(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()))
      )
    })
    const console = consoleOver(new NodeConsole({ stdout: collecting(toStdout), stderr: collecting(toStderr) }))
    const settings = ConfigProvider.fromMap(new Map(Object.entries({ NO_COLOR: "1", ...env })), {
      pathDelim: "_",
      seqDelim: ","
    })
    return commandLine(args).pipe(
      Effect.timeoutTo({ duration: timeoutMs, onSuccess: (code) => code, onTimeout: () => 130 }),
      Effect.withConsole(console),
      Effect.withConfigProvider(settings),
      Effect.provide(Layer.merge(streams, NodeContext.layer)),
      Effect.map((code) => ({ code, stdout, stderr }))
    )
  })
