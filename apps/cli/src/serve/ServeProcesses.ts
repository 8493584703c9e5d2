import { Home } from "@deepnote-rag/core"
import { StoreConfig, type StoreUrl } from "@deepnote-rag/store"
import { Effect, Either, Layer, Option } from "effect"
import cluster, { type Worker } from "node:cluster"
import * as Net from "node:net"
import { availableParallelism } from "node:os"
import { CommandFailed, UsageError } from "../Errors.js"

/** The processes `deepnote serve` runs behind its one port, and why, as logged at start. */
export interface ChosenProcesses {
  readonly value: number
  readonly reason: string
}

/**
 * `--processes` when given; else one. The extractive engine is CPU-bound (one process is one event loop), but two
 * processes measured no faster than one on this project's 2 shared cores (`benchmarks/server/processes.mjs`), and each
 * process keeps its own event-stream replay buffer, so several are asked for, not assumed. One for the LLM engine
 * (I/O-bound: one process drives well over what one vLLM server takes, and its answer slots and endpoint pool size
 * themselves to the servers' whole capacity — several would each do so). An in-memory store is one process's own, so
 * it always means one: `--processes` above 1 with it is refused (a usage error), not quietly split into several stores.
 */
export const chooseProcesses = (
  flag: Option.Option<number>,
  engine: "extractive" | "llm",
  store: StoreUrl
): Either.Either<ChosenProcesses, string> =>
  store.inMemory
    ? Option.isSome(flag) && flag.value > 1
      ? Either.left(
        `--processes ${flag.value}: an in-memory store (sqlite::memory:) belongs to one process; ` +
          "use a store file or postgres:// for several"
      )
      : Either.right({ value: 1, reason: "an in-memory store is one process's own" })
    : Option.isSome(flag)
    ? Either.right({ value: flag.value, reason: "--processes" })
    : engine === "llm"
    ? Either.right({ value: 1, reason: "LLM engine: I/O-bound, one process fills the LLM servers" })
    // several processes measured no faster on 2 busy cores (benchmarks/server: 0.88–1.01×) and each keeps its own
    // event-stream replay buffer, so more than one is asked for, not assumed
    : Either.right({
      value: 1,
      reason: `extractive engine: one process unless --processes N (${availableParallelism()} cores here)`
    })

/**
 * `chooseProcesses` for the store the server will open (`--store`, else `DEEPNOTE_STORE`, else the home's file); a bad
 * store URL or a refused choice is a usage error.
 */
export const processesFor = (
  flag: Option.Option<number>,
  engine: "extractive" | "llm",
  store: Option.Option<string>,
  home: string
): Effect.Effect<ChosenProcesses, UsageError> =>
  Effect.map(StoreConfig, (settings) => settings.url).pipe(
    Effect.provide(
      Option.match(store, { onNone: () => StoreConfig.layerConfig, onSome: (url) => StoreConfig.layer({ url }) }).pipe(
        Layer.provide(Home.layer(home))
      )
    ),
    Effect.mapError((e) => new UsageError({ message: e.message })),
    Effect.flatMap((url) =>
      Either.match(chooseProcesses(flag, engine, url), {
        onLeft: (message) => Effect.fail(new UsageError({ message })),
        onRight: Effect.succeed
      })
    )
  )

/** True in a process `superviseProcesses` started: it serves (and says when it is ready) instead of forking more. */
export const isServeProcess = (): boolean => cluster.isWorker

/** What a serving process tells the supervisor once its layer is built and its listener takes requests. */
const readyMessage = "deepnote-serve-ready"

/** In a serving process: tells the supervisor it serves (nothing when this process is the only one). */
export const announceReady: Effect.Effect<void> = Effect.sync(() => {
  if (cluster.isWorker && process.send !== undefined) process.send(readyMessage)
})

const exited = (worker: Worker): Promise<void> =>
  new Promise((resolve) => {
    if (worker.isDead()) resolve()
    else worker.once("exit", () => resolve())
  })

/**
 * The supervisor of `deepnote serve --processes N`: starts N copies of this command (`node:cluster`: they share the
 * listening socket, the kernel's connections handed round-robin by the primary), the first alone so that a fresh
 * store is migrated once, then the others. A process that dies after it served is replaced; one that fails before
 * it serves (a busy port, a bad store) stops them all with exit 1. Interrupted (SIGINT/SIGTERM), it sends SIGTERM to
 * each — they drain their requests as a single server does — waits up to `graceMs`, then kills what is left (it runs
 * until interrupted; `onReady` is told the pids each time all N serve; a replacement is said on `writeStderr`). If the
 * supervisor itself is killed, Node's cluster ends each worker when its IPC channel closes.
 */
export const superviseProcesses = (
  count: number,
  graceMs: number,
  onReady: (pids: ReadonlyArray<number>) => void,
  writeStderr: (text: string) => void
): Effect.Effect<never, CommandFailed> =>
  Effect.async<never, CommandFailed>((resume) => {
    const live = new Set<Worker>()
    let stopping = false
    let ready = 0
    const fail = (message: string) => {
      stopping = true
      for (const worker of live) worker.process.kill("SIGTERM")
      void Promise.all([...live].map(exited)).then(() => resume(Effect.fail(new CommandFailed({ message }))))
    }
    const start = (): void => {
      const worker = cluster.fork()
      live.add(worker)
      let served = false
      worker.on("message", (message: unknown) => {
        if (message !== readyMessage || served) return
        served = true
        ready++
        // the first one alone (it migrates a fresh store), then the others together
        if (ready === 1) { for (let i = 1; i < count; i++) start() }
        if (ready === count) onReady([...live].map((w) => w.process.pid ?? 0))
      })
      worker.once("exit", (code, signal) => {
        live.delete(worker)
        if (stopping) return
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`
        if (!served) return fail(`a server process (pid ${worker.process.pid}) stopped before it served (${how})`)
        writeStderr(`server process ${worker.process.pid} stopped (${how}); starting another\n`)
        ready--
        served = false
        start()
      })
    }
    start()
    return Effect.promise(async () => {
      stopping = true
      for (const worker of live) worker.process.kill("SIGTERM")
      const all = Promise.all([...live].map(exited))
      const late = setTimeout(() => {
        for (const worker of live) worker.process.kill("SIGKILL")
      }, graceMs)
      await all
      clearTimeout(late)
    })
  })

/**
 * Whether `host:port` can be listened on, tried by the supervisor before it starts any process, so that a busy port
 * fails with the single server's one clear line: fails with `{ cause }` (the listen error, as `listenFailure` reads it).
 */
export const checkListen = (host: string, port: number): Effect.Effect<void, { readonly cause: unknown }> =>
  Effect.async((resume) => {
    const server = Net.createServer()
    server.once("error", (cause) => resume(Effect.fail({ cause })))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resume(Effect.void)))
  })
