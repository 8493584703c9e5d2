/**
 * mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). Same seed, same sequence, on every platform.
 * For reproducible sampling (bootstrap CIs, simulator faults and reply lengths, synthetic workloads, test schedules);
 * not for anything secret.
 */
export const seededRandom = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
