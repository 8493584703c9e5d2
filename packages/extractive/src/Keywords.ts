const whWord = /\b(?:what|which|who|whom|whose|when|where|why|how)\b|什么|哪|谁|多少|几|何/iu

/**
 * The question keywords a second-hop passage is likely to hold: question terms that are not anchors (the first hop
 * names those) and that the bridge's own sentence does not already hold, nearest the wh-word first ("What government
 * position was held…" → government, position: the words describing the answer, which the bridge's passage states).
 * Without a wh-word, in question order.
 */
export const answerKeywords = (
  question: string,
  terms: ReadonlySet<string>,
  exclude: ReadonlySet<string>,
  count: number
): ReadonlyArray<string> => {
  const lower = question.toLowerCase()
  const wh = whWord.exec(lower)?.index ?? 0
  return [...terms]
    .filter((t) => !exclude.has(t))
    .map((t, i) => {
      const at = lower.indexOf(t)
      return { t, i, distance: at < 0 ? Number.POSITIVE_INFINITY : Math.abs(at - wh) }
    })
    .sort((a, b) => a.distance - b.distance || a.i - b.i)
    .slice(0, Math.max(0, count))
    .map((k) => k.t)
}
