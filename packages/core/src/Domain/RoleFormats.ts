/**
 * The output contract each role is held to under a profile, handed to the roles in every call context so a role
 * never asks which profile runs:
 * - `plan`: `json` (a structured list of queries) or `text` (free text, retrieved with verbatim by `paper`);
 * - `judge`: `word` (one word, True or False, constrained by a choice) or `json` (`{"status": …}` with the reference's
 *   fallback reading);
 * - `answer`: `cleaned` (labels and quotes removed, yes/no normalised) or `raw` (the reply as produced).
 */
export interface RoleFormats {
  readonly plan: "json" | "text"
  readonly judge: "word" | "json"
  readonly answer: "cleaned" | "raw"
}

/** The formats of every profile that does not reproduce the reference implementation. */
export const structuredFormats: RoleFormats = { plan: "json", judge: "word", answer: "cleaned" }
