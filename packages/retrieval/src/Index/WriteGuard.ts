import { Effect } from "effect"
import type { IndexError } from "../Domain/Errors.js"
import { corrupted, indexFailure, isCorruption } from "./IndexFailure.js"

/** What a write has to go through: `write(operation, effect)` runs the effect and maps its failure to `IndexError`. */
export type WriteGuard = <A, E>(operation: string, effect: Effect.Effect<A, E>) => Effect.Effect<A, IndexError>

/**
 * Guards the writes of one open collection against damage. Opening only reads the schema (cheap); the first write
 * of the session runs `PRAGMA quick_check` (about 0.4 s per 100k passages, benchmarks/retrieval/results.md), so an
 * ingest never adds passages to a damaged file, and a write that fails for another reason than SQLite's corruption
 * codes checks the file again before reporting.
 */
export const makeWriteGuard = <E>(
  file: string,
  quickCheck: Effect.Effect<ReadonlyArray<{ readonly quick_check: string }>, E>
): Effect.Effect<WriteGuard> =>
  Effect.gen(function*() {
    const checkIntegrity = quickCheck.pipe(
      Effect.mapError(indexFailure(file, "integrity check")),
      Effect.flatMap((rows) =>
        rows.length === 1 && rows[0]!.quick_check === "ok"
          ? Effect.void
          : Effect.fail(corrupted(file, `quick_check: ${rows.map((r) => r.quick_check).slice(0, 3).join("; ")}`))
      )
    )
    const verified = yield* Effect.cached(checkIntegrity)
    return (operation, effect) =>
      Effect.zipRight(verified, effect).pipe(
        Effect.catchAll((failure) =>
          isCorruption(failure)
            ? Effect.fail(indexFailure(file, operation)(failure))
            : Effect.zipRight(checkIntegrity, Effect.fail(indexFailure(file, operation)(failure)))
        )
      )
  })
