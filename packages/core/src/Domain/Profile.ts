import { Schema } from "effect"

/**
 * Which algorithm (each name has its record in `profiles`, Profiles/Registry.ts) runs:
 * - `deepnote` (default): the note loop with per-query retrieval, fusion, dedup of seen passages and structured outputs;
 * - `paper`: the public reference implementation's behaviour, for comparison;
 * - `adaptive-note`: DeepNote's predecessor, the note loop with Adaptive-Note's three-threshold stop rule;
 * - `renact`: NotesWriting with ReAct, a search-or-finish action per step and a note per retrieved document;
 * - `deeprag`: DeepRAG's inference, follow-up subqueries each answered from retrieval or from the model's knowledge;
 * - `no-retrieval`, `vanilla`, `init-note`: the ablation baselines.
 */
export const Profile = Schema.Literal(
  "deepnote",
  "paper",
  "adaptive-note",
  "renact",
  "deeprag",
  "no-retrieval",
  "vanilla",
  "init-note"
)
export type Profile = typeof Profile.Type

/** The roles that call a language model (or the offline engine). */
export const Role = Schema.Literal("init", "plan", "update", "judge", "answer")
export type Role = typeof Role.Type
export const roles: ReadonlyArray<Role> = Role.literals
