import { alignPromptHashes } from "@deepnote-rag/align"
import { AlignSpec, counted, type RunConfig } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { alignPromptSetHash, createRun, enqueueRun } from "@deepnote-rag/runs"
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import * as Path from "node:path"
import { defaultCardPath, parseGrid, parseMix, parseRoles, parseTopKRange } from "../align/AlignFlags.js"
import { type AlignOptions, alignOptions } from "../align/AlignOptions.js"
import { writeAndReport } from "../align/AlignOutputLines.js"
import { llmEngineFacts } from "../engine/LlmFacts.js"
import { resolveLlmSettings } from "../engine/LlmOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { executeWithProgress, failOnFailedQuestions } from "../runs/ExecuteWithProgress.js"
import { runEngineLayer } from "../runs/RunEngine.js"
import { queueServices, storeFailed, storeFailures } from "../runs/RunServices.js"
import { tracedRun } from "../telemetry/Traced.js"
import { requireCollection, resolveConfigAndCollection } from "./AskSupport.js"
import { outputFileOf } from "./OutputFile.js"

/** The profiles whose roles DNAlign's recipe samples: the note loop's (init, plan, rewrite update, answer). */
const noteLoopProfiles: ReadonlyArray<RunConfig["profile"]> = ["deepnote", "paper", "adaptive-note"]

/** The output files: `-o` (its directory must exist), `--split-roles`, `--card`. */
const outputOf = (opts: AlignOptions) =>
  Effect.gen(function*() {
    if (Option.isNone(opts.output)) return yield* new UsageError({ message: "-o/--output FILE is required" })
    const path = opts.output.value
    const absolute = yield* outputFileOf("output", path)
    const card = Option.getOrElse(opts.card, () => defaultCardPath(path))
    return { path: absolute, splitRoles: opts.splitRoles, card: Path.resolve(card) }
  })

/** `--from-run RUN`: the pairs of a finished (or partly finished) align run, written again. */
const fromRun = (runId: string, opts: AlignOptions) =>
  Effect.gen(function*() {
    const output = Option.isSome(opts.output) ? yield* outputOf(opts) : undefined
    const mix = Option.isSome(opts.mix) ? yield* parseMix(opts.mix.value) : undefined
    yield* writeAndReport(runId, { output, mix })
  }).pipe(Effect.catchTags(storeFailures), Effect.provide(queueServices(opts.home, opts.store)))

