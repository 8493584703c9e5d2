import { indexIntoMeilisearch, MeiliClient, type MeiliIngestSummary } from "@deepnote-rag/retrieval"
import { NodeHttpClient } from "@effect/platform-node"
import { Console, Effect, Layer, Option } from "effect"
import { readConfigFile } from "../config/ConfigFile.js"
import { type MeiliFlagValues, resolveMeiliSettings } from "../engine/MeiliOptions.js"
import { CommandFailed } from "../Errors.js"
import { indexProgress } from "../render/IndexProgress.js"
import { StandardStreams } from "../render/StandardStreams.js"

export interface MeiliIndexInput {
  readonly files: ReadonlyArray<string>
  readonly format: "auto" | "documents" | "ircot" | "hotpotqa" | "2wiki" | "musique" | "text" | "markdown"
  readonly strict: boolean
  readonly json: boolean
  readonly language: "auto" | "en" | "zh"
  readonly meili: MeiliFlagValues
  readonly configFile: Option.Option<string>
  readonly progressIntervalMs: number
}

export const renderMeiliSummary = (s: MeiliIngestSummary): string => {
  const lines = [
    `meilisearch index ${s.index} at ${s.host}: ${s.sent} passages sent, ${s.indexed} indexed, ${s.invalid} invalid records, ${s.documents} in the index (${s.language} settings, ${
      (s.ms / 1000).toFixed(1)
    } s)`,
    ...s.files.map((f) => `  ${f.file} [${f.format}] ${f.sent} sent`),
    ...s.errors.map((e) => `  skipped ${e.file}:${e.line}${e.field ? ` (${e.field})` : ""}: ${e.message}`)
  ]
  if (s.invalid > s.errors.length) lines.push(`  … and ${s.invalid - s.errors.length} more invalid records`)
  return lines.join("\n")
}

/**
 * `deepnote index --backend meilisearch FILE…`: the same readers and record checks as the embedded index, uploaded in
 * batches to the Meilisearch index of `--meili-url`/`--meili-index` (else the config file's `meili`, else
 * `DEEPNOTE_MEILI_*`), each batch's task waited for. Re-running replaces passages with the same id.
 */
export const indexIntoMeili = (input: MeiliIndexInput) =>
  Effect.gen(function*() {
    const file = Option.isSome(input.configFile) ? yield* readConfigFile(input.configFile.value) : undefined
    const { options } = yield* resolveMeiliSettings(input.meili, file?.meili, Option.getOrUndefined(input.configFile))
    const streams = yield* StandardStreams
    const progress = yield* indexProgress({
      tty: streams.stderrIsTty,
      intervalMs: input.progressIntervalMs,
      write: streams.writeStderr
    })
    const summary = yield* indexIntoMeilisearch(input.files, {
      format: input.format,
      strict: input.strict,
      batchSize: options.batchSize,
      language: input.language,
      onProgress: progress.report
    }).pipe(
      Effect.ensuring(progress.done),
      Effect.mapError((e) => new CommandFailed({ message: e.message })),
      Effect.provide(MeiliClient.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici)))
    )
    yield* Console.log(input.json ? JSON.stringify(summary, null, 2) : renderMeiliSummary(summary))
  })
