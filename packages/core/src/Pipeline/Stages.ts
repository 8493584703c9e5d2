import { Effect, Metric, Option } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import { Note } from "../Domain/Note.js"
import type { Passage } from "../Domain/Passage.js"
import type { RunConfig } from "../Domain/RunConfig.js"
import type { Verdict } from "../Domain/Verdict.js"
import { withHotSpan } from "../Observability/HotSpan.js"
import { withTags } from "../Observability/MetricTags.js"
import { PipelineMetrics } from "../Observability/PipelineMetrics.js"
import { Answerer, type AnswerEvidence } from "../Services/Answerer.js"
import { AnswerTokens } from "../Services/AnswerTokens.js"
import { Judge } from "../Services/Judge.js"
import { NoteWriter } from "../Services/NoteWriter.js"
import { type Plan, QueryPlanner } from "../Services/QueryPlanner.js"
import { type RetrievalRequest, Retriever } from "../Services/Retriever.js"
import type { Recorder } from "./Recorder.js"

/** The stages of a question, each recorded in the trace and published as an event. */

/** The retrieval of one query alone: the query is also the rerank query; nothing is excluded. */
export const queryAlone = (query: string, config: RunConfig): Omit<RetrievalRequest, "context"> => ({
  queries: [query],
  recallK: config.recallK,
  topK: config.topK,
  exclude: new Set<string>(),
  rerankQuery: query
})

/**
 * One retrieval: the request with the call context, `filter` (a profile's own rule, e.g. `paper`'s near-cap filter),
 * then the cut to the passage budget; the passages are recorded as read and published (`Retrieved`).
 */
export const retrieveStage = (
  recorder: Recorder,
  request: Omit<RetrievalRequest, "context">,
  context: CallContext,
  filter: (passages: ReadonlyArray<Passage>) => ReadonlyArray<Passage> = (passages) => passages
) =>
  Effect.gen(function*() {
    const retriever = yield* Retriever
    const [found, durationMs] = yield* recorder.timed(retriever.search({ ...request, context }))
    yield* Metric.update(
      withTags(PipelineMetrics.retrievalDuration, { phase: context.step === 0 ? "initial" : "refine" }),
      durationMs
    )
    const passages = recorder.withinBudget(filter(found))
    recorder.addPassages(passages)
    yield* recorder.emit(
      (c) => ({ _tag: "Retrieved", ...c, queries: request.queries, passages, durationMs }),
      context.step
    )
    return passages
  })

export const initNoteStage = (
  recorder: Recorder,
  question: string,
  passages: ReadonlyArray<Passage>,
  context: CallContext
) =>
  Effect.gen(function*() {
    const writer = yield* NoteWriter
    recorder.countCall("init")
    const [note, durationMs] = yield* recorder.timed(writer.init({ question, passages, context }))
    yield* recorder.emit((c) => ({ _tag: "NoteInitialised", ...c, note, durationMs }), 0)
    return note
  })

export const planStage = (
  recorder: Recorder,
  input: { question: string; bestNote: Note; queryLog: ReadonlyArray<string>; count: number },
  context: CallContext,
  select: (plan: Plan) => { readonly kept: ReadonlyArray<string>; readonly dropped: ReadonlyArray<string> }
) =>
  Effect.gen(function*() {
    const planner = yield* QueryPlanner
    recorder.countCall("plan")
    const [plan, durationMs] = yield* recorder.timed(planner.plan({ ...input, context }))
    const { dropped, kept } = select(plan)
    yield* recorder.emit((c) => ({ _tag: "QueriesPlanned", ...c, queries: kept, dropped, durationMs }), context.step)
    return { plan, kept }
  })

/** Rewrites the best note with new passages, then lets the judge compare; returns the next best note. */
export const updateAndJudgeStage = (
  recorder: Recorder,
  input: { question: string; bestNote: Note; passages: ReadonlyArray<Passage> },
  context: CallContext,
  postProcess: (note: Note) => Note = (note) => note
) =>
  Effect.gen(function*() {
    const writer = yield* NoteWriter
    const judge = yield* Judge
    recorder.countCall("update")
    const [written, updateMs] = yield* recorder.timed(writer.update({ ...input, context }))
    const candidate = postProcess(written)
    yield* recorder.emit((c) => ({ _tag: "NoteUpdated", ...c, note: candidate, durationMs: updateMs }), context.step)
    recorder.countCall("judge")
    const [verdict, judgeMs] = yield* recorder.timed(
      judge.compare({ question: input.question, bestNote: input.bestNote, candidate, context })
    )
    return yield* decide(recorder, input.bestNote, candidate, verdict, context.step, judgeMs)
  })

/** Records a verdict: the best note changes only when the verdict says "better"; otherwise a failure counts. */
export const decide = (
  recorder: Recorder,
  bestNote: Note,
  candidate: Note,
  verdict: Verdict,
  step: number,
  durationMs: number
) =>
  Effect.gen(function*() {
    if (!verdict.better) recorder.failures += 1
    yield* Effect.annotateCurrentSpan("deepnote.verdict", verdict.better ? "better" : "not-better")
    yield* Metric.increment(withTags(PipelineMetrics.verdicts, { verdict: verdict.better ? "better" : "not-better" }))
    yield* recorder.emit((c) => ({ _tag: "Judged", ...c, verdict, failures: recorder.failures, durationMs }), step)
    return verdict.better ? candidate : bestNote
  })

export const answerStage = (recorder: Recorder, question: string, evidence: AnswerEvidence, context: CallContext) =>
  Effect.gen(function*() {
    const answerer = yield* Answerer
    const tokens = Option.map(yield* Effect.serviceOption(AnswerTokens), (sink) => sink.publish)
    recorder.countCall("answer")
    const [answer, durationMs] = yield* recorder.timed(
      answerer.answer({ question, evidence, context, ...(Option.isSome(tokens) ? { tokens: tokens.value } : {}) })
    )
    yield* recorder.answered(context.step, answer, durationMs)
    return answer
  })

/** Step 0 of both note loops: retrieve with the question alone, then write the first note (the best note so far). */
export const initialNoteStep = (recorder: Recorder, question: string, base: Omit<CallContext, "step">) =>
  Effect.gen(function*() {
    const { config } = base
    const initial = { ...base, step: 0 }
    const first = yield* retrieveStage(
      recorder,
      { queries: [question], recallK: config.recallK, topK: config.topK, exclude: new Set(), rerankQuery: question },
      initial
    )
    return yield* initNoteStage(recorder, question, first, initial)
  }).pipe(withHotSpan("deepnote.step", { attributes: { "deepnote.step": 0, "deepnote.item.id": base.questionId } }))
