/**
 * The paper's Acc (reference `eval.py`): 1 when any gold answer, lower-cased, is a substring of the lower-cased raw
 * prediction. No other normalisation, exactly as the reference (so an empty gold always matches).
 */
export const substringAccuracy = (prediction: string, golds: ReadonlyArray<string>): number => {
  const p = prediction.toLowerCase()
  return golds.some((gold) => p.includes(gold.toLowerCase())) ? 1 : 0
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * StrategyQA accuracy: 1 when a gold answer ("yes"/"no") occurs as a whole word in the lower-cased prediction. The
 * gold is regex-escaped (the reference interpolates it raw) and word boundaries are Unicode-aware.
 */
export const strategyQaAccuracy = (prediction: string, golds: ReadonlyArray<string>): number => {
  const p = prediction.toLowerCase()
  return golds.some((gold) =>
      new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(gold.toLowerCase().trim())}(?![\\p{L}\\p{N}_])`, "u").test(p)
    )
    ? 1
    : 0
}
