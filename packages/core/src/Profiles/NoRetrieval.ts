import { Effect } from "effect"
import { structuredFormats } from "../Domain/RoleFormats.js"
import { noRetrieval as answerAlone } from "../Pipeline/Baselines.js"
import type { ProfileDefinition } from "./ProfileDefinition.js"

/** `no-retrieval`: the answerer sees the question only. */
export const noRetrieval: ProfileDefinition = {
  name: "no-retrieval",
  summary: "baseline: the model answers from its own knowledge",
  retrieves: false,
  formats: structuredFormats,
  stop: undefined,
  defaults: {},
  run: (question, recorder, base) =>
    answerAlone(question, recorder, { ...base, step: 0 }).pipe(
      Effect.map((r) => ({ ...r, reason: "baseline" as const }))
    )
}
