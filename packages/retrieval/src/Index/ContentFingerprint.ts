import type { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type { IndexError } from "../Domain/Errors.js"
import type { FtsQueries } from "./FtsQueries.js"
import { corrupted, indexFailure } from "./IndexFailure.js"
import { MetaKey } from "./IndexSchema.js"

/**
 * A collection's content fingerprint (see `FtsIndex.fingerprint`): the one kept in `meta`, else the hash of every
 * passage's id, title and text in id order, computed in one read transaction (a consistent snapshot) and kept.
 */
export const makeContentFingerprint = (
  sql: SqlClient.SqlClient,
  q: FtsQueries,
  file: string
): Effect.Effect<string, IndexError> => {
  /** Every passage's id, title and text in id order, hashed (read a page at a time). */
  const contentHash = Effect.gen(function*() {
    const hash = createHash("sha256")
    let afterId = ""
    while (true) {
      const page = yield* q.documentValuesAfter({ afterId, limit: 2000 })
      for (const [id, title, text] of page) {
        if (typeof id !== "string" || typeof title !== "string" || typeof text !== "string") {
          return yield* corrupted(file, `reading the passages: passage ${String(id)} holds a value that is not text`)
        }
        hash.update(`${id}\u0000${title}\u0000${text}\u0001`)
        afterId = id
      }
      if (page.length < 2000) break
    }
    return `sha256:${hash.digest("hex")}`
  })

  return Effect.suspend(() => {
    // what this snapshot's passages hash to, once computed: the answer even when keeping it fails
    let computed: string | undefined
    const inSnapshot = sql.withTransaction(Effect.gen(function*() {
      const stored = yield* q.metaValue(MetaKey.contentFingerprint)
      if (Option.isSome(stored)) return stored.value.value
      computed = yield* contentHash
      yield* q.putMeta({ key: MetaKey.contentFingerprint, value: computed })
      return computed
    }))
    return Effect.mapError(
      // keeping it fails on a read-only file, or when another connection wrote since this snapshot began
      Effect.catchAll(inSnapshot, (e) => computed !== undefined ? Effect.succeed(computed) : Effect.fail(e)),
      indexFailure(file, "reading the passages")
    )
  })
}
