import { drawFor, type SampleSlot } from "../Sampling/Slots.js"

/** One sample of a group: its slot, what the role returned, and that output as the completion's text. */
export interface Sample<A> {
  readonly slot: SampleSlot
  readonly value: A
  readonly text: string
}

const key = (text: string) => text.replace(/\s+/gu, " ").trim()

/** The distinct non-empty samples, in sample order (the first of equal texts stands for them). */
export const distinct = <A>(samples: ReadonlyArray<Sample<A>>): Array<Sample<A>> => {
  const seen = new Set<string>()
  const out: Array<Sample<A>> = []
  for (const sample of samples) {
    const k = key(sample.text)
    if (k.length === 0 || seen.has(k)) continue
    seen.add(k)
    out.push(sample)
  }
  return out
}

/** One of `items`, drawn by the run's seed for this question and purpose (the same draw on every resume). */
export const pickBySeed = <A>(items: ReadonlyArray<A>, seed: number, questionId: string, purpose: string): A =>
  items[Math.floor(drawFor(seed, questionId, purpose) * items.length)]!
