import { ParseResult, Schema } from "effect"
import { constants, deflateRawSync, inflateRawSync } from "node:zlib"
import { jsonDictionaryV1 } from "./jsonDictionary.js"

/**
 * A JSON value as the store keeps it in a large column (journal responses, events, questions, results, passage and
 * note texts): its UTF-8 JSON, deflated with a preset dictionary of the shapes these values repeat. Measured on a
 * 200-question HotpotQA run: events 899 → 420 KB, results 592 → 192 KB, journal responses 415 → 225 KB, passages
 * 1,312 → 751 KB, at 15–40 µs a value (`benchmarks/cpu`).
 *
 * Stored bytes: a format byte, then the payload. `1`: raw deflate with `jsonDictionaryV1`; `0`: the JSON's UTF-8 as it
 * is (values so small deflate would not shrink them). A value written before (SQLite: a TEXT value; Postgres: the
 * column's text converted to bytes by migration 12) is JSON text, which never starts with byte 0 or 1, and reads as it is.
 */
const plain = 0
const deflatedV1 = 1

/** Values shorter than this are stored plain: deflate's block overhead outweighs what it saves. */
const smallest = 64

/**
 * A 4 KB window and small hash tables: the dictionary (1.8 KB) and most values fit, and each call allocates 32 KB of
 * zlib state instead of 256 KB (these run ~45 times per question). Reading needs none of this, only the dictionary.
 */
const deflateOptions = {
  dictionary: jsonDictionaryV1,
  level: constants.Z_DEFAULT_COMPRESSION,
  windowBits: 12,
  memLevel: 5
} as const

const encodeBytes = (json: string): Buffer => {
  const utf8 = Buffer.from(json, "utf8")
  if (utf8.length >= smallest) {
    const deflated = deflateRawSync(utf8, deflateOptions)
    if (deflated.length < utf8.length) return Buffer.concat([Buffer.of(deflatedV1), deflated])
  }
  return Buffer.concat([Buffer.of(plain), utf8])
}

const decodeBytes = (bytes: Uint8Array): string => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  switch (buffer[0]) {
    case plain:
      return buffer.toString("utf8", 1)
    case deflatedV1:
      return inflateRawSync(buffer.subarray(1), { dictionary: jsonDictionaryV1 }).toString("utf8")
    default:
      return buffer.toString("utf8")
  }
}

/** A stored column value (bytes, or the JSON text of a row written before) ⇄ the JSON value it holds. */
export const StoredJsonValue: Schema.Schema<unknown, Uint8Array | string> = Schema.transformOrFail(
  Schema.Union(Schema.String, Schema.Uint8ArrayFromSelf),
  Schema.Unknown,
  {
    strict: true,
    // `ParseResult.try` answers synchronously (an `Either`): no effect to run per value on this hot path
    decode: (stored, _, ast) =>
      ParseResult.try({
        try: (): unknown => JSON.parse(typeof stored === "string" ? stored : decodeBytes(stored)),
        catch: (e) => new ParseResult.Type(ast, stored, `a stored JSON value does not read: ${String(e)}`)
      }),
    encode: (value, _, ast) =>
      ParseResult.try({
        try: () => encodeBytes(JSON.stringify(value)),
        catch: (e) => new ParseResult.Type(ast, value, `a value does not write as JSON: ${String(e)}`)
      })
  }
)

/** The stored bytes of a JSON value, as `StoredJsonValue` encodes it. */
export const storedBytesOf = (value: unknown): Buffer => encodeBytes(JSON.stringify(value))

/** `Schema.parseJson(schema)` for a large column: the value is stored compressed (`StoredJsonValue`). */
export const storedJson = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.compose(StoredJsonValue, schema)
