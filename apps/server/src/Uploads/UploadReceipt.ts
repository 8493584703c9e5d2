import { FileSystem } from "@effect/platform"
import { Clock, Effect, Either, Option, Schema, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Path from "node:path"

/** What was received for an upload file: its SHA-256 and size, recorded beside it as `<file>.receipt.json`. */
export const UploadReceipt = Schema.Struct({
  sha256: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/u)),
  bytes: Schema.NonNegativeInt,
  receivedAt: Schema.String
})
export type UploadReceipt = typeof UploadReceipt.Type

export const receiptFile = (file: string) => `${file}.receipt.json`

const decodeReceipt = Schema.decodeUnknownEither(Schema.parseJson(UploadReceipt))

/** A temporary name in the directory of `file` (hidden, so listings of finished uploads never show it). */
export const temporaryName = (file: string) =>
  Path.join(Path.dirname(file), `.${Path.basename(file)}.${randomBytes(6).toString("hex")}.part`)

/**
 * Makes a finished write durable: the directory entry of a rename is only on disk once the directory is synced.
 * Some platforms cannot open a directory; there the rename is as durable as the platform makes it (logged).
 */
export const syncDirectory = (dir: string) =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) =>
      Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (handle) => handle.sync)).pipe(
        Effect.catchAll((e) => Effect.logDebug(`could not sync directory ${dir}: ${e.message}`))
      )
  )

/** Writes the receipt of `file` atomically (temporary file, fsync, rename). */
export const writeReceipt = (file: string, received: { readonly sha256: string; readonly bytes: number }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const receivedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const target = receiptFile(file)
    const temporary = temporaryName(target)
    const text = `${JSON.stringify({ sha256: received.sha256, bytes: received.bytes, receivedAt })}\n`
    yield* Effect.scoped(Effect.gen(function*() {
      const handle = yield* fs.open(temporary, { flag: "wx" })
      yield* handle.writeAll(new TextEncoder().encode(text))
      yield* handle.sync
    }))
    yield* fs.rename(temporary, target).pipe(Effect.onError(() => Effect.ignore(fs.remove(temporary))))
    yield* syncDirectory(Path.dirname(file))
  })

/** The SHA-256 and size of a file, read in chunks (the event loop runs between them). */
export const hashFile = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const hash = createHash("sha256")
    let bytes = 0
    yield* fs.stream(file, { chunkSize: FileSystem.KiB(256) }).pipe(
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          hash.update(chunk)
          bytes += chunk.length
        })
      )
    )
    return { sha256: hash.digest("hex"), bytes }
  })

/**
 * Checks a stored upload against its receipt before it is used again: the file and the receipt exist, the size is
 * the recorded size, and the content hashes to the recorded SHA-256 (and to `expected`, when given). A file torn by a
 * crash during its write (shorter, or without a receipt) fails with the reason.
 */
export const verifyUpload = (file: string, expected?: { readonly sha256: string; readonly bytes: number }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(receiptFile(file)).pipe(Effect.option)
    if (Option.isNone(text)) return Option.some("it has no receipt (its write did not finish)")
    const receipt = decodeReceipt(text.value)
    if (Either.isLeft(receipt)) return Option.some("its receipt is unreadable")
    const recorded = receipt.right
    if (expected !== undefined && (recorded.sha256 !== expected.sha256 || recorded.bytes !== expected.bytes)) {
      return Option.some("its receipt records other content")
    }
    const stat = yield* fs.stat(file).pipe(Effect.option)
    if (Option.isNone(stat)) return Option.some("the file is missing")
    const size = Number(stat.value.size)
    if (size !== recorded.bytes) return Option.some(`it has ${size} bytes, ${recorded.bytes} were received`)
    const actual = yield* hashFile(file)
    if (actual.sha256 !== recorded.sha256) return Option.some("its content does not match the recorded SHA-256")
    return Option.none<string>()
  }).pipe(Effect.catchAll((e) => Effect.succeed(Option.some(`it cannot be read (${e.message})`))))
