import { counted, profiles, type RetrieverKind, retrieverOf, RunConfig } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { Collections } from "@deepnote-rag/retrieval"
import { createRun, enqueueRun, expandSweep } from "@deepnote-rag/runs"
import { Sweeps } from "@deepnote-rag/store"
import { Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Option, Schema } from "effect"
import { knobOptions } from "../config/Knobs.js"
import { llmEngineFacts } from "../engine/LlmFacts.js"
import { llmOptions, resolveLlmSettings } from "../engine/LlmOptions.js"
import { meiliFacts } from "../engine/MeiliFacts.js"
import { meiliForConfig, meiliOptions } from "../engine/MeiliOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { chooseConcurrency, describeConcurrency } from "../runs/DefaultConcurrency.js"
import { executeWithProgress, failOnFailedQuestions } from "../runs/ExecuteWithProgress.js"
import { runEngineLayer } from "../runs/RunEngine.js"
import { queueServices, storeChoice, storeFailed } from "../runs/RunServices.js"
import { tracedRun } from "../telemetry/Traced.js"
import { runTraceOptions } from "../telemetry/TraceOptions.js"
import { requireCollection, requireDense, resolveConfigAndCollection } from "./AskSupport.js"
import {
  boundedInteger,
  collectionOption,
  configFileOption,
  datasetFormatOption,
  homeOption,
  maxConcurrency,
  questionLimitOption,
  runLabelOption,
  skipBadLinesOption,
  storeOption
} from "./Common.js"

/** Questions in flight at once when nothing says otherwise (`align-data`, a resume of a run that recorded none). */
export const defaultConcurrency = 16

export const concurrencyOption = boundedInteger("concurrency", 1, maxConcurrency).pipe(
  Options.withDescription(`questions in flight at once (each its own fiber; default ${defaultConcurrency})`),
  Options.withDefault(defaultConcurrency)
)
export const quietOption = Options.boolean("quiet").pipe(
  Options.withAlias("q"),
  Options.withDescription("no progress output")
)

/** `run`'s: absent means the LLM endpoints' capacity (or the extractive default), chosen at start. */
const runConcurrencyOption = boundedInteger("concurrency", 1, maxConcurrency).pipe(
  Options.withDescription(
    "questions in flight at once (each its own fiber); default: the LLM endpoints' capacity (their url#N limits, " +
      "else the max_num_seqs they report, + 1/8 headroom), 16 for the extractive engine; printed at start"
  ),
  Options.optional
)

const runOptions = {
  dataset: Options.file("dataset", { exists: "yes" }).pipe(
    Options.withDescription(
      "questions: IRCoT/HotpotQA/MuSiQue/2Wiki/CMRC JSONL or plain JSONL {id?, question, answers?}"
    )
  ),
  format: datasetFormatOption,
  limit: questionLimitOption,
  skipBadLines: skipBadLinesOption,
  sweep: Options.file("sweep", { exists: "yes" }).pipe(
    Options.optional,
    Options.withDescription(
      "YAML/JSON grid, e.g. grid: { maxStep: [1,2,3], maxFailure: [1,2] }: one run per valid cell"
    )
  ),
  label: runLabelOption,
  enqueue: Options.boolean("enqueue").pipe(
    Options.withDescription(
      "create the run (every sweep cell) and queue its questions for `deepnote worker` processes instead of executing " +
        "them here; prints the run id (a sweep: the sweep id, then each run id) one per line and exits"
    )
  ),
  store: storeOption,
  collection: collectionOption,
  knobs: knobOptions,
  configFile: configFileOption,
  concurrency: runConcurrencyOption,
  quiet: quietOption,
  home: homeOption,
  llm: llmOptions,
  meili: meiliOptions,
  tracing: runTraceOptions
}

