/** Python's `string.punctuation`: the only characters SQuAD v1.1's script (and the reference `eval.py`) removes. */
export const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

const asciiPunctuationSet = new Set(asciiPunctuation)
const unicodePunctuation = /\p{P}/u
const articles = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu

/**
 * Which characters normalisation removes: `unicode` removes every Unicode punctuation character (`\p{P}`: “ ” ‘ ’ —
 * – … « » 、 。 ， and so on) plus the ASCII symbols of `string.punctuation` ($ + < = > ^ ` | ~); `ascii` removes
 * exactly SQuAD's ASCII set, so "“Paris”" keeps its curly quotes.
 */
export type PunctuationSet = "unicode" | "ascii"

const isPunctuation = (set: PunctuationSet) => (char: string): boolean =>
  asciiPunctuationSet.has(char) || (set === "unicode" && unicodePunctuation.test(char))

/** Removes punctuation characters of the chosen set. */
export const removePunctuation = (text: string, set: PunctuationSet): string => {
  const punct = isPunctuation(set)
  let out = ""
  for (const char of text) if (!punct(char)) out += char
  return out
}

/**
 * SQuAD v1.1 answer normalisation, in its order: lower-case, remove punctuation, remove the articles a/an/the as
 * whole words, collapse whitespace.
 */
export const normalizeAnswer = (text: string, set: PunctuationSet = "unicode"): string =>
  removePunctuation(text.toLowerCase(), set).replace(articles, " ").split(/\s+/u).filter((t) => t.length > 0).join(" ")
