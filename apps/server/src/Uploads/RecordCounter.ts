/** The two shapes of an upload: JSON Lines (one record per line) or one JSON array of records. */
export type UploadKind = "jsonl" | "json"

/**
 * Counts the records of an upload from its bytes as they arrive, without parsing, so the `202` can say how many
 * documents were received. Work is linear in the bytes (a few milliseconds per megabyte) and done chunk by chunk.
 */
export interface RecordCounter {
  readonly push: (chunk: Uint8Array) => void
  /** Records seen so far (after the last chunk: all of them). */
  readonly count: () => number
}

const isBlank = (byte: number) => byte === 32 || byte === 9 || byte === 13

/**
 * JSON Lines: every line with a byte other than ASCII blanks is one record (a leading UTF-8 byte order mark is
 * ignored), the rule the ingest worker applies when it reads the file.
 */
const jsonLines = (): RecordCounter => {
  let records = 0
  let content = false
  let offset = 0
  return {
    push: (chunk) => {
      let i = 0
      while (i < chunk.length) {
        if (content) {
          const nl = chunk.indexOf(10, i)
          if (nl < 0) break
          records++
          content = false
          i = nl + 1
          continue
        }
        const byte = chunk[i]!
        const bom = offset + i < 3 && (byte === 0xef || byte === 0xbb || byte === 0xbf)
        if (byte !== 10 && !isBlank(byte) && !bom) content = true
        i++
      }
      offset += chunk.length
    },
    count: () => records + (content ? 1 : 0)
  }
}

/** A JSON array: the values at depth 1 (strings and nested values skipped exactly); 0 when the top is not an array. */
const jsonArray = (): RecordCounter => {
  let records = 0
  let depth = 0
  let inString = false
  let escaped = false
  let expecting = false
  let array: boolean | undefined
  const value = () => {
    if (depth === 1 && expecting) {
      records++
      expecting = false
    }
  }
  return {
    push: (chunk) => {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i]!
        if (inString) {
          if (escaped) escaped = false
          else if (byte === 92) escaped = true
          else if (byte === 34) inString = false
        } else if (byte === 34) {
          value()
          inString = true
        } else if (byte === 91 || byte === 123) {
          value()
          if (depth === 0 && array === undefined) array = byte === 91
          depth++
          if (depth === 1) expecting = true
        } else if (byte === 93 || byte === 125) depth--
        else if (depth === 1) {
          if (byte === 44) expecting = true
          else if (!isBlank(byte) && byte !== 10) value()
        }
      }
    },
    count: () => array === true ? records : 0
  }
}

export const makeRecordCounter = (kind: UploadKind): RecordCounter => kind === "jsonl" ? jsonLines() : jsonArray()
