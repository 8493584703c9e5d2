import { seededRandom } from "@deepnote-rag/core"

/**
 * A request's sampling draw: its temperature (> 0) and a PRNG seeded from (seed, temperature, prompt), so a reply
 * varies with the seed yet repeats exactly for the same (prompt, seed, temperature). The content engines perturb
 * their choices with it; temperature 0 means no draw at all (today's exact replies).
 */
export interface Draw {
  readonly temperature: number
  readonly random: () => number
}

/** FNV-1a over a string, 32 bits. */
export const hash32 = (text: string, basis = 0x811c9dc5): number => {
  let h = basis
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/**
 * The draw for one prompt: none at temperature 0 (or absent with `defaultTemperature` 0). Without a `seed` the request
 * gets a fresh one from `unseeded` (so unseeded replies vary per request, as a sampling server's do).
 */
export const drawFor = (
  sampling: { readonly temperature?: number | null | undefined; readonly seed?: number | null | undefined },
  defaultTemperature: number,
  prompt: string,
  unseeded: () => number
): Draw | undefined => {
  const temperature = sampling.temperature ?? defaultTemperature
  if (!(temperature > 0)) return undefined
  const seed = sampling.seed ?? Math.floor(unseeded() * 2 ** 32)
  return { temperature, random: seededRandom(hash32(`${seed}\u0000${temperature}\u0000${prompt}`)) }
}

/** A factor 1 ± temperature·spread, uniformly drawn. */
export const jitter = (draw: Draw, spread: number): number => 1 + draw.temperature * spread * (2 * draw.random() - 1)

/** Swaps neighbours with probability growing with temperature: a light shuffle that mostly keeps the ranking. */
export const nudgeOrder = <A>(draw: Draw, items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  const p = Math.min(0.9, 0.6 * draw.temperature)
  for (let i = out.length - 2; i >= 0; i--) {
    if (draw.random() < p) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!]
  }
  return out
}
