import {
  addResult,
  type AlignSummary,
  datasetCard,
  emptySummary,
  writeFileAtomically,
  writePairs,
  type Written
} from "@deepnote-rag/align"
import type { AlignItemResult, AlignMix, AlignOutput, AlignSpec } from "@deepnote-rag/core"
import { type Run, RunStore } from "@deepnote-rag/store"
import { Clock, Data, Effect, Option, Stream } from "effect"
import { collectionOf } from "../RunSetup.js"

/** The run is not an align run, or has no output to write to. */
export class NotAlignRun extends Data.TaggedError("NotAlignRun")<{ readonly message: string }> {}

const specOf = (run: Run): Effect.Effect<AlignSpec, NotAlignRun> =>
  run.manifest.align === undefined
    ? Effect.fail(new NotAlignRun({ message: `run ${run.id} is not an align run (made by \`deepnote align-data\`)` }))
    : Effect.succeed(run.manifest.align)

/** An align run's stored results (its done questions, in question order). */
export const alignResults = (runId: string) =>
  Effect.map(RunStore, (store) =>
    store.results(runId, { statuses: ["done"] }).pipe(
      Stream.filterMap((record): Option.Option<AlignItemResult> => Option.fromNullable(record.align))
    ))

/** The per-role tally of an align run's results so far (pairs, drops by reason, judge agreement). */
export const alignSummary = (run: Run) =>
  Effect.gen(function*() {
    const spec = yield* specOf(run)
    const results = yield* alignResults(run.id)
    return yield* Stream.runFold(results, emptySummary(spec.roles), addResult)
  })

export interface WrittenOutput {
  readonly written: Written
  readonly card: string
  readonly summary: AlignSummary
}

/**
 * Writes an align run's pairs (JSONL, one file or one per role, mixed as asked) and its dataset card, from the store:
 * the output the run's manifest names, or `override` (another path, split or mix). Both files are written atomically.
 */
export const writeAlignOutput = (
  runId: string,
  override: { readonly output?: AlignOutput | undefined; readonly mix?: AlignMix | undefined } = {}
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const run = yield* store.getRun(runId)
    const spec = yield* specOf(run)
    const output = override.output ?? spec.output
    if (output === undefined) {
      return yield* new NotAlignRun({ message: `run ${run.id} names no output file: give one with -o FILE` })
    }
    const mix = override.mix ?? spec.mix
    const results = yield* alignResults(run.id)
    const written = yield* writePairs(() => results, {
      path: output.path,
      splitRoles: output.splitRoles,
      mix,
      seed: spec.seed,
      roles: spec.roles
    })
    const card = datasetCard({
      runId: run.id,
      date: new Date(yield* Clock.currentTimeMillis).toISOString(),
      dataset: run.manifest.dataset,
      collection: collectionOf(run),
      engine: run.manifest.config.engine,
      profile: run.manifest.config.profile,
      models: run.manifest.models,
      spec: { ...spec, mix },
      written
    })
    yield* writeFileAtomically(output.card, card)
    return { written, card: output.card, summary: written.summary } satisfies WrittenOutput
  })
