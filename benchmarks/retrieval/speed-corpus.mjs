// Writes a synthetic corpus: Zipf(1.07) over a 60k-word vocabulary whose head is the English stop-word list (as in
// real text, where the most frequent words are function words), 60–140 tokens per passage, a 1–4 word title, as
// JSONL {id, title, text}; and 200 question-length queries (8–14 words, same distribution) beside it.
// Usage: node speed-corpus.mjs N out.jsonl   (deterministic: seeded PRNG)
import { englishStopWords } from "@deepnote-rag/text"
import * as Fs from "node:fs"

const [n, out] = [Number(process.argv[2]), process.argv[3]]
let seed = 42
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 4294967296)
const syllables = ["ka", "lo", "mi", "ten", "ra", "sul", "vo", "ne", "dri", "pa", "qua", "zo", "ber", "li", "an", "tor", "es", "gu", "fi", "mon"]
const vocab = new Set()
while (vocab.size < 60000) {
  let w = ""
  const len = 2 + Math.floor(random() * 3)
  for (let i = 0; i < len; i++) w += syllables[Math.floor(random() * syllables.length)]
  vocab.add(w)
}
const words = [...[...englishStopWords].filter((w) => !w.includes("'")), ...vocab]
const cdf = []
let total = 0
for (let i = 1; i <= words.length; i++) cdf.push((total += 1 / Math.pow(i, 1.07)))
const zipf = () => {
  const x = random() * total
  let lo = 0
  let hi = cdf.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cdf[mid] < x) lo = mid + 1
    else hi = mid
  }
  return words[lo]
}
const sentence = (count) => {
  const parts = []
  for (let i = 0; i < count; i++) parts.push(zipf())
  return parts.join(" ")
}
const fd = Fs.openSync(out, "w")
let buffer = ""
for (let i = 0; i < n; i++) {
  const title = sentence(1 + Math.floor(random() * 4))
  buffer += JSON.stringify({ id: `s${i}`, title: title[0].toUpperCase() + title.slice(1), text: sentence(60 + Math.floor(random() * 81)) + "." }) + "\n"
  if (buffer.length > 1 << 20) {
    Fs.writeSync(fd, buffer)
    buffer = ""
  }
}
Fs.writeSync(fd, buffer)
Fs.closeSync(fd)
const queries = Array.from({ length: 200 }, () => `Which ${sentence(7 + Math.floor(random() * 7))}?`)
Fs.writeFileSync(out.replace(/\.jsonl$/, ".queries.json"), JSON.stringify(queries))
