import { PayloadTooLarge } from "@deepnote-rag/api"
import { FileSystem } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { createHash } from "node:crypto"
import * as Path from "node:path"
import { makeRecordCounter, type UploadKind } from "./RecordCounter.js"
import { syncDirectory, temporaryName, verifyUpload, writeReceipt } from "./UploadReceipt.js"

export interface ReceiveOptions<E> {
  /** The directory the upload is stored in (created when missing); its temporary file is written there too. */
  readonly dir: string
  /** The file name of the upload, from the SHA-256 of its content. */
  readonly name: (sha256: string) => string
  readonly kind: UploadKind
  /** Bytes allowed; past them the upload fails with `PayloadTooLarge` (413) and nothing is kept. */
  readonly limit: number | undefined
  /** Runs on the complete temporary file before it is renamed into place (e.g. refusing binary or empty content). */
  readonly check: (
    file: string,
    received: { readonly bytes: number; readonly records: number }
  ) => Effect.Effect<void, E, FileSystem.FileSystem>
}

/** An upload stored on disk. */
export interface ReceivedUpload {
  readonly file: string
  readonly sha256: string
  readonly bytes: number
  /** Records counted while streaming (see `RecordCounter`). */
  readonly records: number
  /** An identical upload was already stored (and verified): that file is used. */
  readonly reused: boolean
}

// Finishing (rename, or verifying the stored copy of a repeated upload) is serialised, so two identical uploads at
// once never see each other's file before its receipt is written. It is short next to receiving a body.
const finishing = Effect.unsafeMakeSemaphore(1)

/**
 * Streams a body to disk as it arrives — never whole in memory, never parsed: into a temporary file in the target
 * directory, hashing (SHA-256), counting bytes and records; then fsync, the `check`, and an atomic rename to
 * `name(sha256)` with a receipt (SHA-256, size) beside it. When that name exists already, the stored file is used
 * only if it still matches its receipt; a torn or damaged one is replaced by the new upload. On any failure
 * (over the limit, the client going away, the check) the temporary file is removed.
 */
export const receiveUpload = <E, R, E2>(
  body: Stream.Stream<Uint8Array, E, R>,
  options: ReceiveOptions<E2>
): Effect.Effect<ReceivedUpload, E | E2 | PayloadTooLarge, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* Effect.orDie(fs.makeDirectory(options.dir, { recursive: true }))
    const temporary = temporaryName(Path.join(options.dir, "upload"))
    const hash = createHash("sha256")
    const counter = makeRecordCounter(options.kind)
    let bytes = 0
    const received = Effect.scoped(Effect.gen(function*() {
      const handle = yield* Effect.orDie(fs.open(temporary, { flag: "wx" }))
      yield* body.pipe(
        Stream.runForEach((chunk) => {
          bytes += chunk.length
          if (options.limit !== undefined && bytes > options.limit) {
            return Effect.fail(PayloadTooLarge.of(options.limit))
          }
          hash.update(chunk)
          counter.push(chunk)
          return Effect.orDie(handle.writeAll(chunk))
        })
      )
      yield* Effect.orDie(handle.sync)
    }))
    const finish = finishing.withPermits(1)(Effect.gen(function*() {
      const sha256 = hash.digest("hex")
      const file = Path.join(options.dir, options.name(sha256))
      const upload = { file, sha256, bytes, records: counter.count() }
      if (yield* Effect.orDie(fs.exists(file))) {
        const problem = yield* verifyUpload(file, { sha256, bytes })
        if (Option.isNone(problem)) {
          yield* Effect.orDie(fs.remove(temporary))
          return { ...upload, reused: true }
        }
        yield* Effect.logWarning(`stored upload ${file} is not used: ${problem.value}; replaced by the new upload`)
      }
      yield* Effect.orDie(fs.rename(temporary, file))
      yield* syncDirectory(options.dir)
      yield* Effect.orDie(writeReceipt(file, upload))
      return { ...upload, reused: false }
    }))
    return yield* received.pipe(
      Effect.zipRight(Effect.suspend(() => options.check(temporary, { bytes, records: counter.count() }))),
      Effect.zipRight(finish),
      Effect.onError(() =>
        fs.remove(temporary).pipe(
          // already renamed (the failure came later) or never created: nothing to clean up
          Effect.catchAll(() => Effect.void)
        )
      )
    )
  })
