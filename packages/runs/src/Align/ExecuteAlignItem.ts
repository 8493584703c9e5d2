import {
  alignQuestion,
  ExtractiveRanker,
  ExtractiveSampler,
  fromRoles,
  LlmRanker,
  Ranker,
  type RankerService,
  type Sampler
} from "@deepnote-rag/align"
import { type AlignSpec, Answerer, NoteWriter, QueryPlanner } from "@deepnote-rag/core"
import { LlmCallPolicy, LlmClient } from "@deepnote-rag/llm"
import { Journal, type PendingItem } from "@deepnote-rag/store"
import { Cause, Context, Effect, Exit, Option } from "effect"
import type { EngineServices } from "../Executor/EngineServices.js"
import type { ItemOutcome } from "../Executor/ExecuteItem.js"
import { itemFrame, startItem } from "../Executor/ItemFrame.js"
import type { RunPlan } from "../Executor/RunPlan.js"
import { settleItem } from "../Executor/SettleItem.js"
import { journalCalls } from "../Journal/JournaledRoles.js"

/**
 * Where an align run's samples come from and who judges them: the extractive engine's varied options and rules, or
 * the engine's LLM roles (the slot's sampling in each call's context) and the LLM group judge over the engine's client.
 */
const alignEngine = (
  plan: RunPlan & { readonly align: AlignSpec },
  engine: Context.Context<EngineServices>
): Effect.Effect<{ readonly sampler: Sampler; readonly ranker: RankerService }> =>
  plan.config.engine === "extractive"
    ? Effect.all({ sampler: ExtractiveSampler.make(plan.align.grid), ranker: ExtractiveRanker.make })
    : Option.match(Context.getOption(engine, LlmClient), {
      onNone: () => Effect.dieMessage("the LLM engine's client is missing from the engine"),
      onSome: (client) =>
        Effect.map(Effect.provideService(LlmRanker.make, LlmClient, client), (ranker) => ({
          sampler: fromRoles({
            noteWriter: Context.get(engine, NoteWriter),
            queryPlanner: Context.get(engine, QueryPlanner),
            answerer: Context.get(engine, Answerer)
          }),
          ranker
        }))
    })

/**
 * Runs one question of an align run (DNAlign's recipe, `alignQuestion`): every sample, judge call and retrieval goes
 * through the question's journal (replayed where journaled, so a resumed question re-sends nothing finished), and the
 * question's pairs are stored as its result in one transaction. A failed question is recorded with its error; it
 * never fails the run. Interrupted between two calls, the question stays `running` for resume.
 */
export const executeAlignItem = (
  plan: RunPlan & { readonly align: AlignSpec },
  engine: Context.Context<EngineServices>,
  item: PendingItem,
  stopping: Effect.Effect<boolean>,
  options: { readonly claimed?: boolean } = {}
) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const { runId } = plan
    yield* startItem(runId, item.itemId, options.claimed)
    const replay = yield* journal.replaying(runId, item.itemId)
    const { ranker, sampler } = yield* alignEngine(plan, engine)
    const exit = yield* alignQuestion({
      question: item.question,
      runId,
      config: plan.config,
      spec: plan.align,
      sampler,
      calls: journalCalls(replay, plan.configHash, stopping)
    }).pipe(
      Effect.provideService(Ranker, ranker),
      Effect.provide(engine),
      // an align run's calls are batch work (long outage tolerance, batch priority), shared fairly between runs
      LlmCallPolicy.locally({ workClass: "batch", fairnessKey: runId }),
      Effect.exit
    )
    const stats = yield* replay.stats
    if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
      return { itemId: item.itemId, ok: false, stopped: true, ...stats } satisfies ItemOutcome
    }
    const outcome = yield* Effect.either(exit)
    const llmCalls = stats.executed + stats.replayed
    return (yield* settleItem({ runId, itemId: item.itemId, outcome, stats, llmCalls })) satisfies ItemOutcome
  }).pipe(itemFrame("RunExecutor.alignItem", plan.runId, item.itemId))
