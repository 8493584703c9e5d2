import { type Language, type RunConfig, stableHash } from "@deepnote-rag/core"
import { instructionsFor, layoutSignature, rankInstructions } from "@deepnote-rag/llm"

const languages: ReadonlyArray<Language> = ["en", "zh"]

/**
 * The hash of each prompt template an align run's pairs and judges use (English and Chinese together), by name: the
 * role prompts of its profile (`init`, `plan`, `update`, `answer`: the vanilla-RAG answer of its task), the group
 * judges (`rank-init`, `rank-plan`) and the ARD judge (`ard`), with the profile's prompt layout. Recorded in the manifest; a resume under other prompts
 * is refused.
 */
export const alignPromptHashes = (config: RunConfig): Record<string, string> => {
  const layout = layoutSignature(config.profile)
  const of = (pick: (language: Language) => string) => stableHash([...languages.map(pick), ...layout]).slice(0, 16)
  const set = (language: Language) => instructionsFor(language, config.profile)
  return {
    init: of((l) => set(l).init),
    plan: of((l) => set(l).planJson(config.numQueries) + "\n" + set(l).planText(config.numQueries)),
    update: of((l) => set(l).update),
    answer: of((l) => set(l).answer[config.task].passages),
    "rank-init": of((l) => rankInstructions[l].notes),
    "rank-plan": of((l) => rankInstructions[l].queries),
    ard: of((l) => set(l).judgeWord + "\n" + set(l).judgeJson)
  }
}
