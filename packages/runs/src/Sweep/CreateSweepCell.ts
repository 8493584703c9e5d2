import { decodeIssues, RunConfig } from "@deepnote-rag/core"
import { type Run, RunManifest, RunStore } from "@deepnote-rag/store"
import { Chunk, Effect, Schema, Stream } from "effect"
import { configFacts, type EngineFacts } from "../RunSetup.js"
import { SweepError } from "./SweepGrid.js"

/**
 * A cell's configuration from a sibling cell's run: every cell of a grid shares the base settings and sets the same
 * knobs, so the sibling's configuration with this cell's knob values is what the sweep would have created.
 */
export const sweepCellConfig = (template: Run, cell: Record<string, unknown>) =>
  Schema.decodeUnknown(RunConfig, { onExcessProperty: "error" })({
    ...Schema.encodeSync(RunConfig)(template.manifest.config),
    ...cell
  }).pipe(
    Effect.mapError((e) =>
      new SweepError({
        message: `cell ${JSON.stringify(cell)}: ${
          decodeIssues(e).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")
        }`
      })
    )
  )

export interface NewSweepCell {
  /** A run of another cell of the same sweep: its dataset, collection and settings are copied. */
  readonly template: Run
  readonly index: number
  readonly cell: Record<string, unknown>
  readonly config: RunConfig
  readonly promptSetHash: string
  /** What the LLM engine's startup check found for this cell's configuration. */
  readonly llm?: EngineFacts | undefined
}

/**
 * Creates the run of a sweep cell an interruption left uncreated: the sibling's manifest with this cell's
 * configuration, and the sibling's questions (the same ids, so the cells compare question by question), in one
 * transaction.
 */
export const createSweepCell = Effect.fn("createSweepCell")(function*(input: NewSweepCell) {
  const { template } = input
  const sweepId = template.manifest.sweep?.sweepId
  yield* Effect.annotateCurrentSpan({ "deepnote.sweep.id": sweepId ?? "", "deepnote.sweep.cell": input.index })
  const store = yield* RunStore
  const records = yield* Stream.runCollect(
    store.results(template.id, { statuses: ["done", "failed", "pending", "running"] })
  )
  const manifest = new RunManifest({
    ...template.manifest,
    ...configFacts(input),
    ...(sweepId === undefined ? {} : { sweep: { sweepId, index: input.index, cell: input.cell } })
  })
  return yield* store.createRun({
    manifest,
    execution: template.execution,
    questions: Chunk.toReadonlyArray(records).map((r) => r.question)
  })
})
