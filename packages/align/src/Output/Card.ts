import { type AlignSpec, paperMix } from "@deepnote-rag/core"
import * as Path from "node:path"
import { agreementRate, droppedTotal } from "./Summary.js"
import type { Written } from "./WritePairs.js"

export interface CardInput {
  readonly runId: string
  /** When the pairs were written (ISO). */
  readonly date: string
  readonly dataset: { readonly path: string; readonly hash: string; readonly count?: number | undefined }
  readonly collection: string
  readonly engine: "llm" | "extractive"
  readonly profile: string
  /** Model per role, as the manifest records them. */
  readonly models: Readonly<Record<string, string>>
  readonly spec: AlignSpec
  readonly written: Written
}

const subsets = {
  init: "D_Init — initial notes, the group ranked by the judge (relevance, coherence, completeness, accuracy)",
  plan:
    "D_QR — first query refinement from the positive note, ranked (relevance, specificity, keywords, non-redundancy)",
  update: "D_KA — updates of the positive note with what the positive queries retrieve, labelled by the ARD judge",
  answer: "D_Ans — vanilla-RAG answers labelled by the task metric against gold"
} as const

const mixText = (spec: AlignSpec): string =>
  spec.mix === "all"
    ? "every pair (no mix)"
    : spec.mix === "paper"
    ? `the paper's ratios (D_Init ${paperMix.init}, D_QR ${paperMix.plan}, D_KA ${paperMix.update}, D_Ans ${paperMix.answer} of 6,000), scaled by one factor to what is available, pairs drawn by seed ${spec.seed}`
    : `quotas ${JSON.stringify(spec.mix)}, scaled by one factor to what is available, drawn by seed ${spec.seed}`

/** The dataset card: where the pairs come from, how they were made and judged, what the files hold, how to train. */
export const datasetCard = (input: CardInput): string => {
  const { spec, written } = input
  const rows = written.summary.roles.map((s) => {
    const reasons = Object.entries(s.dropped).map(([r, n]) => `${n} ${r}`).join(", ")
    const rate = agreementRate(s)
    return `| ${s.role} | ${s.questions} | ${s.pairs} | ${written.kept[s.role]} | ${droppedTotal(s)}${
      reasons.length > 0 ? ` (${reasons})` : ""
    } | ${(s.questions === 0 ? 0 : s.distinct / s.questions).toFixed(1)} | ${
      rate === undefined
        ? "—"
        : `${(100 * rate).toFixed(0)}% of ${s.agreement.agree + s.agreement.disagree} (${s.agreement.tie} ties)`
    } |`
  })
  const grid = spec.grid.map((p) => `(${p.temperature}, ${p.topP})`).join(" ")
  const models = Object.entries(input.models).map(([role, model]) => `${role} ${model}`).join(", ")
  const files = written.files.map((f) =>
    `- \`${Path.basename(f.path)}\`: ${f.pairs} pairs${f.role ? ` (${f.role})` : ""}`
  )
  const prompts = Object.entries(spec.prompts).map(([name, hash]) => `\`${name}\` ${hash}`).join(", ")
  return `# DNAlign preference pairs

DPO preference pairs for DeepNote's roles, made by \`deepnote align-data\` (run \`${input.runId}\`, ${input.date}) with
the DNAlign recipe (arXiv 2410.08821, DPO section): per question and role, sample the role over a grid, judge each
group, keep the best (chosen) and the worst (rejected); questions lacking a positive or a negative are dropped.

## Source

- Questions: \`${input.dataset.path}\` (${input.dataset.count ?? "?"} questions, sha256 \`${
    input.dataset.hash.slice(0, 16)
  }…\`)
- Collection: \`${input.collection}\`; the first retrieval is the question alone, top-k drawn per question from
  ${spec.topK.min}..${spec.topK.max} by seed ${spec.seed}
- Engine: ${input.engine} (profile \`${input.profile}\`)${models.length > 0 ? `; models: ${models}` : ""}
- Judge: ${
    spec.judge.engine === "extractive" ? "the extractive engine's rules" : spec.judge.model ?? "the run's judge model"
  }

## Recipe

- Samples per group: ${spec.samples}, over the grid (temperature, top_p): ${grid}; sample i uses point i mod ${spec.grid.length} and seed ${spec.seed} + i
${spec.roles.map((r) => `- ${subsets[r]}`).join("\n")}
- Output mix: ${mixText(spec)}
- Prompt hashes: ${prompts}

## Contents

| role | questions | pairs made | pairs written | dropped (reasons) | distinct samples per question | judge agrees with the metric |
|---|---|---|---|---|---|---|
${rows.join("\n")}

Judge agreement: among pairs where gold exists and the task metric tells the two sides apart (notes: a gold answer
in the note; queries: gold passage titles the queries name), the share where the chosen side scores higher. Answer
pairs are labelled by the metric itself.

${files.join("\n")}

## Format

One JSON object per line, TRL's conversational preference format:
\`{"prompt": [{"role": "system", …}, {"role": "user", …}], "chosen": [{"role": "assistant", …}], "rejected": [{"role":
"assistant", …}], "role": "init", "meta": {"question_id", "role", "sampling": {"chosen", "rejected", "top_k"},
"judge": {"method", "model", "candidates", "chosen", "rejected"}}}\`. The prompt is exactly what DeepNote's LLM
engine sends the role; chosen and rejected answer that same prompt and differ.

## Training

The paper trains with DPO (full parameters): learning rate 5e-7, β 0.1, batch 8 (8 GPUs × 1), 1 epoch; the reference
code uses max_length 8192 and max_prompt_length 8000. With TRL: \`load_dataset("json", data_files=…)\`, then
\`DPOTrainer(model, args=DPOConfig(learning_rate=5e-7, beta=0.1, per_device_train_batch_size=1,
gradient_accumulation_steps=8 // n_gpus, num_train_epochs=1, max_length=8192), train_dataset=…)\` with the \`role\` and
\`meta\` columns removed (docs/dnalign.md has the whole script).
`
}
