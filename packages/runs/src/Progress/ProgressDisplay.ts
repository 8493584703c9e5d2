import { Clock, Effect, Fiber, Ref, Schedule, type Scope, Stream } from "effect"
import { RunEvents } from "../Executor/RunEvents.js"
import { foldProgress, initialProgress, type ProgressState, renderProgress } from "./ProgressState.js"

export interface ProgressOptions {
  readonly runId: string
  readonly total: number
  /** Items finished before this execution (a resumed run). */
  readonly alreadyDone: number
  /** A live bar rewritten in place (TTY), else a plain line every `interval`. */
  readonly tty: boolean
  readonly interval?: number
  readonly write: (text: string) => Effect.Effect<void>
  /** Tokens used so far, when the engine counts them. */
  readonly tokens?: Effect.Effect<number>
  /** What the run is waiting for, if anything ("waiting for LLM servers"), appended to the line. */
  readonly note?: Effect.Effect<string | undefined>
}

/**
 * Shows a run's progress until the scope closes: on a TTY a bar redrawn 4× a second; otherwise a plain line every
 * `interval` ms (default 10 s) and a last line at the end.
 */
export const showProgress = (options: ProgressOptions): Effect.Effect<void, never, RunEvents | Scope.Scope> =>
  Effect.gen(function*() {
    const hub = yield* RunEvents
    const now = yield* Clock.currentTimeMillis
    const state = yield* Ref.make<ProgressState>(initialProgress(options.total, options.alreadyDone, now))
    const queue = yield* hub.subscribe
    yield* Stream.fromQueue(queue).pipe(
      Stream.filter((e) => e.runId === options.runId),
      Stream.runForEach((e) => Ref.update(state, (s) => foldProgress(s, e))),
      Effect.forkScoped
    )
    const draw = (final: boolean) =>
      Effect.gen(function*() {
        const s = yield* Ref.get(state)
        const at = yield* Clock.currentTimeMillis
        const tokens = options.tokens === undefined ? undefined : yield* options.tokens
        const note = options.note === undefined ? undefined : yield* options.note
        const line = renderProgress(options.runId, s, at, tokens) + (note === undefined ? "" : ` · ${note}`)
        yield* options.write(options.tty ? `\r\x1b[2K${line}${final ? "\n" : ""}` : `${line}\n`)
      })
    const ticker = yield* draw(false).pipe(
      Effect.repeat(Schedule.spaced(options.tty ? 250 : options.interval ?? 10_000)),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => Fiber.interrupt(ticker).pipe(Effect.zipRight(draw(true))))
  })
