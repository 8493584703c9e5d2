import { splitSentences } from "@deepnote-rag/text"
import { type CorpusDocument, normalizeWhitespace, passageId } from "../Domain/CorpusDocument.js"

export interface SplitterOptions {
  /** Headings (`#`…`######`) start a new passage and become its title. */
  readonly markdown: boolean
  /** Passages are at most this many characters (one sentence longer than that is cut). */
  readonly maxChars: number
  /** Title of passages before the first heading (the file name). */
  readonly defaultTitle: string
}

/** Splits one over-long paragraph at sentence boundaries into pieces of at most `max` characters. */
const splitLong = (paragraph: string, max: number): Array<string> => {
  const pieces: Array<string> = []
  let current = ""
  for (const sentence of splitSentences(paragraph)) {
    for (let start = 0; start < sentence.length; start += max) {
      const part = sentence.slice(start, start + max)
      if (current.length > 0 && current.length + 1 + part.length > max) {
        pieces.push(current)
        current = ""
      }
      current = current.length > 0 ? `${current} ${part}` : part
    }
  }
  if (current.length > 0) pieces.push(current)
  return pieces
}

/**
 * A streaming splitter for plain text and markdown: paragraphs (separated by blank lines) under the same heading are
 * packed into passages of bounded size. Feed it lines; it returns the passages each line completes.
 */
export const makeTextSplitter = (options: SplitterOptions) => {
  let title = options.defaultTitle
  let paragraph: Array<string> = []
  let parts: Array<string> = []
  let length = 0
  let inCode = false
  const out: Array<CorpusDocument> = []

  const emit = (text: string) => out.push({ id: passageId(title, text), title, text })
  const flushPassage = () => {
    if (parts.length > 0) emit(parts.join("\n"))
    parts = []
    length = 0
  }
  const endParagraph = () => {
    const text = normalizeWhitespace(paragraph.join(" "))
    paragraph = []
    if (text.length === 0) return
    if (length > 0 && length + 1 + text.length > options.maxChars) flushPassage()
    if (text.length <= options.maxChars) {
      parts.push(text)
      length += text.length + 1
      return
    }
    const pieces = splitLong(text, options.maxChars)
    for (const piece of pieces.slice(0, -1)) emit(piece)
    parts.push(pieces[pieces.length - 1]!)
    length = pieces[pieces.length - 1]!.length
  }

  return {
    push: (line: string): Array<CorpusDocument> => {
      out.length = 0
      if (options.markdown && /^\s{0,3}(```|~~~)/u.test(line)) inCode = !inCode
      const heading = options.markdown && !inCode ? /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/u.exec(line) : null
      if (heading !== null) {
        endParagraph()
        flushPassage()
        title = heading[1]!.length > 0 ? heading[1]! : options.defaultTitle
      } else if (line.trim().length === 0 && !inCode) {
        endParagraph()
      } else {
        paragraph.push(line.trim())
      }
      return out.slice()
    },
    flush: (): Array<CorpusDocument> => {
      out.length = 0
      endParagraph()
      flushPassage()
      return out.slice()
    }
  }
}
