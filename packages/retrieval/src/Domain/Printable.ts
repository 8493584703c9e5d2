/**
 * Characters that must never reach a terminal raw from a corpus file or a path: C0 controls (including ESC, so no
 * ANSI sequence), DEL, C1 controls, line/paragraph separators and the bidirectional overrides.
 */
// eslint-disable-next-line no-control-regex
const unsafe = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu

const escape = (c: string): string => {
  const code = c.charCodeAt(0)
  if (c === "\n") return "\\n"
  if (c === "\r") return "\\r"
  if (c === "\t") return "\\t"
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`
}

/** Text from outside (file content, parser messages quoting it, paths) made safe for one terminal line. */
export const printable = (text: string, maxLength = 1000): string => {
  const safe = text.replace(unsafe, escape)
  return safe.length > maxLength ? `${safe.slice(0, maxLength)}…` : safe
}
