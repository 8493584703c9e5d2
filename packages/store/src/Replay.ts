import { annotateHotSpan, firstDecodeIssue } from "@deepnote-rag/core"
import { Clock, Effect, Schema } from "effect"
import { JournalMismatch, StoreError } from "./Domain/Errors.js"
import type { JournalEntry, Usage } from "./Domain/JournalEntry.js"
import type { JournalAppend } from "./internal/journalRows.js"

/** Describes one journaled call: its kind, the hash of everything that determines its response, and the response's schema. */
export interface CallSpec<A, I> {
  /** A role name (`init`, `plan`, `update`, `judge`, `answer`) or `retrieve`. */
  readonly kind: string
  /** Hash of the request (model, messages, sampling, or queries and k); see `stableHash`. */
  readonly requestHash: string
  /** Encodes the response for the journal and decodes it on replay. */
  readonly schema: Schema.Schema<A, I>
  /** Token usage of a fresh response, when the caller knows it. */
  readonly usage?: ((response: A) => Usage | undefined) | undefined
}

/** Replays one item's journal: see `Journal.replaying`. */
export interface Replay {
  readonly runId: string
  readonly itemId: string
  /**
   * Runs the next call of the item. Call #seq (0, 1, … in call order) looks up `(run, item, seq)`: when journaled
   * with the same kind and request hash, the stored response is decoded and returned without running `execute`;
   * when journaled with a different kind or hash, it fails with `JournalMismatch`; when absent, `execute` runs and
   * its response is journaled (immediately, or buffered in `unsaved` with `persist: "on-complete"`).
   */
  readonly call: <A, I, E, R>(
    spec: CallSpec<A, I>,
    execute: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | JournalMismatch | StoreError, R>
  /** Entries executed but not yet written: pass them to `RunStore.completeItem` / `failItem`. */
  readonly unsaved: Effect.Effect<ReadonlyArray<JournalAppend>>
  /**
   * Takes the entries executed but not yet written (they are no longer `unsaved`): the caller writes them in its own
   * transaction (`EventLog.append`'s `journal`, `RunStore.completeItem`, `Journal.appendAll`).
   */
  readonly takeUnsaved: Effect.Effect<ReadonlyArray<JournalAppend>>
  /** Calls served from the journal and calls executed so far. */
  readonly stats: Effect.Effect<{ readonly replayed: number; readonly executed: number }>
}

/**
 * When executed calls are written: `each` at once (one transaction per call), `on-complete` by the caller at the end,
 * `next-write` by the caller's next write (`takeUnsaved`) or, at the latest, before the next call executes — so a crash
 * still loses only the call in flight, and a call and the event that follows it share one transaction.
 */
export type PersistMode = "each" | "on-complete" | "next-write"

/** Builds a `Replay` over the entries already journaled for an item. */
export const makeReplay = (options: {
  readonly runId: string
  readonly itemId: string
  readonly stored: ReadonlyArray<JournalEntry>
  readonly persist: PersistMode
  readonly append: (entry: JournalAppend) => Effect.Effect<void, JournalMismatch | StoreError>
  readonly appendAll: (entries: ReadonlyArray<JournalAppend>) => Effect.Effect<void, JournalMismatch | StoreError>
}): Effect.Effect<Replay> =>
  Effect.gen(function*() {
    const { itemId, runId } = options
    const bySeq = new Map(options.stored.map((e) => [e.seq, e]))
    // Plain state, not `Ref`s: every read and write below is synchronous, so no other fiber can come between them,
    // and a `Ref` operation is a run-loop step of its own (≈ 6 per executed call; benchmarks/cpu)
    let next = 0
    let unsaved: ReadonlyArray<JournalAppend> = []
    let replayed = 0
    let executed = 0

    const replay = <A, I>(seq: number, stored: JournalEntry, spec: CallSpec<A, I>) =>
      Effect.gen(function*() {
        if (stored.kind !== spec.kind || stored.requestHash !== spec.requestHash) {
          return yield* new JournalMismatch({
            runId,
            itemId,
            seq,
            kind: spec.kind,
            requestHash: spec.requestHash,
            storedKind: stored.kind,
            storedHash: stored.requestHash
          })
        }
        const value = yield* Schema.decodeUnknown(spec.schema)(stored.response).pipe(
          Effect.mapError((e) =>
            new StoreError({
              message: `journal entry (${runId}, ${itemId}, #${seq}, ${spec.kind}) does not decode: ` +
                firstDecodeIssue(e, "row")
            })
          )
        )
        replayed += 1
        yield* annotateHotSpan({ "deepnote.journal.replayed": true })
        return value
      })

    /** Runs a call not journaled yet and keeps (or writes) its entry. */
    const execute = <A, I, E, R>(seq: number, spec: CallSpec<A, I>, run: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        if (options.persist === "next-write" && unsaved.length > 0) {
          const pending = unsaved
          unsaved = []
          yield* options.appendAll(pending)
        }
        const started = yield* Clock.currentTimeMillis
        const value = yield* run
        const latencyMs = (yield* Clock.currentTimeMillis) - started
        const response = yield* Effect.orDie(Schema.encode(spec.schema)(value))
        const entry: JournalAppend = {
          runId,
          itemId,
          seq,
          kind: spec.kind,
          requestHash: spec.requestHash,
          response,
          usage: spec.usage?.(value),
          latencyMs
        }
        if (options.persist === "each") yield* options.append(entry)
        else unsaved = [...unsaved, entry]
        executed += 1
        yield* annotateHotSpan({ "deepnote.journal.replayed": false })
        return value
      })

    // no span of its own: the caller's span (`journalCalls`' `Journal.call`) is annotated with the position, the kind and
    // whether it was replayed — a second span per call cost ≈ 36 run-loop steps (benchmarks/cpu)
    const call = <A, I, E, R>(spec: CallSpec<A, I>, run: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        const seq = next
        next += 1
        const stored = bySeq.get(seq)
        return Effect.zipRight(
          annotateHotSpan({ "deepnote.journal.seq": seq, "deepnote.journal.kind": spec.kind }),
          stored !== undefined ? replay(seq, stored, spec) : execute(seq, spec, run)
        )
      })

    return {
      runId,
      itemId,
      call,
      unsaved: Effect.sync(() => unsaved),
      takeUnsaved: Effect.sync(() => {
        const taken = unsaved
        unsaved = []
        return taken
      }),
      stats: Effect.sync(() => ({ replayed, executed }))
    }
  })
