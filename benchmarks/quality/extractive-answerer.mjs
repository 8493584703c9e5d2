// The extractive answerer alone on HotpotQA dev-300 (IRCoT): answers from the two supporting paragraphs, and from an
// init note over all ten context paragraphs, by question kind (the table in packages/extractive/README.md).
// Run from the repo root: npx tsc -b packages/extractive packages/eval && node benchmarks/quality/extractive-answerer.mjs
import { answerFrom, comparisonOptions, isYesNoQuestion, writeInitialNote } from "@deepnote-rag/extractive"
import { normalizeAnswer, squadEm, squadF1 } from "@deepnote-rag/eval"
import * as Fs from "node:fs"

const data = process.argv[2] ?? "../shared/data/hotpotqa/dev-300.ircot.jsonl"
// Acc as in the README table: a gold alias is a substring of the prediction, both SQuAD-normalised.
const acc = (prediction, golds) => (golds.some((g) => normalizeAnswer(prediction).includes(normalizeAnswer(g))) ? 1 : 0)
const records = Fs.readFileSync(data, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
const groups = {}
for (const r of records) {
  const question = r.question_text
  const golds = r.answers_objects.flatMap((a) => a.spans)
  const passages = (only) => r.contexts.filter((c) => !only || c.is_supporting).map((c) => ({ title: c.title, text: c.paragraph_text }))
  const kind = isYesNoQuestion(question) ? "yes/no" : comparisonOptions(question) ? "A-or-B choice" : "span (bridge)"
  const fromGold = answerFrom(question, { _tag: "Passages", passages: passages(true) })
  const fromNote = answerFrom(question, writeInitialNote(question, passages(false)))
  for (const group of ["all", kind]) {
    ;(groups[group] ??= []).push([acc(fromGold, golds), squadEm(fromGold, golds), squadF1(fromGold, golds), acc(fromNote, golds)])
  }
}
console.log("| questions | n | Acc | EM | F1 | Acc, answering from an init note over all 10 paragraphs |\n|---|---|---|---|---|---|")
for (const [group, rows] of Object.entries(groups)) {
  const mean = (i) => ((100 * rows.reduce((a, row) => a + row[i], 0)) / rows.length).toFixed(1)
  console.log(`| ${group} | ${rows.length} | ${mean(0)} | ${mean(1)} | ${mean(2)} | ${mean(3)} |`)
}
