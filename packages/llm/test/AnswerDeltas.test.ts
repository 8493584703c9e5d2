import { defaultRunConfig, type RunConfig } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { answerDeltas } from "../src/Roles/AnswerDeltas.js"
import { cleanReply, parseShortAnswer } from "../src/Roles/Parse.js"

/** Streams `pieces` through answerDeltas and returns what a client sees, piece by piece. */
const stream = (config: RunConfig, pieces: ReadonlyArray<string>, answer: string) => {
  const deltas = answerDeltas(config.task, config.profile === "paper" ? "raw" : "cleaned")
  const sent = pieces.map((p) => deltas.delta(p))
  return [...sent, deltas.end(answer)].filter((p) => p.length > 0)
}

describe("answerDeltas: streamed pieces concatenate to the answer read from the whole reply", () => {
  it("a short answer: the label and quotes never go out, nothing after the first line", () => {
    const pieces = ["An", "swer", ": \"", "Adri", "ana ", "Trig", "iani\"", "\nBecause", " the note says so."]
    const reply = pieces.join("")
    const sent = stream(defaultRunConfig, pieces, parseShortAnswer(reply))
    assert.strictEqual(sent.join(""), "Adriana Trigiani")
    assert.isAbove(sent.length, 2, "it still streams")
  })

  it("a long answer streams as written, without the reasoning block", () => {
    const config: RunConfig = { ...defaultRunConfig, task: "longform" }
    const pieces = ["<thi", "nk>hmm</think>", "Big Stone Gap", " was directed", " by Adriana Trigiani."]
    const sent = stream(config, pieces, cleanReply(pieces.join("")))
    assert.strictEqual(sent.join(""), "Big Stone Gap was directed by Adriana Trigiani.")
    assert.deepStrictEqual(sent.slice(0, 2), ["Big Stone Gap", " was directed"])
  })

  it("a yes/no answer goes out once, normalised", () => {
    const config: RunConfig = { ...defaultRunConfig, task: "yesno" }
    assert.deepStrictEqual(stream(config, ["是"], "yes"), ["yes"])
  })
})
