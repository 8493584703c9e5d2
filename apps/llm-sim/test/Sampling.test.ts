import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { start } from "../src/index.js"
import { chatBody, chatContent, post } from "./Http.js"
import { rolePrompts, systems } from "./Prompts.js"

type Role = keyof typeof rolePrompts
const seeds = Array.from({ length: 10 }, (_, i) => i + 1)

describe("sampling: temperature and seed", () => {
  it.scopedLive("temperature 0 is exact; the same seed repeats; seeds at 0.9 give several well-formed replies", () =>
    Effect.gen(function*() {
      const sim = yield* start({ stepBaseMs: 0.5, tokensPerStep: 16 })
      const reply = (role: Role, sampling: Record<string, unknown>) =>
        Effect.map(
          post(`${sim.url}/v1/chat/completions`, chatBody(systems[role], rolePrompts[role], sampling), {
            "x-deepnote-role": role
          }),
          chatContent
        )
      const over = (role: Role, sampling: (seed: number) => Record<string, unknown>) =>
        Effect.forEach(seeds, (seed) => reply(role, sampling(seed)), { concurrency: 10 })

      for (const role of ["init", "update", "plan", "judge", "answer"] as const) {
        const exact = yield* reply(role, {})
        assert.deepStrictEqual(yield* over(role, (seed) => ({ temperature: 0, seed })), seeds.map(() => exact), role)
        const sampled = yield* over(role, (seed) => ({ temperature: 0.9, seed }))
        assert.deepStrictEqual(yield* over(role, (seed) => ({ temperature: 0.9, seed })), sampled, `${role} repeats`)
        const distinct = new Set(sampled)
        switch (role) {
          case "init":
          case "update":
            assert.isAtLeast(distinct.size, 3, role)
            // a sampled note is still verbatim sentences of the passages (or the note)
            for (const note of distinct) {
              for (const line of note.split("\n")) assert.include(rolePrompts[role], line.replace(/^[^:]+: /, ""))
            }
            break
          case "plan":
            assert.isAtLeast(distinct.size, 2, role)
            for (const text of distinct) {
              Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ queries: Schema.Array(Schema.String) })))(text)
            }
            break
          case "judge":
            assert.strictEqual(exact, `{"status": "True"}`)
            assert.deepStrictEqual(
              [...distinct].sort(),
              [`{"status": "False"}`, `{"status": "True"}`],
              "a close call flips"
            )
            break
          case "answer":
            assert.isAtLeast(distinct.size, 2, role)
            assert.include([...distinct], exact)
        }
      }
    }))

  it.scopedLive("flips grow with temperature; unseeded replies vary per request; --default-temperature applies", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "extractive", stepBaseMs: 0.5, tokensPerStep: 16 })
      const init = (sampling: Record<string, unknown>) =>
        Effect.map(
          post(`${sim.url}/v1/chat/completions`, chatBody(systems.init, rolePrompts.init, sampling), {
            "x-deepnote-role": "init"
          }),
          chatContent
        )
      const judge = (temperature: number) =>
        Effect.forEach(
          Array.from({ length: 20 }, (_, seed) => seed),
          (seed) =>
            Effect.map(
              post(
                `${sim.url}/v1/chat/completions`,
                chatBody(systems.judge, rolePrompts.judge, { temperature, seed }),
                { "x-deepnote-role": "judge" }
              ),
              chatContent
            ),
          { concurrency: 10 }
        ).pipe(Effect.map((verdicts) => verdicts.filter((v) => v.includes("False")).length))
      assert.isBelow(yield* judge(0.1), yield* judge(1.5), "flips grow with temperature")
      const unseeded = yield* Effect.forEach(seeds, () => init({ temperature: 1 }), { concurrency: 10 })
      assert.isAtLeast(new Set(unseeded).size, 3)
      const defaulted = yield* start({ stepBaseMs: 0.5, tokensPerStep: 16, defaultTemperature: 1 })
      const viaDefault = yield* Effect.forEach(seeds, (seed) =>
        Effect.map(
          post(`${defaulted.url}/v1/chat/completions`, chatBody(systems.init, rolePrompts.init, { seed }), {
            "x-deepnote-role": "init"
          }),
          chatContent
        ), { concurrency: 10 })
      assert.isAtLeast(new Set(viaDefault).size, 3, "--default-temperature applies to requests that send none")
    }))
})
