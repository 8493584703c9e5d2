import { cut, cutForSearch } from "./Jieba.js"
import { hasCjk, isCjk } from "./Script.js"
import { isStopWord } from "./StopWords.js"

const runPattern = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu
const cjkRun = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]+/u

/** Splits a run of letters into Latin words and CJK runs ("DeepNote笔记" → ["DeepNote", "笔记"]). */
const splitScripts = (run: string): Array<string> => {
  const parts: Array<string> = []
  let current = ""
  let currentCjk = false
  for (const char of run) {
    const c = isCjk(char)
    if (current.length > 0 && c !== currentCjk) {
      parts.push(current)
      current = ""
    }
    current += char
    currentCjk = c
  }
  if (current.length > 0) parts.push(current)
  return parts
}

export interface TokenizeOptions {
  /** Segment Chinese with jieba's search mode (sub-words too), for indexing. Default: precise mode. */
  readonly search?: boolean
  /** Keep stop words. Default: drop them. */
  readonly keepStopWords?: boolean
}

/**
 * Lower-cased word tokens of a text in any mix of English and Chinese. Chinese runs are segmented with jieba;
 * Latin words are NFKC-normalised and lower-cased (possessive "'s" removed).
 */
export const tokenize = (text: string, options: TokenizeOptions = {}): Array<string> => {
  if (!hasCjk(text)) return latinTokens(text, options.keepStopWords === true)
  const tokens: Array<string> = []
  for (const match of text.normalize("NFKC").matchAll(runPattern)) {
    for (const part of splitScripts(match[0])) {
      if (cjkRun.test(part)) {
        for (const word of options.search ? cutForSearch(part) : cut(part)) {
          if (options.keepStopWords || !isStopWord(word)) tokens.push(word)
        }
      } else {
        const word = part.toLowerCase().replace(/['’]s$/u, "").replace(/['’]/gu, "")
        if (word.length > 0 && (options.keepStopWords || !isStopWord(word))) tokens.push(word)
      }
    }
  }
  return tokens
}

/** Overlapping character bigrams of every CJK run (single characters for one-character runs). */
export const cjkBigrams = (text: string): Array<string> => {
  const grams: Array<string> = []
  for (
    const match of text.normalize("NFKC").matchAll(/[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]+/gu)
  ) {
    const chars = Array.from(match[0])
    if (chars.length === 1) grams.push(chars[0]!)
    for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i]! + chars[i + 1]!)
  }
  return grams
}

/** The fast path for text without Chinese (most English corpora): no script splitting, no segmenter. */
const latinTokens = (text: string, keepStopWords: boolean): Array<string> => {
  const tokens: Array<string> = []
  for (const match of text.normalize("NFKC").matchAll(runPattern)) {
    const word = match[0].toLowerCase().replace(/['’]s$/u, "").replace(/['’]/gu, "")
    if (word.length > 0 && (keepStopWords || !isStopWord(word))) tokens.push(word)
  }
  return tokens
}
