import { Clock, Effect } from "effect"
import type { Answer } from "../Domain/Answer.js"
import type { Passage } from "../Domain/Passage.js"
import type { PipelineEvent } from "../Domain/PipelineEvent.js"
import type { Counters } from "../Domain/PipelineResult.js"
import type { Role } from "../Domain/Profile.js"
import type { StopReason } from "../Domain/StopReason.js"
import { EventSink } from "../Services/EventSink.js"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * The events and counters of one question as it runs. Every event is kept (the question's trace is a fold over them,
 * `traceOf`) and published to the `EventSink` in context. One recorder per question; it lives inside that question's
 * fiber only.
 */
export class Recorder {
  readonly events: Array<PipelineEvent> = []
  readonly llm: Mutable<Counters["llm"]> = { init: 0, plan: 0, update: 0, judge: 0, answer: 0, total: 0 }
  readonly seen = new Set<string>()
  retrievals = 0
  steps = 0
  failures = 0
  /** Set by loops that decide per subquery whether to retrieve (`deeprag`). */
  subqueries: { retrieved: number; parametric: number } | undefined = undefined

  private constructor(
    readonly questionId: string,
    readonly startedAt: number,
    /** Unique passages the question may read (`passageBudget`); `undefined` = unbounded. */
    readonly budget: number | undefined
  ) {}

  static readonly make = (questionId: string, budget?: number) =>
    Clock.currentTimeMillis.pipe(Effect.map((now) => new Recorder(questionId, now, budget)))

  readonly elapsed = Clock.currentTimeMillis.pipe(Effect.map((now) => now - this.startedAt))

  /** Runs a timed stage and returns its value with its duration in ms. */
  timed<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, number], E, R> {
    return Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const value = yield* effect
      const end = yield* Clock.currentTimeMillis
      return [value, end - start] as const
    })
  }

  emit(event: (common: { questionId: string; step: number; elapsedMs: number }) => PipelineEvent, step: number) {
    return this.elapsed.pipe(
      Effect.flatMap((elapsedMs) => {
        const published = event({ questionId: this.questionId, step, elapsedMs })
        this.events.push(published)
        return EventSink.emit(published)
      })
    )
  }

  countCall(role: Role): void {
    this.llm[role] += 1
    this.llm.total += 1
  }

  /**
   * A retrieval cut to the budget: passages read before pass (they cost nothing), new ones only while the budget has
   * room, in rank order. The budget is exact: no retrieval reads past it.
   */
  withinBudget(passages: ReadonlyArray<Passage>): ReadonlyArray<Passage> {
    if (this.budget === undefined) return passages
    let room = this.budget - this.seen.size
    const taken = new Set<string>()
    return passages.filter((p) => {
      if (this.seen.has(p.id) || taken.has(p.id)) return true
      if (room <= 0) return false
      room -= 1
      taken.add(p.id)
      return true
    })
  }

  addPassages(passages: ReadonlyArray<Passage>): void {
    this.retrievals += 1
    for (const passage of passages) this.seen.add(passage.id)
  }

  counters(): Counters {
    return {
      llm: { ...this.llm },
      retrievals: this.retrievals,
      steps: this.steps,
      failures: this.failures,
      uniquePassages: this.seen.size,
      ...(this.subqueries === undefined ? {} : { subqueries: { ...this.subqueries } })
    }
  }

  stopped(step: number, reason: StopReason) {
    return this.emit((c) => ({ _tag: "Stopped", ...c, reason, failures: this.failures }), step)
  }

  answered(step: number, answer: Answer, durationMs: number) {
    return this.emit((c) => ({ _tag: "Answered", ...c, answer, durationMs }), step)
  }
}
