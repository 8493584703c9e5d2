import { Collections, type IngestSummary } from "@deepnote-rag/retrieval"
import { Args, Command, Options } from "@effect/cli"
import { Config, Console, Duration, Effect, Layer, Option } from "effect"
import { meiliOptions } from "../engine/MeiliOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { indexProgress } from "../render/IndexProgress.js"
import { StandardStreams } from "../render/StandardStreams.js"
import { configFileOption, homeLayer, homeOption, jsonOption } from "./Common.js"
import { embedCollection, renderEmbedSummary } from "./Embed.js"
import { indexIntoMeili } from "./IndexMeili.js"

const files = Args.text({ name: "file" }).pipe(
  Args.withDescription("corpus files: JSONL ({id?, title?, text}), IRCoT/HotpotQA/MuSiQue/2Wiki QA files, .txt or .md"),
  Args.atLeast(1)
)
const collection = Options.text("collection").pipe(
  Options.withAlias("c"),
  Options.withDescription("collection to create or extend (the embedded index, --backend fts5)"),
  Options.optional
)
const backend = Options.choice("backend", ["fts5", "meilisearch"]).pipe(
  Options.withDescription(
    "where passages go: fts5 (the embedded collection of --collection, default) or meilisearch (the index of " +
      "--meili-url/--meili-index, else the config file's meili section, else DEEPNOTE_MEILI_*)"
  ),
  Options.withDefault("fts5" as const)
)
const language = Options.choice("language", ["auto", "en", "zh"]).pipe(
  Options.withDescription(
    "--backend meilisearch: the corpus language (default auto: Chinese when most passages of the first batch are); " +
      "zh sets the index's localizedAttributes to cmn (the embedded index detects each passage's language itself)"
  ),
  Options.optional
)
const format = Options.choice("format", [
  "auto",
  "documents",
  "ircot",
  "hotpotqa",
  "2wiki",
  "musique",
  "text",
  "markdown"
]).pipe(
  Options.withDescription("record format (default auto: from the extension and the first record)"),
  Options.withDefault("auto" as const)
)
const embed = Options.boolean("embed").pipe(
  Options.withDescription("then embed the passages without a vector (DEEPNOTE_EMBEDDINGS_URL), as `deepnote embed`")
)
const strict = Options.boolean("strict").pipe(
  Options.withDescription("reject the whole file on the first invalid record instead of skipping it")
)

export const renderSummary = (s: IngestSummary): string => {
  const lines = [
    `collection ${s.collection}: ${s.added} passages added, ${s.skipped} already present, ${s.invalid} invalid records, ${s.documents} in total (${
      (s.ms / 1000).toFixed(1)
    } s)`,
    ...s.files.map((f) =>
      `  ${f.file} [${f.format}] ${
        f.status === "unchanged"
          ? "unchanged, skipped"
          : `${f.added} added${f.resumedFromLine > 0 ? `, resumed after line ${f.resumedFromLine}` : ""}`
      }`
    ),
    ...s.errors.map((e) => `  skipped ${e.file}:${e.line}${e.field ? ` (${e.field})` : ""}: ${e.message}`)
  ]
  if (s.invalid > s.errors.length) lines.push(`  … and ${s.invalid - s.errors.length} more invalid records`)
  return lines.join("\n")
}

const progressInterval = Config.duration("DEEPNOTE_PROGRESS_INTERVAL").pipe(
  Config.withDefault(Duration.seconds(10)),
  Effect.map(Duration.toMillis),
  Effect.mapError((e) => new UsageError({ message: `DEEPNOTE_PROGRESS_INTERVAL: ${e.message}` }))
)

const indexIntoCollection = (opts: {
  readonly files: ReadonlyArray<string>
  readonly collection: Option.Option<string>
  readonly format: "auto" | "documents" | "ircot" | "hotpotqa" | "2wiki" | "musique" | "text" | "markdown"
  readonly strict: boolean
  readonly embed: boolean
  readonly language: Option.Option<string>
  readonly json: boolean
  readonly home: Option.Option<string>
}) =>
  Effect.gen(function*() {
    if (Option.isNone(opts.collection)) {
      return yield* new UsageError({
        message: "--collection is required: the collection to create or extend (or --backend meilisearch)"
      })
    }
    if (Option.isSome(opts.language)) {
      return yield* new UsageError({
        message: "--language applies to --backend meilisearch (the embedded index detects each passage's language)"
      })
    }
    const collections = yield* Collections
    // progress goes to stderr (stdout keeps the summary or --json): a live bar on a terminal, else periodic lines
    const streams = yield* StandardStreams
    const progress = yield* indexProgress({
      tty: streams.stderrIsTty,
      intervalMs: yield* progressInterval,
      write: streams.writeStderr
    })
    const summary = yield* collections.index(opts.collection.value, opts.files, {
      format: opts.format,
      strict: opts.strict,
      onProgress: progress.report
    }).pipe(
      Effect.mapError((e) =>
        e._tag === "InvalidCollectionName"
          ? new UsageError({ message: e.message })
          : new CommandFailed({ message: e.message })
      )
    )
    yield* progress.done
    const embedding = opts.embed ? yield* embedCollection(opts.collection.value, false) : undefined
    yield* Console.log(
      opts.json
        ? JSON.stringify(embedding === undefined ? summary : { ...summary, embedding }, null, 2)
        : [renderSummary(summary), ...(embedding === undefined ? [] : [renderEmbedSummary(embedding)])].join("\n")
    )
  }).pipe(Effect.provide(Collections.layer.pipe(Layer.provideMerge(homeLayer(opts.home)))))

/**
 * `deepnote index FILE… --collection NAME`: build or extend a collection (resumable; bad records reported); with
 * `--backend meilisearch`, upload the passages to a Meilisearch index instead.
 */
export const indexCommand = Command.make(
  "index",
  {
    files,
    collection,
    format,
    strict,
    embed,
    backend,
    language,
    meili: meiliOptions,
    configFile: configFileOption,
    json: jsonOption,
    home: homeOption
  },
  (opts) =>
    opts.backend === "meilisearch"
      ? Effect.gen(function*() {
        if (Option.isSome(opts.collection)) {
          return yield* new UsageError({
            message: "--collection names an embedded collection; with --backend meilisearch use --meili-index"
          })
        }
        if (opts.embed) {
          return yield* new UsageError({
            message: "--embed stores vectors in an embedded collection; Meilisearch embeds with its own embedders"
          })
        }
        yield* indexIntoMeili({
          files: opts.files,
          format: opts.format,
          strict: opts.strict,
          json: opts.json,
          language: Option.getOrElse(opts.language, () => "auto" as const),
          meili: opts.meili,
          configFile: opts.configFile,
          progressIntervalMs: yield* progressInterval
        })
      })
      : indexIntoCollection(opts)
).pipe(
  Command.withDescription(
    "Build or extend a collection from corpus files (resumable; invalid records are reported with file:line), or " +
      "upload them to a Meilisearch index (--backend meilisearch)."
  )
)
