import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { canonicalJson, stableHash } from "../src/index.js"

describe("stableHash", () => {
  it.effect("ignores key order and undefined fields", () =>
    Effect.sync(() => {
      assert.strictEqual(stableHash({ a: 1, b: [1, { c: 2, d: undefined }] }), stableHash({ b: [1, { c: 2 }], a: 1 }))
      assert.notStrictEqual(stableHash({ a: 1 }), stableHash({ a: 2 }))
      assert.strictEqual(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }), `{"a":[{"c":2,"d":1}],"b":1}`)
    }))
})
