import { createHash } from "node:crypto"

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    const entries: Array<[string, unknown]> = Object.entries(value)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [key, v] of entries) {
      if (v !== undefined) out[key] = canonical(v)
    }
    return out
  }
  return value
}

/** JSON with object keys sorted at every level and `undefined` fields dropped: equal values give equal text. */
export const canonicalJson = (value: unknown): string => JSON.stringify(canonical(value)) ?? "null"

/** SHA-256 (hex) of the canonical JSON of a value: request hashes, config hashes, cache keys. */
export const stableHash = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex")

/** SHA-256 (hex) of bytes or text, e.g. a dataset file for `DatasetRef.hash`. */
export const sha256Hex = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex")
