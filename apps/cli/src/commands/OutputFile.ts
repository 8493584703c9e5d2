import { FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"
import * as Path from "node:path"
import { UsageError } from "../Errors.js"

/**
 * The absolute path of a file a command will write (`--output`, `--save`), checked before the command does its work:
 * its directory must exist (a usage error, exit 2, otherwise) — a typo there should not cost a run or an LLM-backed
 * answer first and then fail to be written.
 */
export const outputFileOf = (flag: string, path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const absolute = Path.resolve(path)
    const directory = Path.dirname(absolute)
    const info = yield* fs.stat(directory).pipe(Effect.option)
    if (Option.isNone(info) || info.value.type !== "Directory") {
      return yield* new UsageError({ message: `--${flag} ${path}: the directory ${directory} does not exist` })
    }
    return absolute
  })
