import { AlignSpec } from "@deepnote-rag/core"
import { paperGrid } from "../Sampling/Slots.js"

/**
 * DNAlign's recipe with the paper's sampling and the offline extractive judge: the four roles, 9 samples over the
 * paper's grid, a top-k drawn in 3…9 per question, seed 66, every pair kept (`overrides` replace fields).
 */
export const paperRecipe = (overrides: Partial<ConstructorParameters<typeof AlignSpec>[0]> = {}): AlignSpec =>
  new AlignSpec({
    roles: ["init", "plan", "update", "answer"],
    samples: 9,
    grid: paperGrid,
    topK: { min: 3, max: 9 },
    judge: { engine: "extractive" },
    seed: 66,
    mix: "all",
    prompts: {},
    ...overrides
  })
