import {
  Answer,
  Answerer,
  type CallContext,
  Judge,
  Note,
  NoteWriter,
  Passage,
  QueryPlanner,
  RetrievalError,
  Retriever,
  type Role,
  Role as RoleSchema,
  RoleError,
  Verdict,
  withHotSpan
} from "@deepnote-rag/core"
import { type CallUsage, collectCallUsage, sumCallUsage } from "@deepnote-rag/llm"
import type { JournalMismatch, Replay, Usage } from "@deepnote-rag/store"
import { Context, Effect, Schema } from "effect"
import { requestHash } from "./RequestHash.js"

const PlanSchema = Schema.Struct({ queries: Schema.Array(Schema.String), raw: Schema.String })
const Passages = Schema.Array(Passage)

const mismatchMessage = (e: JournalMismatch) =>
  `journal mismatch at call ${e.seq} of ${e.itemId} (${e.kind} vs stored ${e.storedKind}): the inputs changed since it was journaled; start a new run (--force-new-run)`

type Kind = Role | "retrieve"

/**
 * What one role call cost, from the LLM calls it made (collected on its own fiber: nothing global is read), with the
 * model and endpoint that answered; undefined when it made none (the extractive engine).
 */
const usageOf = (calls: ReadonlyArray<CallUsage>): Usage | undefined => {
  if (calls.length === 0) return undefined
  const sum = sumCallUsage(calls)
  return {
    promptTokens: sum.promptTokens,
    completionTokens: sum.completionTokens,
    totalTokens: sum.promptTokens + sum.completionTokens,
    ...(sum.cachedPromptTokens > 0 ? { cachedTokens: sum.cachedPromptTokens } : {}),
    ...(sum.models.length > 0 ? { model: sum.models } : {}),
    ...(sum.endpoints.length > 0 ? { endpoint: sum.endpoints } : {})
  }
}

/**
 * A journaled call maker for one question: `call(kind, input, schema, execute)` answers from the journal when call
 * number `seq` was journaled with the same kind and request hash, else runs `execute` (once the run is not stopping)
 * and journals its response with the tokens of the LLM calls it made and the model and endpoint that answered (the
 * extractive engine makes none; retrieval costs no tokens). A journal mismatch fails the call with a clear message;
 * a store fault is a defect. Used by the five journaled roles below and by align runs' samples and judges.
 */
export const journalCalls = (
  replay: Replay,
  configHash: string,
  stopping: Effect.Effect<boolean> = Effect.succeed(false)
) => {
  /**
   * Once the run is stopping, no new call starts: the question is interrupted at its next call boundary (calls in
   * flight finish and are journaled) and is resumed later. Interruption is Effect's cancellation signal, so the
   * executor tells a stopped question from a failed one by its exit, not by an error's text.
   */
  const admit = Effect.flatMap(stopping, (stop) => stop ? Effect.interrupt : Effect.void)
  const call = <A, I>(
    kind: string,
    input: { readonly context: CallContext },
    schema: Schema.Schema<A, I>,
    execute: Effect.Effect<A, RoleError | RetrievalError>
  ): Effect.Effect<A, RoleError | RetrievalError> => {
    let usage: Usage | undefined
    const metered = kind === "retrieve" ? execute : collectCallUsage(execute).pipe(
      Effect.map(([value, calls]) => {
        usage = usageOf(calls)
        return value
      })
    )
    return replay.call({
      kind,
      requestHash: requestHash(kind, input, input.context, configHash),
      schema,
      usage: () => usage
    }, Effect.zipRight(admit, metered)).pipe(
      Effect.catchTags({
        JournalMismatch: (e) =>
          Effect.fail(
            kind === "retrieve"
              ? new RetrievalError({ message: mismatchMessage(e) })
              : new RoleError({ role: roleOf(kind), message: mismatchMessage(e) })
          ),
        StoreError: (e) => Effect.die(e)
      }),
      withHotSpan("Journal.call", {
        attributes: { "deepnote.journal.kind": kind, "deepnote.step": input.context.step }
      })
    )
  }
  return { call }
}

/** The role a call kind's failure names (an align run's group judge, `rank`, is a judge call). */
const roleOf = (kind: string): Role => Schema.is(RoleSchema)(kind) ? kind : "judge"

/**
 * Wraps the five services in context so that every call of one question goes through its journal (`journalCalls`):
 * calls already journaled (same position, same request hash) are answered from the store without reaching the engine
 * or the index; new calls run and are journaled as soon as they finish.
 *
 * A plain context, not a layer: it is made once per question, and building a merged layer forks a fiber per part —
 * a question interrupted while building it (a server stopping) stayed suspended for good, and so did the shutdown.
 */
export const journaledRoles = (
  replay: Replay,
  configHash: string,
  stopping: Effect.Effect<boolean> = Effect.succeed(false)
) => {
  const journal = journalCalls(replay, configHash, stopping)
  const through = <A, I>(
    kind: Kind,
    input: { readonly context: CallContext },
    schema: Schema.Schema<A, I>,
    execute: Effect.Effect<A, RoleError | RetrievalError>
  ): Effect.Effect<A, RoleError | RetrievalError> => journal.call(kind, input, schema, execute)

  /** A role's call through the journal: a role never fails with a retrieval error (one would be a defect). */
  const roleCall = <A, I>(
    kind: Role,
    input: { readonly context: CallContext },
    schema: Schema.Schema<A, I>,
    execute: Effect.Effect<A, RoleError>
  ): Effect.Effect<A, RoleError> =>
    through(kind, input, schema, execute).pipe(Effect.catchTag("RetrievalError", Effect.die))

  return Effect.gen(function*() {
    const retriever = yield* Retriever
    const noteWriter = yield* NoteWriter
    const planner = yield* QueryPlanner
    const judge = yield* Judge
    const answerer = yield* Answerer
    return Context.make(Retriever, {
      search: (request) =>
        through("retrieve", request, Passages, retriever.search(request)).pipe(Effect.catchTag("RoleError", Effect.die))
    }).pipe(
      Context.add(NoteWriter, {
        init: (input) => roleCall("init", input, Note, noteWriter.init(input)),
        update: (input) => roleCall("update", input, Note, noteWriter.update(input))
      }),
      Context.add(QueryPlanner, { plan: (input) => roleCall("plan", input, PlanSchema, planner.plan(input)) }),
      Context.add(Judge, { compare: (input) => roleCall("judge", input, Verdict, judge.compare(input)) }),
      Context.add(Answerer, { answer: (input) => roleCall("answer", input, Answer, answerer.answer(input)) })
    )
  })
}
