import {
  renderCsv,
  renderJson,
  renderSideBySideCsv,
  renderSideBySideTable,
  renderTable,
  sideBySideJson,
  type SideBySideRow
} from "@deepnote-rag/eval"
import { runReport, type SweepState } from "@deepnote-rag/runs"
import type { Run } from "@deepnote-rag/store"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { UsageError } from "../Errors.js"
import { leanHeap } from "../runs/LeanHeap.js"
import { runOrSweep } from "../runs/RunOrSweep.js"
import { runServices, storeFailures } from "../runs/RunServices.js"
import { homeOption, storeOption } from "./Common.js"

type Format = "table" | "json" | "csv"

const rowOf = (run: Run) =>
  Effect.map(runReport(run.id), (report): SideBySideRow => ({
    runId: run.id,
    cell: run.manifest.sweep?.cell,
    label: run.manifest.label,
    report
  }))

/** A sweep's rows: one per cell, in order, the cells not created yet included. */
const sweepRows = (state: SweepState) =>
  Effect.forEach(
    state.cells,
    (c): ReturnType<typeof rowOf> => (c.run === undefined ? Effect.succeed({ cell: c.cell }) : rowOf(c.run))
  )

const sweepTitle = (state: SweepState) => {
  const created = state.cells.filter((c) => c.run !== undefined).length
  return `sweep ${state.sweep.id}${state.sweep.label === undefined ? "" : ` (${state.sweep.label})`}: ${
    Object.keys(state.knobs).join(" × ")
  }, ${created}/${state.cells.length} cells created${
    created < state.cells.length ? ` (create and run the rest with \`deepnote resume ${state.sweep.id}\`)` : ""
  }`
}

const printRows = (format: Format, title: string, rows: ReadonlyArray<SideBySideRow>, json: () => object) =>
  Console.log(
    format === "json"
      ? JSON.stringify(json(), null, 2)
      : format === "csv"
      ? renderSideBySideCsv(rows)
      : renderSideBySideTable(title, rows)
  )

/** `deepnote eval ID…`: one run's metric table, a sweep's (a row per cell), or several runs side by side. */
export const evalCommand = Command.make(
  "eval",
  {
    ids: Args.text({ name: "id" }).pipe(
      Args.withDescription("a run id; a sweep id (a row per cell); or several run or sweep ids (side by side)"),
      Args.atLeast(1)
    ),
    format: Options.choice("format", ["table", "json", "csv"]).pipe(
      Options.withDefault("table" as const),
      Options.withDescription("output format")
    ),
    perItem: Options.boolean("per-item").pipe(Options.withDescription("include per-question scores (json, one run)")),
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      if (opts.perItem && opts.format !== "json") {
        return yield* new UsageError({
          message:
            `--per-item adds per-question scores to the JSON report: use it with --format json (got --format ${opts.format})`
        })
      }
      yield* leanHeap
      const targets = yield* Effect.forEach(opts.ids, runOrSweep)
      const aligned = targets.find((t) => t._tag === "run" && t.run.manifest.align !== undefined)
      if (aligned?._tag === "run") {
        return yield* new UsageError({
          message: `run ${aligned.run.id} is an align run: it makes preference pairs, not answers (see \`deepnote ` +
            `status ${aligned.run.id}\`; write its pairs with \`deepnote align-data --from-run ${aligned.run.id}\`)`
        })
      }
      const [only] = targets
      if (opts.perItem && (targets.length > 1 || only?._tag !== "run")) {
        return yield* new UsageError({ message: "--per-item applies to one run id (not a sweep or several runs)" })
      }
      if (targets.length === 1 && only?._tag === "run") {
        const report = yield* runReport(only.run.id, { perItem: opts.perItem })
        return yield* Console.log(
          opts.format === "json" ? renderJson(report) : opts.format === "csv" ? renderCsv(report) : renderTable(report)
        )
      }
      if (targets.length === 1 && only?._tag === "sweep") {
        const { state } = only
        const rows = yield* sweepRows(state)
        return yield* printRows(opts.format, sweepTitle(state), rows, () => ({
          sweep: { id: state.sweep.id, label: state.sweep.label, grid: state.knobs },
          cells: sideBySideJson(rows)
        }))
      }
      const rows = (yield* Effect.forEach(targets, (t) =>
        t._tag === "run" ? Effect.map(rowOf(t.run), (row) => [row]) : sweepRows(t.state))).flat()
      return yield* printRows(opts.format, `${rows.length} runs side by side`, rows, () => ({
        runs: sideBySideJson(rows)
      }))
    }).pipe(
      Effect.catchTags(storeFailures),
      Effect.provide(runServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Score a run (EM, F1, Acc and the task's metrics with 95% bootstrap intervals, calls, tokens, stop reasons), " +
      "a sweep (a row per cell), or several runs side by side."
  )
)
