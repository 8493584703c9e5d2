import type { PipelineResult } from "@deepnote-rag/core"
import { splitSentences } from "@deepnote-rag/text"
import { quote, wrap } from "./Text.js"

const sentenceKey = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase()

/**
 * The note's evolution as a timeline: each step's candidate note, the judge's verdict, and what the candidate added
 * (+) or dropped (−) relative to the best note it was written from.
 */
export const renderTimeline = (result: PipelineResult): string => {
  const out: Array<string> = [`Note timeline for: ${result.question}`, ""]
  let best: string | undefined
  for (const entry of result.trace.notes) {
    const queries = result.trace.queries.filter((q) => q.step === entry.step).map((q) => quote(q.query, 70))
    const passages = result.trace.passages.filter((p) => p.step === entry.step).map((p) =>
      p.passage.title || p.passage.id
    )
    const verdict = entry.verdict === undefined
      ? "initial note (best)"
      : entry.verdict.better
      ? "judge: better → new best"
      : "judge: not better → rejected"
    out.push(`── step ${entry.step} · ${verdict}`)
    if (queries.length > 0) out.push(`   asked: ${queries.join(", ")}`)
    if (passages.length > 0) out.push(`   read:  ${passages.join(" | ")}`)
    const current = splitSentences(entry.note.text)
    if (best === undefined) out.push(wrap(entry.note.text, 92, "   │ "))
    else {
      const before = new Set(splitSentences(best).map(sentenceKey))
      const after = new Set(current.map(sentenceKey))
      const added = current.filter((s) => !before.has(sentenceKey(s)))
      const dropped = splitSentences(best).filter((s) => !after.has(sentenceKey(s)))
      if (added.length === 0 && dropped.length === 0) out.push("   (no change from the best note)")
      for (const s of added) out.push(wrap(s, 90, "   + "))
      for (const s of dropped) out.push(wrap(s, 90, "   − "))
    }
    if (entry.best) best = entry.note.text
    out.push("")
  }
  out.push(`stop: ${result.stopReason} · answer: ${result.answer.text}`)
  return out.join("\n")
}
