import { Profile, profiles, structuredFormats } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("profile registry", () => {
  it.effect("every profile name has its record, under its own name", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Object.keys(profiles).sort(), [...Profile.literals].sort())
      for (const name of Profile.literals) assert.strictEqual(profiles[name].name, name)
    }))

  it.effect("role formats: only paper reads free text, a JSON status and raw answers", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(profiles.paper.formats, { plan: "text", update: "rewrite", judge: "json", answer: "raw" })
      assert.deepStrictEqual(profiles.renact.formats, {
        plan: "react",
        update: "extract",
        judge: "word",
        answer: "cleaned"
      })
      assert.deepStrictEqual(profiles.deeprag.formats, {
        plan: "decompose",
        update: "rewrite",
        judge: "retrieve",
        answer: "cleaned"
      })
      for (const name of Profile.literals.filter((p) => p !== "paper" && p !== "renact" && p !== "deeprag")) {
        assert.deepStrictEqual(profiles[name].formats, structuredFormats, name)
      }
    }))

  it.effect("prompt layout: paper keeps the reference's role-first order, every other profile the shared prefix", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Profile.literals.filter((p) => profiles[p].promptLayout === "role-first"), ["paper"])
      assert.isTrue(Profile.literals.every((p) => p === "paper" || profiles[p].promptLayout === "shared-prefix"))
    }))

  it.effect("only no-retrieval opens no collection; only the note loops have a stop policy", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Profile.literals.filter((p) => !profiles[p].retrieves), ["no-retrieval"])
      assert.deepStrictEqual(Profile.literals.filter((p) => profiles[p].stop !== undefined), [
        "deepnote",
        "paper",
        "adaptive-note",
        "renact",
        "deeprag"
      ])
    }))
})
