/** The deepest nesting of objects and arrays a JSON request body may have. Real DeepNote bodies are 4–5 deep. */
export const maxJsonDepth = 64

/**
 * The nesting depth of a JSON text (objects and arrays), scanned without parsing, with brackets inside strings
 * ignored. Deeply nested bodies are refused before decoding: decoding and describing them recurses once per level and
 * overflows the stack long before the body-size limit.
 */
export const jsonDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (c === 125 || c === 93) depth--
  }
  return deepest
}
