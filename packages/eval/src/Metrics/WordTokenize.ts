/**
 * NLTK's `NLTKWordTokenizer` (NLTK 3.8, the tokenizer behind `word_tokenize`), rule for rule, for the CMRC 2018
 * script's F1: it splits a run of non-CJK text into words the way the official script does ("1.5" and "1,000" stay
 * whole; "50%" → "50", "%"; a final "." is its own token). Python's `\w`, `\d` and `\b` are Unicode-aware, so the
 * character classes here are spelled with Unicode properties. `sent_tokenize` (Punkt, a trained model) is not applied:
 * answers are one sentence.
 */
type Rule = readonly [RegExp, string]

const word = "[\\p{L}\\p{N}_]"
/** Python's `\b` around a word: not preceded / followed by a word character. */
const start = `(?<!${word})`
const end = `(?!${word})`

const startingQuotes: ReadonlyArray<Rule> = [
  [/([«“‘„]|[`]+)/gu, " $1 "],
  [/^"/u, "``"],
  [/(``)/gu, " $1 "],
  [/([ ([{<])("|'{2})/gu, "$1 `` "],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${word})${end}`, "giu"), "$1 $2"]
]

const punctuation: ReadonlyArray<Rule> = [
  [/([^.])(\.)([\])}>"'»”’ ]*)\s*$/u, "$1 $2 $3 "],
  [/([:,])([^\p{Nd}])/gu, " $1 $2"],
  [/([:,])$/u, " $1 "],
  [/\.{2,}/gu, " $& "],
  [/[;@#$%&]/gu, " $& "],
  [/([^.])(\.)([\])}>"']*)\s*$/u, "$1 $2$3 "],
  [/[?!]/gu, " $& "],
  [/([^'])' /gu, "$1 ' "],
  [/[*]/gu, " $& "]
]

const parensBrackets: Rule = [/[\][(){}<>]/gu, " $& "]
const doubleDashes: Rule = [/--/gu, " -- "]

const endingQuotes: ReadonlyArray<Rule> = [
  [/([»”’])/gu, " $1 "],
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, "$1 $2 "],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, "$1 $2 "]
]

const contractions: ReadonlyArray<Rule> = [
  ...[
    ["can", "not"],
    ["d", "'ye"],
    ["gim", "me"],
    ["gon", "na"],
    ["got", "ta"],
    ["lem", "me"],
    ["more", "'n"]
  ].map(([a, b]): Rule => [new RegExp(`${start}(${a})(${b})${end}`, "giu"), " $1 $2 "]),
  [new RegExp(`${start}(wan)(na)(?=\\s)`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(is)${end}`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(was)${end}`, "giu"), " $1 $2 "]
]

const apply = (text: string, rules: ReadonlyArray<Rule>) =>
  rules.reduce((t, [pattern, replacement]) => t.replace(pattern, replacement), text)

/** The tokens NLTK's `word_tokenize` gives for one sentence. */
export const wordTokenize = (text: string): Array<string> => {
  let t = apply(text, startingQuotes)
  t = apply(t, punctuation)
  t = apply(t, [parensBrackets, doubleDashes])
  t = apply(` ${t} `, endingQuotes)
  t = apply(t, contractions)
  return t.split(/\s+/u).filter((s) => s.length > 0)
}
