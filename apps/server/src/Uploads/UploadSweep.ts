import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import * as Path from "node:path"

/** Files untouched this long belong to no live upload (an upload writes continuously; indexing takes seconds). */
const abandonedAfterMs = 60 * 60_000

/**
 * At startup, removes what uploads cut off by a stop left under `<home>/uploads/`: temporary files (`*.part`, never
 * renamed into place) and spooled document uploads, once untouched for an hour — so a replica that starts on a home
 * another live replica uses never removes that replica's uploads in progress. Returns how many.
 */
export const sweepUploads = (root: string, now: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const uploads = Path.join(root, "uploads")
    if (!(yield* fs.exists(uploads))) return 0
    let removed = 0
    for (const tenant of yield* fs.readDirectory(uploads)) {
      const dir = Path.join(uploads, tenant)
      if ((yield* fs.stat(dir)).type !== "Directory") continue
      for (const name of yield* fs.readDirectory(dir)) {
        const abandoned = (file: string) =>
          Effect.map(fs.stat(file), (info) =>
            now - Option.getOrElse(Option.map(info.mtime, (d) => d.getTime()), () => 0) > abandonedAfterMs)
        if (name === "documents") {
          const spool = Path.join(dir, name)
          for (const spooled of yield* fs.readDirectory(spool)) {
            const file = Path.join(spool, spooled)
            if (!(yield* abandoned(file))) {
              continue
            }
            yield* fs.remove(file, { recursive: true })
            removed++
          }
        } else if (name.endsWith(".part") && (yield* abandoned(Path.join(dir, name)))) {
          yield* fs.remove(Path.join(dir, name))
          removed++
        }
      }
    }
    return removed
  })
