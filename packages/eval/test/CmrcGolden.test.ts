import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { cmrcEm, cmrcF1 } from "../src/index.js"
import { wordTokenize } from "../src/Metrics/WordTokenize.js"

interface Golden {
  readonly prediction: string
  readonly answers: ReadonlyArray<string>
  readonly em: number
  readonly f1: number
}

/** Made by fixtures/cmrc-golden.py: the official CMRC 2018 functions with NLTK's tokenizer (see its header). */
const golden: ReadonlyArray<Golden> = JSON.parse(
  Fs.readFileSync(fileURLToPath(new URL("fixtures/cmrc-golden.json", import.meta.url)), "utf8")
)

describe("CMRC 2018 EM and F1 match the official script", () => {
  it("on every golden case (hand cases and every dev answer holding an ASCII '.' or ',')", () => {
    assert.isAbove(golden.length, 100)
    for (const g of golden) {
      const label = `${JSON.stringify(g.prediction)} vs ${JSON.stringify(g.answers)}`
      assert.strictEqual(cmrcEm(g.prediction, g.answers), g.em, `EM ${label}`)
      assert.closeTo(cmrcF1(g.prediction, g.answers), g.f1, 1e-12, `F1 ${label}`)
    }
  })

  it("1.5万 is not 15万: EM 0, F1 0.5", () => {
    assert.strictEqual(cmrcEm("1.5万", ["15万"]), 0)
    assert.closeTo(cmrcF1("1.5万", ["15万"]), 0.5, 1e-12)
  })

  it("the word tokenizer splits as NLTK's does", () => {
    assert.deepStrictEqual(wordTokenize("Good muffins cost $3.88 (roughly 3,36 euros) in New York."), [
      "Good",
      "muffins",
      "cost",
      "$",
      "3.88",
      "(",
      "roughly",
      "3,36",
      "euros",
      ")",
      "in",
      "New",
      "York",
      "."
    ])
    assert.deepStrictEqual(wordTokenize("don't, 50%"), ["do", "n't", ",", "50", "%"])
  })
})
