import { Effect } from "effect"
import * as Path from "node:path"
import type { CorpusFormatOption } from "../Domain/Ingest.js"
import { checkCorpusFile } from "./CorpusFile.js"
import { resolveFormat } from "./CorpusReader.js"
import { statFile } from "./LineReader.js"

/**
 * Every corpus file of one ingest checked before anything is read or sent (it exists, its format resolves, it is text
 * or JSON as that format needs): the embedded index and a Meilisearch upload take their inputs from here.
 */
export const checkCorpusInputs = (files: ReadonlyArray<string>, option: CorpusFormatOption | undefined) =>
  Effect.forEach(files, (file) =>
    Effect.gen(function*() {
      const absolute = Path.resolve(file)
      yield* statFile(absolute)
      const format = yield* resolveFormat(absolute, option ?? "auto")
      const stat = yield* checkCorpusFile(absolute, format === "text" || format === "markdown" ? "text" : "json")
      return { file, absolute, stat, format }
    }))
