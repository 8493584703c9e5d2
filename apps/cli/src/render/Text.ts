/** Small helpers for plain-terminal rendering (no colours: output is often piped or logged). */

export const wrap = (text: string, width: number, indent: string): string => {
  const lines: Array<string> = []
  for (const paragraph of text.split(/\n/)) {
    let line = ""
    for (const word of paragraph.split(/\s+/).filter((w) => w.length > 0)) {
      if (line.length > 0 && line.length + 1 + word.length > width) {
        lines.push(line)
        line = word
      } else line = line.length > 0 ? `${line} ${word}` : word
    }
    // Chinese has no spaces: hard-wrap long runs
    while (line.length > width) {
      lines.push(line.slice(0, width))
      line = line.slice(width)
    }
    lines.push(line)
  }
  return lines.map((l) => indent + l).join("\n")
}

export const quote = (text: string, max = 120): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return `"${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}"`
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
