import type { RoleFormats, RunConfig } from "@deepnote-rag/core"
import { cleanReply, parseShortAnswer } from "./Parse.js"

const labels = ["final answer:", "answer:", "答案:", "答案："]

/** True while the reply so far could still turn out to be a label, a reasoning block or a code fence to drop. */
const undecided = (reply: string): boolean => {
  const start = reply.trimStart().toLowerCase()
  if (start.length === 0) return true
  if (labels.some((label) => label.startsWith(start))) return true
  if ("<think>".startsWith(start.slice(0, 7)) && !start.includes("</think>")) return true
  return start.startsWith("`") && !start.includes("\n")
}

/**
 * The answer's text as streamed to a client, kept consistent with the answer read from the whole reply: after each
 * delta, the reply so far is read as the task reads it (a short answer's first line without label or quotes, a long
 * answer cleaned) and only what extends the text already sent goes out; at the end, whatever the whole reply's answer
 * adds. A yes/no answer (one word, normalised) goes out whole at the end. Concatenated, the pieces are the answer.
 */
export const answerDeltas = (task: RunConfig["task"], format: RoleFormats["answer"]) => {
  const read = format === "raw" || task === "longform"
    ? cleanReply
    : task === "yesno"
    ? undefined
    : parseShortAnswer
  let reply = ""
  let sent = ""
  const extend = (text: string): string => {
    if (!text.startsWith(sent)) return ""
    const piece = text.slice(sent.length)
    sent = text
    return piece
  }
  return {
    /** The next piece to send after this delta of the reply ("" to hold back). */
    delta: (text: string): string => {
      reply += text
      return read === undefined || undecided(reply) ? "" : extend(read(reply))
    },
    /** The rest of the answer once it is read from the whole reply. */
    end: (answer: string): string => extend(answer)
  }
}
