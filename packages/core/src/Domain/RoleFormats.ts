/**
 * The output contract each role is held to under a profile, handed to the roles in every call context so a role
 * never asks which profile runs:
 * - `plan`: `json` (a structured list of queries), `text` (free text, retrieved with verbatim by `paper`) or `react`
 *   (a Thought, then an Action: `search[query]`, or `finish[answer]` as an empty list of queries) or `decompose`
 *   (the next follow-up subquery, or none once the final answer is known);
 * - `update`: `rewrite` (the whole note rewritten with the new passages) or `extract` (what one document adds to the
 *   notes extracted so far, `YES#<text>` or `NO#<reason>`; the caller keeps the lines it did not have);
 * - `judge`: `word` (one word, True or False, constrained by a choice) or `json` (`{"status": …}` with the reference's
 *   fallback reading) or `retrieve` (DeepRAG's atomic decision: True when the subquery in Note 2 needs a search,
 *   False when the model answers it from its own knowledge and the chain in Note 1);
 * - `answer`: `cleaned` (labels and quotes removed, yes/no normalised) or `raw` (the reply as produced).
 */
export interface RoleFormats {
  readonly plan: "json" | "text" | "react" | "decompose"
  readonly update: "rewrite" | "extract"
  readonly judge: "word" | "json" | "retrieve"
  readonly answer: "cleaned" | "raw"
}

/** The formats of every profile that does not reproduce the reference implementation. */
export const structuredFormats: RoleFormats = { plan: "json", update: "rewrite", judge: "word", answer: "cleaned" }
