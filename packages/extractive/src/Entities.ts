import { cut, isStopWord, type Language } from "@deepnote-rag/text"

/**
 * Entity-like spans of a text, found by surface rules (no tagger): capitalised word sequences (`name`), quoted or
 * 《》 titles (`title`), dates (`date`) and numbers with their scale or unit (`number`); in Chinese, also jieba
 * words of two or more characters (`word`).
 */
export type EntityKind = "name" | "title" | "date" | "number" | "word"

export interface Entity {
  readonly text: string
  readonly kind: EntityKind
  /** Character offset in the text. */
  readonly start: number
}

const month =
  "(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\\.?"
const year = "(?:1[0-9]{3}|20[0-9]{2})"
const englishDate = new RegExp(
  [
    `${month} \\d{1,2}, ${year}`,
    `\\d{1,2} ${month},? ${year}`,
    `${month},? ${year}`,
    `(?:early |mid-?|late )?${year}s`,
    `(?:the )?(?:early |late )?\\d{1,2}(?:st|nd|rd|th) [Cc]entury`,
    `${month} \\d{1,2}`,
    `(?<![\\d,.])${year}(?![\\d,])`
  ].join("|"),
  "g"
)
const spelled = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred"
const englishNumber = new RegExp(
  `(?<![\\p{L}\\d.,])\\d[\\d,]*(?:\\.\\d+)?(?:\\s?%| (?:million|billion|thousand|hundred|trillion))?|\\b(?:${spelled})\\b`,
  "giu"
)
const quoted = /["“]([^"“”\n]{2,80}?)["”]/gu
const word = /[\p{L}\p{N}]+(?:['’.\-–&][\p{L}\p{N}]+)*\.?/gu
const connectors = new Set([
  "of",
  "the",
  "de",
  "da",
  "du",
  "del",
  "della",
  "der",
  "von",
  "van",
  "y",
  "la",
  "le",
  "di",
  "n'",
  "&"
])
const months = new RegExp(`^${month}$`)

const isCapitalised = (w: string) => /^[\p{Lu}\p{Lt}]/u.test(w)
const overlaps = (found: ReadonlyArray<Entity>, start: number, end: number) =>
  found.some((e) => start < e.start + e.text.length && e.start < end)

const matchAll = (text: string, pattern: RegExp, kind: EntityKind, found: Array<Entity>, group = 0) => {
  for (const m of text.matchAll(pattern)) {
    const value = m[group]?.trim() ?? ""
    const start = (m.index ?? 0) + m[0].indexOf(value)
    if (value.length > 0 && !overlaps(found, start, start + value.length)) found.push({ text: value, kind, start })
  }
}

/** Capitalised word runs; inner connectors ("of", "de") allowed; leading function words and lone sentence starts dropped. */
const names = (text: string, found: Array<Entity>) => {
  const words = Array.from(text.matchAll(word), (m) => ({ w: m[0].replace(/\.$/u, ""), start: m.index ?? 0 }))
  let i = 0
  while (i < words.length) {
    if (!isCapitalised(words[i]!.w)) {
      i++
      continue
    }
    let j = i
    while (j + 1 < words.length) {
      const gap = text.slice(words[j]!.start + words[j]!.w.length, words[j + 1]!.start)
      if (!/^[\s.]*$/u.test(gap) || gap.length > 2) break
      const next = words[j + 1]!.w
      if (isCapitalised(next)) j++
      else if (connectors.has(next.toLowerCase()) && j + 2 < words.length && isCapitalised(words[j + 2]!.w)) j += 2
      else break
    }
    let first = i
    while (first <= j && (isStopWord(words[first]!.w.toLowerCase()) || months.test(words[first]!.w))) first++
    let last = j
    while (last >= first && (connectors.has(words[last]!.w.toLowerCase()) || months.test(words[last]!.w))) last--
    const sentenceStart = i === 0 || /[.!?:;]\s*$/u.test(text.slice(0, words[i]!.start))
    if (first <= last && !(sentenceStart && first === last && first === i)) {
      const start = words[first]!.start
      const value = text.slice(start, words[last]!.start + words[last]!.w.length).replace(/['’]s$/u, "")
      if (!overlaps(found, start, start + value.length)) found.push({ text: value, kind: "name", start })
    }
    i = j + 1
  }
}

const chineseDate = /\d{1,4}年(?:\d{1,2}月)?(?:\d{1,2}[日号])?|\d{1,2}月\d{1,2}[日号]|\d{1,4}年代|\d{1,2}世纪/gu
const chineseNumber =
  /\d+(?:[.,]\d+)*(?:\s?[%％]|[万亿千百]?(?:平方公里|公里|千米|平方米|米|公顷|人|个|种|元|美元|岁|次|座|名|条|部|位|家|所|项|件|场|届|倍|吨|集|章|卷|层)?)/gu
const bookTitle = /《([^《》]{1,40})》/gu

const chineseWords = (text: string, found: Array<Entity>) => {
  let offset = 0
  for (const w of cut(text)) {
    const start = text.indexOf(w, offset)
    if (start >= 0) offset = start + w.length
    if (start < 0 || Array.from(w).length < 2 || isStopWord(w) || !/^[\p{Script=Han}]+$/u.test(w)) continue
    if (!overlaps(found, start, start + w.length)) found.push({ text: w, kind: "word", start })
  }
}

/** Entity-like spans in reading order. Earlier rules win overlaps: titles, dates, numbers, names, words. */
export const entities = (text: string, language: Language): Array<Entity> => {
  const found: Array<Entity> = []
  if (language === "zh") {
    matchAll(text, bookTitle, "title", found, 1)
    matchAll(text, chineseDate, "date", found)
    matchAll(text, chineseNumber, "number", found)
    names(text, found)
    chineseWords(text, found)
  } else {
    matchAll(text, quoted, "title", found, 1)
    matchAll(text, englishDate, "date", found)
    matchAll(text, englishNumber, "number", found)
    names(text, found)
  }
  return found.sort((a, b) => a.start - b.start)
}

/** The year of a date-like span, if it names one. */
export const yearOf = (text: string): number | undefined => {
  const m = /(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)/u.exec(text)
  return m ? Number(m[1]) : undefined
}

/** The value of a number-like span ("1,462" → 1462, "250 million" → 2.5e8). */
const spelledValues = spelled.split("|")
const spelledValue = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, 30, 40, 50, 100]

export const numberOf = (text: string): number | undefined => {
  const word = spelledValues.indexOf(text.trim().toLowerCase())
  if (word >= 0) return spelledValue[word]
  const m = /(\d[\d,]*(?:\.\d+)?)\s*(million|billion|thousand|hundred|trillion|万|亿)?/u.exec(text)
  if (!m) return undefined
  const scale: Record<string, number> = {
    hundred: 1e2,
    thousand: 1e3,
    million: 1e6,
    billion: 1e9,
    trillion: 1e12,
    万: 1e4,
    亿: 1e8
  }
  return Number(m[1]!.replace(/,/gu, "")) * (m[2] ? scale[m[2]] ?? 1 : 1)
}

const weekday = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/u

/**
 * A one-word name that names nothing to look up: a weekday, or a nationality-like adjective followed by a lower-case
 * word ("an American comedy film", "a British band"). Such words are no bridge to another passage.
 */
export const isDescriptor = (entity: Entity, text: string): boolean =>
  entity.kind === "name" &&
  (weekday.test(entity.text) ||
    (/^\p{Lu}\p{Ll}+(?:an|ese|ish|ch|ic|i)$/u.test(entity.text) &&
      /^[\s-]+\p{Ll}/u.test(text.slice(entity.start + entity.text.length))))
