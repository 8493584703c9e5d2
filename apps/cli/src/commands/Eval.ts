import { renderCsv, renderJson, renderTable } from "@deepnote/eval"
import { runReport } from "@deepnote/runs"
import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { CommandFailed } from "../Errors.js"
import { runServices } from "../runs/RunServices.js"
import { homeOption, storeOption } from "./Common.js"
import { runIdArg } from "./Resume.js"

/** `deepnote eval RUN_ID`: the run's metric table (works while it runs and on interrupted runs). */
export const evalCommand = Command.make(
  "eval",
  {
    runId: runIdArg,
    format: Options.choice("format", ["table", "json", "csv"]).pipe(
      Options.withDefault("table" as const),
      Options.withDescription("output format")
    ),
    perItem: Options.boolean("per-item").pipe(Options.withDescription("include per-question scores (json)")),
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const report = yield* runReport(opts.runId, { perItem: opts.perItem })
      yield* Console.log(
        opts.format === "json" ? renderJson(report) : opts.format === "csv" ? renderCsv(report) : renderTable(report)
      )
    }).pipe(
      Effect.catchTags({
        RunNotFound: (e) => new CommandFailed({ message: `unknown run id "${e.runId}"` }),
        StoreError: (e) => new CommandFailed({ message: e.message })
      }),
      Effect.provide(runServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Score a run: EM, F1, Acc (and the task's metrics) with 95% bootstrap intervals, calls, tokens, stop reasons."
  )
)
