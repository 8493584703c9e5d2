import { summaryLines } from "@deepnote-rag/align"
import { counted } from "@deepnote-rag/core"
import { alignSummary, describeRunState, runState, type RunStateView, type SweepState } from "@deepnote-rag/runs"
import { Run, RunStore, Sweep } from "@deepnote-rag/store"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option, Schema } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"
import { runOrSweep } from "../runs/RunOrSweep.js"
import { runServices, storeFailures } from "../runs/RunServices.js"
import { boundedInteger, homeOption, jsonOption, storeOption } from "./Common.js"

/** Runs `deepnote status` lists at a time without `--limit`. */
const defaultListLimit = 200

/** What a run runs: its profile and knobs, or an align run's recipe (roles, samples, top-k range). */
const recipeOf = (run: Run): string => {
  const cfg = run.manifest.config
  const align = run.manifest.align
  return align === undefined
    ? `${cfg.profile}/${cfg.engine} step ${cfg.maxStep} fail ${cfg.maxFailure} k ${cfg.topK}`
    : `align/${cfg.engine} ${align.roles.join(",")} ×${align.samples} k ${align.topK.min}..${align.topK.max}`
}

const describe = (run: Run, state: RunStateView, withSweep = true) => {
  const c = run.counts
  return `${run.id}  ${state.state.padEnd(23)} ${String(c.done).padStart(5)}/${c.total} done ${
    String(c.failed).padStart(4)
  } failed  ` +
    `${recipeOf(run)}  ${run.manifest.dataset.path}${run.sweepId && withSweep ? `  sweep ${run.sweepId}` : ""}${
      run.execution === "queue" ? "  (queue)" : ""
    }`
}

/** A run as `status --json` prints it: the stored run, its state and, when running locally, its owner. */
const toJson = (run: Run, state: RunStateView) => ({
  ...Schema.encodeSync(Run)(run),
  state: state.state,
  ...(state.owner === undefined ? {} : { owner: state.owner })
})

/** A sweep: one line per cell, in order (`not created` for the cells an interruption left uncreated). */
const showSweep = (sweep: SweepState, json: boolean) =>
  Effect.gen(function*() {
    const states = yield* Effect.forEach(
      sweep.cells,
      (c) => (c.run === undefined ? Effect.succeed(undefined) : runState(c.run))
    )
    if (json) {
      return yield* Console.log(JSON.stringify(
        {
          ...Schema.encodeSync(Sweep)(sweep.sweep),
          knobs: sweep.knobs,
          cells: sweep.cells.map((c, i) => ({
            index: c.index,
            cell: c.cell,
            ...(c.run === undefined || states[i] === undefined ? {} : { run: toJson(c.run, states[i]) })
          }))
        },
        null,
        2
      ))
    }
    const missing = sweep.cells.filter((c) => c.run === undefined).length
    const unfinished = sweep.cells.filter((c) => c.run !== undefined && c.run.status !== "completed").length
    yield* Console.log(
      `sweep ${sweep.sweep.id}${
        sweep.sweep.label === undefined ? "" : ` (${sweep.sweep.label})`
      } · ${sweep.cells.length} cells · created ${sweep.sweep.createdAt.toISOString()}`
    )
    for (const [i, c] of sweep.cells.entries()) {
      const state = states[i]
      yield* Console.log(
        `  cell ${c.index + 1}/${sweep.cells.length} ${JSON.stringify(c.cell)}  ${
          c.run === undefined || state === undefined ? "not created" : describe(c.run, state, false)
        }`
      )
    }
    if (missing + unfinished > 0) {
      yield* Console.log(
        `  ${counted(missing, "cell")} not created, ${unfinished} not completed: deepnote resume ${sweep.sweep.id}`
      )
    }
  })

/** `deepnote status [RUN_ID]`: every run newest first, or one run in detail. */
export const statusCommand = Command.make(
  "status",
  {
    runId: Args.text({ name: "id" }).pipe(
      Args.withDescription("a run id, or a sweep id (one line per cell)"),
      Args.optional
    ),
    limit: boundedInteger("limit", 1, 100_000).pipe(
      Options.withDefault(defaultListLimit),
      Options.withDescription("without an id: how many runs to list, newest first (default 200)")
    ),
    before: Options.text("before").pipe(
      Options.optional,
      Options.withDescription("without an id: the runs listed after this one (the next page)")
    ),
    json: jsonOption,
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const store = yield* RunStore
      if (Option.isNone(opts.runId)) {
        const before = Option.getOrUndefined(opts.before)
        // an unknown cursor would list nothing, as if there were no older runs: refused by name instead
        if (before !== undefined && (yield* runOrSweep(before))._tag !== "run") {
          return yield* new UsageError({ message: `--before takes a run id; ${before} is a sweep` })
        }
        const runs = yield* store.listRuns({ limit: opts.limit, before })
        const states = yield* Effect.forEach(runs, runState)
        const last = runs.at(-1)
        const more = runs.length === opts.limit && last !== undefined
          ? Console.error(
            `older runs: deepnote status --before ${last.id}${
              opts.limit === defaultListLimit ? "" : ` --limit ${opts.limit}`
            }`
          )
          : Effect.void
        if (opts.json) {
          yield* Console.log(JSON.stringify(runs.map((r, i) => toJson(r, states[i]!)), null, 2))
          return yield* more
        }
        if (runs.length === 0) {
          return yield* Console.log(
            before === undefined
              ? "no runs yet (start one with `deepnote run --dataset FILE --collection NAME`)"
              : `no runs before ${before}`
          )
        }
        for (const [i, run] of runs.entries()) yield* Console.log(describe(run, states[i]!))
        return yield* more
      }
      const target = yield* runOrSweep(opts.runId.value)
      if (target._tag === "sweep") return yield* showSweep(target.state, opts.json)
      const run = target.run
      const state = yield* runState(run)
      // an align run: its pairs so far per role (questions, pairs, drops by reason, judge agreement)
      const align = run.manifest.align === undefined ? undefined : yield* alignSummary(run)
      if (opts.json) {
        return yield* Console.log(
          JSON.stringify({ ...toJson(run, state), ...(align === undefined ? {} : { alignSummary: align }) }, null, 2)
        )
      }
      yield* Console.log(describe(run, state))
      yield* Console.log(`  ${describeRunState(state)}${state.state === "stale" ? `: deepnote resume ${run.id}` : ""}`)
      yield* Console.log(
        `  created ${run.createdAt.toISOString()}${run.startedAt ? ` · started ${run.startedAt.toISOString()}` : ""}${
          run.finishedAt ? ` · finished ${run.finishedAt.toISOString()}` : ""
        }`
      )
      if (run.message) yield* Console.log(`  ${run.message}`)
      for (const line of align === undefined ? [] : summaryLines(align)) yield* Console.log(`  ${line}`)
      yield* Console.log(
        `  pending ${run.counts.pending} · running ${run.counts.running} · config ${
          run.manifest.configHash.slice(0, 12)
        } · ${run.manifest.codeVersion}`
      )
    }).pipe(
      Effect.catchTags({ ...storeFailures, NotAlignRun: (e) => new CommandFailed({ message: e.message }) }),
      Effect.provide(runServices(opts.home, opts.store))
    )
).pipe(Command.withDescription("List runs (newest first), or show one run's status and counts, or a sweep's cells."))
