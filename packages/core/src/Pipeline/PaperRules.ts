import type { Passage } from "../Domain/Passage.js"
import type { RunConfig } from "../Domain/RunConfig.js"

/** The reference's cap on unique passages (`max_unique_passages`), the `paper` profile's default budget. */
export const paperDefaultCap = 15

/** The unique-passage cap of a `paper` run. */
export const paperCap = (config: RunConfig): number => config.maxUniquePassages ?? paperDefaultCap

/** The reference implementation's retrieval string: planner output, newline, question, cut to 500 characters. */
export const paperRetrievalQuery = (plannerText: string, question: string): string =>
  `${plannerText}\n${question}`.slice(0, 500)

/**
 * The reference's passage-cap rule, evaluated at the start of a step with `unique` passages seen so far:
 * - `stop` when more than `cap` unique passages were seen (strictly more);
 * - otherwise `room` > 0 when adding `topK` would cross the cap: seen passages are then filtered out of the
 *   next retrieval and the rest cut to `room`; `room` = 0 means "pass the retrieval through unfiltered"
 *   (including at exactly `cap`, as the reference does).
 */
export const paperCapRule = (
  unique: number,
  topK: number,
  cap: number
): { readonly _tag: "Stop" } | { readonly _tag: "Continue"; readonly room: number } => {
  if (unique > cap) return { _tag: "Stop" }
  return { _tag: "Continue", room: unique + topK > cap ? cap - unique : 0 }
}

/** Applies the near-cap filter of the reference to a retrieval. */
export const applyPaperCap = (
  passages: ReadonlyArray<Passage>,
  seen: ReadonlySet<string>,
  room: number
): ReadonlyArray<Passage> => (room > 0 ? passages.filter((p) => !seen.has(p.id)).slice(0, room) : passages)

/** The reference strips every newline from the rewritten note. */
export const paperNoteText = (text: string): string => text.replace(/\r?\n/g, "")
