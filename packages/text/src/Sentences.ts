const abbreviations = new Set([
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "mt",
  "ft",
  "no",
  "vs",
  "etc",
  "inc",
  "ltd",
  "co",
  "corp",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
  "u.s",
  "u.k",
  "e.g",
  "i.e"
])

/**
 * Splits text into sentences: after 。！？； in Chinese, and after . ! ? followed by space and an upper-case letter,
 * digit or quote in English, except after common abbreviations and single initials ("J. R. R. Tolkien").
 */
export const splitSentences = (text: string): Array<string> => {
  const sentences: Array<string> = []
  let start = 0
  const push = (end: number) => {
    const sentence = text.slice(start, end).trim()
    if (sentence.length > 0) sentences.push(sentence)
    start = end
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if ("。！？；".includes(ch)) {
      let end = i + 1
      while (end < text.length && "”」』)）".includes(text[end]!)) end++
      push(end)
      i = end - 1
      continue
    }
    if (ch === "." || ch === "!" || ch === "?") {
      let end = i + 1
      while (end < text.length && "\"'”’)".includes(text[end]!)) end++
      if (end >= text.length) continue
      if (!/\s/u.test(text[end]!)) continue
      let next = end
      while (next < text.length && /\s/u.test(text[next]!)) next++
      if (next >= text.length || !/[\p{Lu}\p{N}"“'‘(\p{Script=Han}]/u.test(text[next]!)) continue
      if (ch === ".") {
        const word = /([\p{L}.]+)$/u.exec(text.slice(Math.max(0, i - 12), i))?.[1]?.toLowerCase() ?? ""
        if (abbreviations.has(word) || /^\p{L}$/u.test(word)) continue
      }
      push(end)
    }
  }
  push(text.length)
  return sentences
}
