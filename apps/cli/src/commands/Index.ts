import { Collections, type IngestSummary } from "@deepnote/retrieval"
import { Args, Command, Options } from "@effect/cli"
import { Config, Console, Duration, Effect, Layer } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"
import { indexProgress } from "../render/IndexProgress.js"
import { homeLayer, homeOption, jsonOption } from "./Common.js"
import { embedCollection, renderEmbedSummary } from "./Embed.js"

const files = Args.text({ name: "file" }).pipe(
  Args.withDescription("corpus files: JSONL ({id?, title?, text}), IRCoT/HotpotQA/MuSiQue/2Wiki QA files, .txt or .md"),
  Args.atLeast(1)
)
const collection = Options.text("collection").pipe(
  Options.withAlias("c"),
  Options.withDescription("collection to create or extend")
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

/** `deepnote index FILE… --collection NAME`: build or extend a collection (resumable; bad records reported). */
export const indexCommand = Command.make(
  "index",
  { files, collection, format, strict, embed, json: jsonOption, home: homeOption },
  (opts) =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const interval = yield* Config.duration("DEEPNOTE_PROGRESS_INTERVAL").pipe(
        Config.withDefault(Duration.seconds(10)),
        Effect.mapError((e) => new UsageError({ message: `DEEPNOTE_PROGRESS_INTERVAL: ${e.message}` }))
      )
      // progress goes to stderr (stdout keeps the summary or --json): a live bar on a terminal, else periodic lines
      const progress = yield* indexProgress({
        tty: process.stderr.isTTY === true,
        intervalMs: Duration.toMillis(interval),
        write: (text) => void process.stderr.write(text)
      })
      const summary = yield* collections.index(opts.collection, opts.files, {
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
      const embedding = opts.embed ? yield* embedCollection(opts.collection, false) : undefined
      yield* Console.log(
        opts.json
          ? JSON.stringify(embedding === undefined ? summary : { ...summary, embedding }, null, 2)
          : [renderSummary(summary), ...(embedding === undefined ? [] : [renderEmbedSummary(embedding)])].join("\n")
      )
    }).pipe(Effect.provide(Collections.layer.pipe(Layer.provideMerge(homeLayer(opts.home)))))
).pipe(
  Command.withDescription(
    "Build or extend a collection from corpus files (resumable; invalid records are reported with file:line)."
  )
)
