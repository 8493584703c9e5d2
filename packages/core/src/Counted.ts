/** `1 question`, `2 questions`: a count with its noun in the number it needs (nouns whose plural adds an `s`). */
export const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`
