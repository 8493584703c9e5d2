import { parseYaml } from "@deepnote-rag/runs"
import { FileSystem } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { unreadable, UsageError } from "../Errors.js"
import type { ConfigLayer } from "./Layering.js"

const FileShape = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * Reads a config file (JSON, or YAML for .yaml/.yml) holding RunConfig keys, e.g. `{ "topK": 7, "roles": { "judge":
 * { "temperature": 0 } } }`. Keys outside RunConfig (`collection`, `home`, `store`, `llm`, `meili`) are returned
 * separately.
 */
export const readConfigFile = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) =>
        new UsageError({
          message: `config file ${path}: cannot read (${unreadable(e)})`
        })
      )
    )
    const yaml = /\.ya?ml$/i.test(path)
    const parsed = yield* (yaml ? parseYaml(text) : Either.try({
      try: (): unknown => JSON.parse(text),
      catch: (e) => (e instanceof Error ? e.message : String(e))
    })).pipe(
      Either.mapLeft((problem) =>
        new UsageError({ message: `config file ${path}: not valid ${yaml ? "YAML" : "JSON"} (${problem})` })
      )
    )
    const record = yield* Schema.decodeUnknown(FileShape)(parsed ?? {}).pipe(
      Effect.mapError(() => new UsageError({ message: `config file ${path}: expected an object of settings` }))
    )
    const { collection, home, llm, meili, store, ...run } = record
    if (store !== undefined && typeof store !== "string") {
      return yield* new UsageError({ message: `config file ${path}: store must be a URL string` })
    }
    return {
      run: run as ConfigLayer,
      collection: typeof collection === "string" ? collection : undefined,
      home: typeof home === "string" ? home : undefined,
      store,
      llm,
      meili
    }
  })
