import { Options } from "@effect/cli"
import type { Command } from "@effect/cli"
import {
  boundedInteger,
  collectionOption,
  configFileOption,
  datasetFormatOption,
  homeOption,
  questionLimitOption,
  runLabelOption,
  skipBadLinesOption,
  storeOption
} from "../commands/Common.js"
import { concurrencyOption, quietOption } from "../commands/RunCommand.js"
import { knobOptions } from "../config/Knobs.js"
import { llmOptions } from "../engine/LlmOptions.js"
import { runTraceOptions } from "../telemetry/TraceOptions.js"

/** The flags of `deepnote align-data`: the recipe, the output, and `run`'s knobs, engine and run flags. */
export const alignOptions = {
  dataset: Options.file("dataset", { exists: "yes" }).pipe(
    Options.withDescription("questions (any `deepnote run` format; the paper samples 2WikiMQA train)"),
    Options.optional
  ),
  fromRun: Options.text("from-run").pipe(
    Options.withDescription("write the pairs of an existing align run (e.g. one its workers finished) instead"),
    Options.optional
  ),
  format: datasetFormatOption,
  limit: questionLimitOption,
  roles: Options.text("roles").pipe(
    Options.optional,
    Options.withDescription("roles to make pairs for: init,plan,update,answer (default all four)")
  ),
  samples: boundedInteger("samples", 2, 1000).pipe(
    Options.withDefault(9),
    Options.withDescription("samples per group (default 9: each point of the paper's 3 × 3 grid once)")
  ),
  grid: Options.keyValueMap("sampling-grid").pipe(
    Options.optional,
    Options.withDescription(
      "sampling grid, every combination: temperature=0.1,0.5,0.9 top_p=0.1,0.5,0.9 (the paper's, the default)"
    )
  ),
  judgeModel: Options.text("judge-model").pipe(
    Options.optional,
    Options.withDescription(
      "model of the group and ARD judges (the paper: GPT-4o-mini; default: the judge role's model)"
    )
  ),
  topKRange: Options.text("top-k-range").pipe(
    Options.optional,
    Options.withDescription("top-k drawn per question from MIN..MAX by seed (default 3..9, or --top-k when given)")
  ),
  mix: Options.text("mix").pipe(
    Options.optional,
    Options.withDescription(
      "pairs kept per role: all (default), paper (D_Init 1900, D_QR 1900, D_KA 1900, D_Ans 300, scaled to what " +
        "exists) or init=N,plan=N,update=N,answer=N; drawn by --seed"
    )
  ),
  output: Options.file("output", { exists: "either" }).pipe(
    Options.withAlias("o"),
    Options.optional,
    Options.withDescription("the JSONL file of pairs (TRL conversational format; written when the run completes)")
  ),
  splitRoles: Options.boolean("split-roles").pipe(
    Options.withDescription("one file per role beside --output (pairs.init.jsonl, …) instead of a role field")
  ),
  card: Options.file("card", { exists: "either" }).pipe(
    Options.optional,
    Options.withDescription("the dataset card (markdown; default: beside --output, pairs.card.md)")
  ),
  skipBadLines: skipBadLinesOption,
  label: runLabelOption,
  enqueue: Options.boolean("enqueue").pipe(
    Options.withDescription(
      "queue the questions for `deepnote worker` processes instead of executing them here; prints the run id; " +
        "write the pairs afterwards with --from-run"
    )
  ),
  store: storeOption,
  collection: collectionOption,
  knobs: knobOptions,
  configFile: configFileOption,
  concurrency: concurrencyOption,
  quiet: quietOption,
  home: homeOption,
  llm: llmOptions,
  tracing: runTraceOptions
}

/** The parsed flags. */
export type AlignOptions = Command.Command.ParseConfig<typeof alignOptions>