/** `deepnote run --dataset FILE`: a resumable evaluation run (or a sweep of runs). */
export const runCommand = Command.make(
  "run",
  runOptions,
  (opts) =>
    // the config file is read once: its knobs, and its `store` before the store is opened
    Effect.flatMap(
      resolveConfigAndCollection(opts),
      ({ collection, config, file }) =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const expanded = Option.isNone(opts.sweep)
            ? undefined
            : yield* expandSweep(
              yield* fs.readFileString(opts.sweep.value).pipe(Effect.orDie),
              opts.sweep.value,
              Schema.encodeSync(RunConfig)(config)
            ).pipe(
              Effect.tap((s) =>
                Effect.forEach(s.skipped, (k) => Console.error(`skipping cell ${JSON.stringify(k.cell)}: ${k.reason}`))
              ),
              Effect.mapError((e) => new UsageError({ message: e.message }))
            )
          const cells = expanded?.cells ?? [{ index: 0, cell: {}, config }]
          // a cell retrieves from the collection (bm25) or the Meilisearch index; either is checked before any run
          const searches = (retriever: (kind: RetrieverKind) => boolean) =>
            cells.some((c) => profiles[c.config.profile].retrieves && retriever(retrieverOf(c.config)))
          if (searches((kind) => kind !== "meilisearch")) yield* requireCollection(collection)
          // a profile that does not retrieve needs no Meilisearch even when `retriever` names it
          const isMeili = (kind: RetrieverKind) => kind === "meilisearch"
          const meili = !searches(isMeili) && retrieverOf(config) === "meilisearch"
            ? undefined
            : yield* meiliForConfig(
              searches(isMeili) ? "meilisearch" : retrieverOf(config),
              opts.meili,
              file?.meili,
              Option.getOrUndefined(opts.configFile)
            )
          const meiliTarget = meili === undefined ? undefined : yield* meiliFacts(meili)
          // bad LLM settings are a usage error, and a model no server serves a failure, before any run is created
          const llmSettings = cells.some((c) => c.config.engine === "llm")
            ? yield* resolveLlmSettings(opts.llm, file?.llm)
            : undefined
          const facts = yield* Effect.forEach(cells, (c) =>
            c.config.engine === "llm" && llmSettings !== undefined
              ? llmEngineFacts(llmSettings, c.config)
              : Effect.succeed(undefined))
          // a dense or hybrid cell records its collection's embeddings model (and is refused without vectors)
          const embeddings = yield* Effect.forEach(cells, (c) =>
            profiles[c.config.profile].retrieves
              ? requireDense(c.config, collection)
              : Effect.succeed(undefined))
          // every valid cell is recorded before the first run: `resume SWEEP_ID` creates those an interruption left
          const sweep = expanded !== undefined
            ? yield* (yield* Sweeps).create({
              grid: { cells: cells.map((c) => c.cell), knobs: expanded.grid },
              // --label, else the sweep file's `label`
              label: Option.getOrUndefined(opts.label) ?? expanded.label
            })
            : undefined
          const finished: Array<
            { readonly runId: string; readonly counts: { readonly failed: number; readonly total: number } }
          > = []
          const fingerprint = !searches((kind) => kind !== "meilisearch")
            ? undefined
            : yield* (yield* Collections).fingerprint(collection).pipe(
              Effect.mapError((e) => new CommandFailed({ message: e.message }))
            )
          let printed: string | undefined
          if (opts.enqueue && sweep !== undefined) yield* Console.log(sweep.id)
          else if (sweep !== undefined) {
            yield* Console.log(
              `sweep ${sweep.id}: ${cells.length} cells (if stopped, \`deepnote resume ${sweep.id}\` continues every cell)`
            )
          }
          for (const [i, cell] of cells.entries()) {
            // printed once, and again when a sweep cell (another engine) chooses differently
            const concurrency = chooseConcurrency(opts.concurrency, facts[i]?.capacity)
            const line = describeConcurrency(concurrency)
            if (line !== printed) yield* Console.error(line)
            printed = line
            const { badLines, run } = yield* createRun({
              dataset: opts.dataset,
              format: opts.format === "auto" ? undefined : opts.format,
              limit: Option.getOrUndefined(opts.limit),
              onBadLine: opts.skipBadLines ? "skip" : "fail",
              config: cell.config,
              collection,
              promptSetHash: promptSetHash(cell.config),
              label: Option.getOrUndefined(opts.label),
              concurrency: concurrency.value,
              concurrencyReason: concurrency.reason,
              llm: facts[i],
              sweep: sweep === undefined ? undefined : { sweepId: sweep.id, index: cell.index, cell: cell.cell },
              ...(cell.config.retriever === "meilisearch"
                ? { meilisearch: meiliTarget }
                : { collectionFingerprint: fingerprint, embeddings: embeddings[i] }),
              execution: opts.enqueue ? "queue" : "local"
            }).pipe(Effect.mapError((e) =>
              e._tag === "DatasetError"
                ? new UsageError({ message: e.message })
                : new CommandFailed({ message: e.message })
            ))
            for (const bad of badLines) {
              yield* Console.error(
                `skipped ${bad.path}:${bad.line}${bad.field ? ` (${bad.field})` : ""}: ${bad.message}`
              )
            }
            if (opts.enqueue) {
              const { jobs } = yield* enqueueRun(run.id).pipe(
                Effect.mapError((e) => new CommandFailed({ message: e.message }))
              )
              yield* Console.log(run.id)
              yield* Console.error(
                `run ${run.id}: ${counted(jobs, "question")} queued for workers${
                  sweep ? ` (sweep ${sweep.id} cell ${cell.index + 1}/${cells.length})` : ""
                }; follow it with \`deepnote status ${run.id}\``
              )
              continue
            }
            yield* Console.log(
              `run ${run.id}: ${counted(run.counts.total, "question")}${
                sweep ? ` · sweep ${sweep.id} cell ${cell.index + 1}/${cells.length} ${JSON.stringify(cell.cell)}` : ""
              } (resume with \`deepnote resume ${run.id}\`)`
            )
            const engine = runEngineLayer(cell.config, collection, opts.llm, file?.llm, opts.home, meili)
            const ended = yield* executeWithProgress(run.id, engine, {
              quiet: opts.quiet,
              concurrency: concurrency.value,
              retryFailed: false,
              label: "cli run"
            }).pipe(tracedRun(opts.tracing, run.id))
            finished.push({ runId: run.id, counts: ended.counts })
          }
          yield* failOnFailedQuestions(finished)
        }).pipe(
          Effect.catchTags({
            StoreError: storeFailed
          }),
          Effect.provide(queueServices(opts.home, storeChoice(opts.store, file?.store)))
        )
    )
).pipe(
  Command.withDescription(
    "Answer every question of a dataset as a resumable run (or one run per cell of a --sweep grid); Ctrl-C stops cleanly."
  )
)
