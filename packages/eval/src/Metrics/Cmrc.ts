import { maxOverGolds } from "./Squad.js"
import { wordTokenize } from "./WordTokenize.js"

/**
 * The CMRC 2018 script's punctuation list (`sp_char`), exactly: only these characters are removed — not ASCII "." or
 * "," (so "1.5万" is not "15万"), and not a lone "…" (the script lists "……", two characters, which no single character
 * equals).
 */
const scriptPunctuation = new Set([
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

/** The script's test for a Chinese character: the CJK Unified Ideographs block only (`[\u4e00-\u9fa5]`). */
const isScriptHan = (char: string) => char >= "\u4e00" && char <= "\u9fa5"

/**
 * The script's `mixed_segmentation(text, rm_punc=True)`: lower-cased and trimmed, its punctuation removed; each Chinese
 * character is a segment; runs of other characters are split by NLTK's word tokenizer ("1.5" stays whole, "50%" is
 * "50" and "%").
 */
export const mixedSegments = (text: string): Array<string> => {
  const segments: Array<string> = []
  let run = ""
  const flush = () => {
    if (run.length > 0) segments.push(...wordTokenize(run))
    run = ""
  }
  for (const char of text.toLowerCase().trim()) {
    if (scriptPunctuation.has(char)) continue
    if (isScriptHan(char)) {
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

/** The script's `remove_punctuation`: lower-cased and trimmed, its punctuation removed (spaces inside are kept). */
export const cmrcNormalize = (text: string): string => {
  let out = ""
  for (const char of text.toLowerCase().trim()) if (!scriptPunctuation.has(char)) out += char
  return out
}

/** CMRC F1, max over gold answers. */
export const cmrcF1 = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => cmrcF1Single(prediction, gold))

/** CMRC EM, max over gold answers. */
export const cmrcEm = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => (cmrcNormalize(prediction) === cmrcNormalize(gold) ? 1 : 0))
