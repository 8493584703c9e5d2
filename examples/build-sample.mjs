// Builds the bundled sample under examples/sample from ../shared/data (run from the repo root:
// `node examples/build-sample.mjs ../shared/data`). The output is committed; the demo needs nothing else.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createHash } from "node:crypto"
import { join } from "node:path"

const data = process.argv[2] ?? "../shared/data"
const corpus = new URL("./sample/corpus/", import.meta.url)
const questions = new URL("./sample/questions/", import.meta.url)
mkdirSync(corpus, { recursive: true })
mkdirSync(questions, { recursive: true })
const lines = (file) => readFileSync(join(data, file), "utf8").split("\n").filter((l) => l.trim().length > 0).map((l) => JSON.parse(l))

// English: every paragraph (supporting and distractor) of the first 30 HotpotQA dev questions (IRCoT sample), which
// are all bridge questions, plus three comparison questions (two yes/no, one "which of").
const comparisons = new Set(["5ae31bbd55429928c42395fc", "5ab6bf6d55429953192ad372", "5ae54eea5542993aec5ec19d"])
const all = lines("hotpotqa/dev-300.ircot.jsonl")
const hotpot = [...all.slice(0, 30), ...all.filter((q) => comparisons.has(q.question_id))]
const seen = new Set()
const english = []
for (const q of hotpot) {
  for (const c of q.contexts) {
    const text = c.paragraph_text.replace(/\s+/g, " ").trim()
    const id = `hp-${createHash("sha1").update(`${c.title}\n${text}`).digest("hex").slice(0, 12)}`
    if (seen.has(id)) continue
    seen.add(id)
    english.push({ id, title: c.title, text })
  }
}
writeFileSync(new URL("hotpotqa-paragraphs.jsonl", corpus), english.map((r) => JSON.stringify(r)).join("\n") + "\n")
writeFileSync(
  new URL("hotpotqa.jsonl", questions),
  hotpot.map((q) => JSON.stringify({ id: q.question_id, question: q.question_text, answers: q.answers_objects.flatMap((a) => a.spans) })).join("\n") + "\n"
)

// Chinese: the first 8 CMRC 2018 dev paragraphs.
const chinese = lines("corpus/zh-cmrc2018.jsonl").slice(0, 8)
writeFileSync(new URL("cmrc2018-paragraphs.jsonl", corpus), chinese.map((r) => JSON.stringify({ id: r.id, title: r.title, text: r.text })).join("\n") + "\n")
const ids = new Set(chinese.map((r) => r.id))
const zhQuestions = lines("cmrc2018/dev-questions.jsonl").filter((q) => ids.has(q.paragraph_id))
writeFileSync(new URL("cmrc2018.jsonl", questions), zhQuestions.map((q) => JSON.stringify({ id: q.id, question: q.question, answers: q.answers })).join("\n") + "\n")
console.log(`sample: ${english.length} English paragraphs (${hotpot.length} questions), ${chinese.length} Chinese paragraphs (${zhQuestions.length} questions)`)
