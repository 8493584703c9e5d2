/**
 * Help text fitted to the terminal. @effect/cli lays help out with lines as long as a command's whole usage (over 1,000
 * characters) padded with spaces; here each line loses its padding and breaks at spaces, its continuations indented
 * under its text. Imported without Effect by the command's entry point (`bin/deepnote.mjs`), so it stays dependency-free.
 */

/** ANSI SGR sequences (colour, bold): they take no columns. */
const sgr = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "gu")

const visibleLength = (text: string): number => text.replace(sgr, "").length

/** The width to wrap at: the terminal's when known (at least 40), else 80. */
export const helpWidth = (columns: number | undefined): number =>
  columns === undefined || !Number.isFinite(columns) || columns <= 0 ? 80 : Math.max(40, Math.floor(columns))

const wrapLine = (line: string, width: number): Array<string> => {
  const trimmed = line.trimEnd()
  if (visibleLength(trimmed) <= width) return [trimmed]
  const indent = trimmed.length - trimmed.trimStart().length
  const body = trimmed.slice(indent)
  // continuations sit under the text of a list item ("- ask …"), two columns further in for any other line
  const hang = " ".repeat(Math.min(indent + (body.startsWith("- ") ? 4 : 2), Math.floor(width / 2)))
  const lines: Array<string> = []
  // a run of two or more spaces separates columns (a usage and its description): each column starts a line
  body.split(/ {2,}/u).forEach((column, c) => {
    let current = c === 0 ? " ".repeat(indent) : hang
    let empty = true
    for (const word of column.split(" ").filter((w) => w.length > 0)) {
      if (!empty && visibleLength(current) + 1 + visibleLength(word) > width) {
        lines.push(current)
        current = hang + word
      } else {
        current = empty ? current + word : `${current} ${word}`
      }
      empty = false
    }
    lines.push(current)
  })
  return lines
}

/** `text` with every line of more than `width` visible columns broken at spaces, and no trailing padding. */
export const wrapHelp = (text: string, width: number): string =>
  text.split("\n").flatMap((line) => wrapLine(line, width)).join("\n")
