import { isCjk } from "@deepnote/text"
import { asciiPunctuation } from "./Normalize.js"
import { maxOverGolds } from "./Squad.js"

/** The CMRC 2018 script's own punctuation list (`sp_char`); we remove it together with every `\p{P}` and ASCII symbol. */
const cmrcPunctuation = new Set([
  "-",
  ":",
  "_",
  "*",
  "^",
  "/",
  "\\",
  "~",
  "`",
  "+",
  "=",
  "，",
  "。",
  "：",
  "？",
  "！",
  "“",
  "”",
  "；",
  "’",
  "《",
  "》",
  "…",
  "·",
  "、",
  "「",
  "」",
  "（",
  "）",
  "－",
  "～",
  "『",
  "』"
])
const asciiSet = new Set(asciiPunctuation)
const isPunctuation = (char: string) => cmrcPunctuation.has(char) || asciiSet.has(char) || /\p{P}/u.test(char)

/**
 * CMRC 2018 `mixed_segmentation` with punctuation removed: lower-cased; each CJK character is a segment; runs of
 * other characters are split on whitespace into words (the script uses NLTK's `word_tokenize`), so Latin words
 * stay whole tokens ("ω-force" → "ωforce").
 */
export const mixedSegments = (text: string): Array<string> => {
  const segments: Array<string> = []
  let run = ""
  const flush = () => {
    for (const word of run.split(/\s+/u)) if (word.length > 0) segments.push(word)
    run = ""
  }
  for (const char of text.toLowerCase().trim()) {
    if (isPunctuation(char)) continue
    if (isCjk(char)) {
      flush()
      segments.push(char)
    } else {
      run += char
    }
  }
  flush()
  return segments
}

/** Length of the longest common contiguous run of two segment lists (the script's `find_lcs`). */
export const longestCommonRun = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  let best = 0
  let previous = new Array<number>(b.length + 1).fill(0)
  for (let i = 0; i < a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0)
    for (let j = 0; j < b.length; j++) {
      if (a[i] === b[j]) {
        current[j + 1] = previous[j]! + 1
        if (current[j + 1]! > best) best = current[j + 1]!
      }
    }
    previous = current
  }
  return best
}

/** CMRC character-level F1 of one gold: precision and recall of the longest common run of segments. */
export const cmrcF1Single = (prediction: string, gold: string): number => {
  const p = mixedSegments(prediction)
  const g = mixedSegments(gold)
  const common = longestCommonRun(g, p)
  if (common === 0) return 0
  const precision = common / p.length
  const recall = common / g.length
  return (2 * precision * recall) / (precision + recall)
}

/** Lower-cased, without punctuation and whitespace: what CMRC EM compares. */
export const cmrcNormalize = (text: string): string => {
  let out = ""
  for (const char of text.toLowerCase()) if (!isPunctuation(char) && !/\s/u.test(char)) out += char
  return out
}

/** CMRC F1, max over gold answers. */
export const cmrcF1 = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => cmrcF1Single(prediction, gold))

/** CMRC EM, max over gold answers. */
export const cmrcEm = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => (cmrcNormalize(prediction) === cmrcNormalize(gold) ? 1 : 0))
