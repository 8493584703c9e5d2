/** A piece of a word diff: kept, added (only in the new text) or removed (only in the old one). */
export interface DiffPart {
  readonly kind: "same" | "add" | "del"
  readonly text: string
}

/** Words and the whitespace after them, so joining the parts gives the texts back exactly. */
const tokens = (text: string): ReadonlyArray<string> => text.match(/\S+\s*|\s+/gu) ?? []

/** Above this many cells the diff is not computed word by word (the texts are shown as removed and added). */
const maxCells = 4_000_000

const push = (parts: Array<DiffPart>, kind: DiffPart["kind"], text: string): void => {
  const last = parts[parts.length - 1]
  if (last !== undefined && last.kind === kind) parts[parts.length - 1] = { kind, text: last.text + text }
  else parts.push({ kind, text })
}

/** The word-level difference from `before` to `after` (longest common subsequence of words). */
export const wordDiff = (before: string, after: string): ReadonlyArray<DiffPart> => {
  const a = tokens(before)
  const b = tokens(after)
  const parts: Array<DiffPart> = []
  if ((a.length + 1) * (b.length + 1) > maxCells) {
    if (before !== "") parts.push({ kind: "del", text: before })
    if (after !== "") parts.push({ kind: "add", text: after })
    return parts
  }
  const key = (t: string) => t.trimEnd()
  const width = b.length + 1
  // lcs[i * width + j]: the common subsequence length of a[i..] and b[j..]
  const lcs = new Uint32Array((a.length + 1) * width)
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = key(a[i]!) === key(b[j]!)
        ? lcs[(i + 1) * width + j + 1]! + 1
        : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!)
    }
  }
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (key(a[i]!) === key(b[j]!)) {
      push(parts, "same", b[j]!)
      i++
      j++
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) push(parts, "del", a[i++]!)
    else push(parts, "add", b[j++]!)
  }
  while (i < a.length) push(parts, "del", a[i++]!)
  while (j < b.length) push(parts, "add", b[j++]!)
  return parts
}
