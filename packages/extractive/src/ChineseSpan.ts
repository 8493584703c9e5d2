import { cut } from "@deepnote-rag/text"
import { titlePrefix } from "./Sentences.js"

const whWord =
  /什么时候|什么地方|哪一年|哪里|哪儿|何时|何地|多少|什么|是谁|谁|哪[一]?[个些位年家所座条部种国支名项类]?|几/u
const stops = /[，。；、！？,;!?（）()「」“”]/u

/** The longest piece (≥ 2 characters, ≤ 12) of `anchor` that occurs in `text`, taken from its end or its start. */
const longestPiece = (anchor: string, text: string, fromEnd: boolean): { piece: string; at: number } | undefined => {
  for (let k = Math.min(anchor.length, 12); k >= 2; k--) {
    const piece = fromEnd ? anchor.slice(-k) : anchor.slice(0, k)
    const at = text.indexOf(piece)
    if (at >= 0) return { piece, at }
  }
  return undefined
}

/**
 * Chinese span by aligning the question with a sentence: the words just before the question word ("常用的节奏型称为"
 * + 什么) are found in the sentence and the answer is what follows them, up to punctuation; failing that, the words
 * just after it ("谁" + "改编的") are found and the answer is what precedes them, back to punctuation or 是/由/被/为.
 * The longer anchor wins. Undefined when neither anchor occurs.
 */
export const alignedSpan = (question: string, sentence: string): string | undefined => {
  const wh = whWord.exec(question)
  if (!wh) return undefined
  const left = question.slice(0, wh.index).replace(/[《》]/gu, "")
  const right = question.slice(wh.index + wh[0].length).replace(/[？?。！!]+$/u, "").replace(/[《》]/gu, "")
  const text = sentence.slice(titlePrefix(sentence).length)
  const after = longestPiece(left, text, true)
  const before = longestPiece(right, text, false)
  if (after !== undefined && (before === undefined || after.piece.length >= before.piece.length)) {
    const rest = text.slice(after.at + after.piece.length)
    const end = rest.search(stops)
    const span = (end < 0 ? rest : rest.slice(0, end)).replace(/^(?:是|为|有|在|叫|于)/u, "").slice(0, 30)
    if (span.length > 0) return span
  }
  if (before !== undefined) {
    const head = text.slice(0, before.at)
    const from = Math.max(
      ...[...head.matchAll(/[，。；、！？,;（(「“]|是|由|被|为/gu)].map((m) => (m.index ?? 0) + m[0].length),
      0
    )
    // "哪家公司管理运营": the noun after 哪+classifier belongs to the answer ("三茂铁路股份有限" + "公司").
    const noun = wh[0].startsWith("哪") ? cut(right)[0] ?? "" : ""
    const span = head.slice(from).slice(-30) + (noun.length > 0 && before.piece.startsWith(noun) ? noun : "")
    if (span.length > 0) return span
  }
  return undefined
}
