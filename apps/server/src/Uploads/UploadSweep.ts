import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import * as Path from "node:path"

/**
 * At startup, removes what uploads cut off by the last stop left under `<home>/uploads/`: temporary files (`*.part`,
 * never renamed into place) and document uploads whose ingest job was interrupted (their job reads `interrupted`
 * and says to upload again). Like marking those jobs, this assumes one server per home. Returns how many.
 */
export const sweepUploads = (root: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const uploads = Path.join(root, "uploads")
    if (!(yield* fs.exists(uploads))) return 0
    let removed = 0
    for (const tenant of yield* fs.readDirectory(uploads)) {
      const dir = Path.join(uploads, tenant)
      if ((yield* fs.stat(dir)).type !== "Directory") continue
      for (const name of yield* fs.readDirectory(dir)) {
        if (name === "documents") {
          const spool = Path.join(dir, name)
          removed += (yield* fs.readDirectory(spool)).length
          yield* fs.remove(spool, { recursive: true })
        } else if (name.endsWith(".part")) {
          yield* fs.remove(Path.join(dir, name))
          removed++
        }
      }
    }
    return removed
  })
