import { normalizeAnswer } from "./Normalize.js"
import { exactMatch, maxOverGolds, tokenF1 } from "./Squad.js"

const special = new Set(["yes", "no", "noanswer"])

/**
 * F1 of the official HotpotQA script (`hotpot_evaluate_v1.py`): SQuAD normalisation with its ASCII punctuation set,
 * except that when the normalised prediction or gold is `yes`, `no` or `noanswer` and the two differ, F1 is 0
 * (so "no" scores nothing against "yes, no doubt").
 */
export const hotpotF1Single = (prediction: string, gold: string): number => {
  const p = normalizeAnswer(prediction, "ascii")
  const g = normalizeAnswer(gold, "ascii")
  if ((special.has(p) || special.has(g)) && p !== g) return 0
  return tokenF1(prediction, gold, "ascii")
}

/** Official HotpotQA F1, max over gold aliases. */
export const hotpotF1 = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => hotpotF1Single(prediction, gold))

/** Official HotpotQA EM (SQuAD EM with ASCII punctuation), max over gold aliases. */
export const hotpotEm = (prediction: string, golds: ReadonlyArray<string>): number =>
  maxOverGolds(golds, (gold) => exactMatch(prediction, gold, "ascii"))
