import type { Home } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import * as Path from "node:path"

/**
 * Where a run's spans are: `<home>/traces/<run-id>.jsonl` (written with `--trace`), plus any `--trace-file` used for
 * the run, listed one absolute path per line in `<home>/traces/<run-id>.files`.
 */
export const tracesDir = (home: Home["Type"]) => Path.join(home.root, "traces")
export const defaultTraceFile = (home: Home["Type"], runId: string) => Path.join(tracesDir(home), `${runId}.jsonl`)
const linkFile = (home: Home["Type"], runId: string) => Path.join(tracesDir(home), `${runId}.files`)

/** Records that `file` holds spans of `runId` (idempotent). */
export const linkTraceFile = (home: Home["Type"], runId: string, file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const absolute = Path.resolve(file)
    if (absolute === defaultTraceFile(home, runId)) return
    const links = linkFile(home, runId)
    const known = yield* fs.readFileString(links).pipe(Effect.orElseSucceed(() => ""))
    if (known.split("\n").includes(absolute)) return
    yield* fs.makeDirectory(tracesDir(home), { recursive: true })
    yield* fs.writeFileString(links, `${absolute}\n`, { flag: "a" })
  })

/** The trace files recorded for a run that exist. */
export const traceFilesOf = (home: Home["Type"], runId: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const linked = (yield* fs.readFileString(linkFile(home, runId)).pipe(Effect.orElseSucceed(() => ""))).split("\n")
      .filter((l) => l.trim() !== "")
    const candidates = [defaultTraceFile(home, runId), ...linked]
    return yield* Effect.filter(candidates, (file) => fs.exists(file).pipe(Effect.orElseSucceed(() => false)))
  })
