import type { Language } from "./Language.js"

const cjk = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]/u
const cjkGlobal = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]/gu
const letterGlobal = /\p{L}/gu

/** Whether a character is a CJK ideograph (Han). */
export const isCjk = (char: string): boolean => cjk.test(char)

/** Whether a text contains any CJK ideograph. */
export const hasCjk = (text: string): boolean => cjk.test(text)

/** Share of letters that are CJK ideographs (0 when the text has no letters). */
export const cjkRatio = (text: string): number => {
  const letters = text.match(letterGlobal)?.length ?? 0
  if (letters === 0) return 0
  return (text.match(cjkGlobal)?.length ?? 0) / letters
}

/** Chinese when at least a fifth of the letters are Han characters (Chinese text often embeds Latin names). */
export const detectLanguage = (text: string): Language => (cjkRatio(text) >= 0.2 ? "zh" : "en")