/** A new align run: created (manifest with the recipe), executed here or queued, then its pairs written. */
const newRun = (dataset: string, opts: AlignOptions) =>
  Effect.flatMap(
    resolveConfigAndCollection(opts),
    ({ collection, config: resolved, file }) =>
      Effect.gen(function*() {
        if (!noteLoopProfiles.includes(resolved.profile)) {
          return yield* new UsageError({
            message: `--profile ${resolved.profile}: align-data samples the note loop's roles (profiles ${
              noteLoopProfiles.join(", ")
            })`
          })
        }
        const roles = yield* parseRoles(opts.roles)
        const grid = yield* parseGrid(opts.grid)
        const topK = yield* parseTopKRange(
          opts.topKRange,
          Option.filter(Option.flatten(Option.fromNullable(opts.knobs.values["top-k"])), (v) => typeof v === "number")
            .pipe(Option.map(Number))
        )
        const mix = Option.isSome(opts.mix) ? yield* parseMix(opts.mix.value) : "all" as const
        const output = yield* outputOf(opts)
        // the judge model is the judge role's: the ARD labels and the group judges use it, and the startup check sees it
        const config: RunConfig = Option.match(opts.judgeModel, {
          onNone: () => resolved,
          onSome: (model) => ({ ...resolved, roles: { ...resolved.roles, judge: { ...resolved.roles.judge, model } } })
        })
        yield* requireCollection(collection)
        const llmSettings = config.engine === "llm" ? yield* resolveLlmSettings(opts.llm, file?.llm) : undefined
        const facts = llmSettings === undefined ? undefined : yield* llmEngineFacts(llmSettings, config)
        const spec = new AlignSpec({
          roles,
          samples: opts.samples,
          grid,
          topK,
          judge: {
            engine: config.engine,
            ...(facts?.models.judge === undefined ? {} : { model: facts.models.judge })
          },
          seed: config.sampling.seed ?? 66,
          mix,
          output,
          prompts: alignPromptHashes(config)
        })
        const fingerprint = yield* (yield* Collections).fingerprint(collection).pipe(
          Effect.mapError((e) => new CommandFailed({ message: e.message }))
        )
        const { badLines, run } = yield* createRun({
          dataset,
          format: opts.format === "auto" ? undefined : opts.format,
          limit: Option.getOrUndefined(opts.limit),
          onBadLine: opts.skipBadLines ? "skip" : "fail",
          config,
          collection,
          promptSetHash: alignPromptSetHash(config),
          label: Option.getOrUndefined(opts.label),
          concurrency: opts.concurrency,
          llm: facts,
          collectionFingerprint: fingerprint,
          execution: opts.enqueue ? "queue" : "local",
          align: spec
        }).pipe(
          Effect.mapError((e) =>
            e._tag === "DatasetError"
              ? new UsageError({ message: e.message })
              : new CommandFailed({ message: e.message })
          )
        )
        for (const bad of badLines) {
          yield* Console.error(`skipped ${bad.path}:${bad.line}${bad.field ? ` (${bad.field})` : ""}: ${bad.message}`)
        }
        if (opts.enqueue) {
          const { jobs } = yield* enqueueRun(run.id).pipe(
            Effect.mapError((e) => new CommandFailed({ message: e.message }))
          )
          yield* Console.log(run.id)
          return yield* Console.error(
            `run ${run.id}: ${
              counted(jobs, "question")
            } queued for workers; follow it with \`deepnote status ${run.id}\`, ` +
              `then write the pairs with \`deepnote align-data --from-run ${run.id} -o FILE\``
          )
        }
        yield* Console.log(
          `run ${run.id}: ${counted(run.counts.total, "question")} × ${roles.join(",")} × ${
            counted(spec.samples, "sample")
          } ` +
            `(resume with \`deepnote resume ${run.id}\`)`
        )
        const engine = runEngineLayer(config, collection, opts.llm, file?.llm, opts.home)
        const ended = yield* executeWithProgress(run.id, engine, {
          quiet: opts.quiet,
          concurrency: opts.concurrency,
          retryFailed: false,
          label: "cli align-data"
        }).pipe(tracedRun(opts.tracing, run.id))
        yield* writeAndReport(run.id)
        yield* failOnFailedQuestions([{ runId: run.id, counts: ended.counts }])
      }).pipe(
        Effect.catchTags({ StoreError: storeFailed, RunNotFound: storeFailures.RunNotFound }),
        Effect.provide(queueServices(opts.home, opts.store))
      )
  )

/** `deepnote align-data`: DNAlign's DPO preference pairs for DeepNote's roles, as a resumable run. */
export const alignDataCommand = Command.make("align-data", alignOptions, (opts) =>
  Option.match(opts.fromRun, {
    onSome: (runId) =>
      Option.isSome(opts.dataset)
        ? Effect.fail(
          new UsageError({ message: "give --dataset (a new run) or --from-run (an existing one), not both" })
        )
        : fromRun(runId, opts),
    onNone: () =>
      Option.match(opts.dataset, {
        onNone: () => Effect.fail(new UsageError({ message: "--dataset FILE is required (or --from-run RUN_ID)" })),
        onSome: (dataset) => newRun(dataset, opts)
      })
  })).pipe(
    Command.withDescription(
      "Make DPO preference pairs for DeepNote's roles (DNAlign): sample each role over a grid, judge each group, " +
        "write TRL-ready JSONL and a dataset card. A resumable run like `run`; Ctrl-C stops cleanly."
    )
  )
