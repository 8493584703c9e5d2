import {
  renderComparedItemsCsv,
  renderComparisonCsv,
  renderComparisonJson,
  renderComparisonTable
} from "@deepnote-rag/eval"
import { compareRuns } from "@deepnote-rag/runs"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { UsageError } from "../Errors.js"
import { runServices, storeFailed, unknownRun } from "../runs/RunServices.js"
import { boundedInteger, homeOption, storeOption } from "./Common.js"

/** `deepnote compare BASE CANDIDATE`: per-metric differences with paired-bootstrap intervals, and what changed. */
export const compareCommand = Command.make(
  "compare",
  {
    base: Args.text({ name: "base-run" }).pipe(Args.withDescription("the run compared against")),
    candidate: Args.text({ name: "candidate-run" }).pipe(Args.withDescription("the run under test")),
    format: Options.choice("format", ["table", "json", "csv"]).pipe(
      Options.withDefault("table" as const),
      Options.withDescription("output format (--json and --csv are short for it)")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("the whole comparison as JSON")),
    csv: Options.boolean("csv").pipe(Options.withDescription("one CSV row per metric")),
    perItem: Options.boolean("per-item").pipe(
      Options.withDescription("CSV: one row per paired question (its change and primary-metric scores) instead")
    ),
    resamples: boundedInteger("resamples", 100, 100_000).pipe(
      Options.withDescription("bootstrap resamples (default 1000)"),
      Options.optional
    ),
    seed: boundedInteger("seed", 0, 2 ** 31 - 1).pipe(
      Options.withDescription("the bootstrap's seed (default 20241011): the same seed gives the same intervals"),
      Options.optional
    ),
    show: boundedInteger("show", 0, 100_000).pipe(
      Options.withDescription("table: regressed and improved questions listed (each; default 10)"),
      Options.withDefault(10)
    ),
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const { comparison } = yield* compareRuns(opts.base, opts.candidate, {
        ...Option.match(opts.resamples, { onNone: () => ({}), onSome: (resamples) => ({ resamples }) }),
        ...Option.match(opts.seed, { onNone: () => ({}), onSome: (seed) => ({ seed }) })
      })
      const runs = { base: opts.base, candidate: opts.candidate }
      const format = opts.json ? "json" : opts.csv ? "csv" : opts.format
      yield* Console.log(
        format === "json"
          ? renderComparisonJson(runs, comparison)
          : format === "csv"
          ? (opts.perItem ? renderComparedItemsCsv(comparison) : renderComparisonCsv(runs, comparison)).trimEnd()
          : renderComparisonTable(runs, comparison, opts.show)
      )
    }).pipe(
      Effect.catchTags({
        NothingToCompare: (e) =>
          new UsageError({ message: `cannot compare ${opts.base} and ${opts.candidate}: ${e.message}` }),
        RunNotFound: unknownRun,
        StoreError: storeFailed
      }),
      Effect.provide(runServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Compare two runs question by question (paired by question id): each metric's difference with a paired " +
      "bootstrap 95% interval, and the questions that regressed or improved."
  )
)
