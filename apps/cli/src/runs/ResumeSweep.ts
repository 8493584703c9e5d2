import { counted } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { createSweepCell, recordedLlmServers, sweepCellConfig, type SweepState } from "@deepnote-rag/runs"
import type { Run } from "@deepnote-rag/store"
import { Console, Effect } from "effect"
import { llmEngineFacts } from "../engine/LlmFacts.js"
import { resolveLlmSettings } from "../engine/LlmOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { type Resumed, type ResumeFlags, resumeRun } from "./ResumeRun.js"

/**
 * Continues a sweep cell by cell, in order: a completed cell is left as it is, an unfinished one is resumed, and a
 * cell an interruption left uncreated is created (from a sibling cell's run: same questions, dataset and settings,
 * this cell's knob values) and run. Returns how the runs executed here ended.
 */
export const resumeSweep = (state: SweepState, flags: ResumeFlags) =>
  Effect.gen(function*() {
    const { sweep, cells } = state
    const template = cells.find((c) => c.run !== undefined)?.run
    if (template === undefined) {
      return yield* new CommandFailed({
        message: `sweep ${sweep.id} has no run yet to take its dataset and settings from: start it again with ` +
          "`deepnote run --sweep FILE`"
      })
    }
    const ended: Array<Resumed> = []
    for (const c of cells) {
      const where = `sweep ${sweep.id} cell ${c.index + 1}/${cells.length} ${JSON.stringify(c.cell)}`
      if (c.run !== undefined && c.run.status === "completed" && !(flags.retryFailed && c.run.counts.failed > 0)) {
        yield* Console.log(`run ${c.run.id}: already complete · ${where}`)
        continue
      }
      const run: Run = c.run ?? (yield* createCell(template, c.index, c.cell, flags))
      yield* Console.log(
        c.run === undefined
          ? `run ${run.id}: ${counted(run.counts.total, "question")} · ${where} (created now)`
          : `run ${run.id}: resuming (${run.status}) · ${where}`
      )
      // a queue run's questions are queued for workers; a local one executes here
      const result = yield* resumeRun(run, flags)
      if (result !== undefined) ended.push(result)
    }
    return ended
  })

/** The run of a cell not created yet, with this build's prompts and (LLM engine) the models its servers serve. */
const createCell = (template: Run, index: number, cell: Record<string, unknown>, flags: ResumeFlags) =>
  Effect.gen(function*() {
    const config = yield* sweepCellConfig(template, cell).pipe(
      Effect.mapError((e) => new UsageError({ message: e.message }))
    )
    const llm = config.engine === "llm"
      ? yield* llmEngineFacts(
        yield* resolveLlmSettings(flags.llm, undefined, "batch", undefined, recordedLlmServers(template)),
        config
      )
      : undefined
    return yield* createSweepCell({ template, index, cell, config, promptSetHash: promptSetHash(config), llm })
  })
