import { counted, type PipelineResult } from "@deepnote-rag/core"
import { quote, seconds, wrap } from "./Text.js"

export interface RenderContext {
  readonly engine: string
  readonly collection: string | undefined
}

const engineLabel = (engine: string) =>
  engine === "extractive" ? "extractive (offline baseline, no language model)" : engine

/** The step-by-step trace of one answered question, as plain text. */
export const renderResult = (result: PipelineResult, context: RenderContext): string => {
  const out: Array<string> = []
  out.push(`Question: ${result.question}`)
  out.push(
    `engine: ${engineLabel(context.engine)} · profile: ${result.profile}${
      context.collection ? ` · collection: ${context.collection}` : ""
    }`
  )
  const steps = new Set<number>([
    ...result.trace.passages.map((p) => p.step),
    ...result.trace.queries.map((q) => q.step),
    ...result.trace.notes.map((n) => n.step)
  ])
  for (const step of [...steps].sort((a, b) => a - b)) {
    out.push("")
    out.push(step === 0 ? "Step 0 (initial retrieval)" : `Step ${step}`)
    const queries = result.trace.queries.filter((q) => q.step === step)
    if (queries.length > 0) out.push(`  queries: ${queries.map((q) => quote(q.query, 80)).join(", ")}`)
    const passages = result.trace.passages.filter((p) => p.step === step)
    out.push(`  retrieved ${counted(passages.length, step === 0 ? "passage" : "new passage")}`)
    for (const { passage } of passages) out.push(`    · ${passage.title || passage.id}`)
    for (const note of result.trace.notes.filter((n) => n.step === step)) {
      if (note.verdict === undefined) out.push(`  note initialised (${note.note.text.length} chars)`)
      else if (note.verdict.parsed === "skipped") out.push(`  no new passages: step counted as a failure`)
      else {out.push(
          `  note rewritten (${note.note.text.length} chars) → judge: ${
            note.verdict.better ? "better ✓ (now the best note)" : "not better ✗ (best note kept)"
          }`
        )}
    }
  }
  out.push("")
  out.push(
    `Stopped: ${result.stopReason} after ${
      counted(result.counters.steps, "step")
    } (${result.counters.failures} rejected)`
  )
  if (result.bestNote !== undefined) {
    const best = [...result.trace.notes].reverse().find((n) => n.best)
    out.push(`Best note${best ? ` (step ${best.step})` : ""}:`)
    out.push(wrap(result.bestNote.text, 96, "  "))
  }
  out.push(`Answer: ${result.answer.text}`)
  const llm = result.counters.llm
  out.push(
    `Calls: ${llm.total} role calls (init ${llm.init}, plan ${llm.plan}, update ${llm.update}, judge ${llm.judge}, answer ${llm.answer}), ` +
      `${result.counters.retrievals} retrievals, ${result.counters.uniquePassages} unique passages, ${
        seconds(result.elapsedMs)
      }`
  )
  return out.join("\n")
}
