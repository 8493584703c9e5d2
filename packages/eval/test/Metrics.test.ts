import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  bootstrapMeanCi,
  cmrcEm,
  cmrcF1,
  hotpotF1,
  mixedSegments,
  normalizeAnswer,
  scoreItem,
  squadEm,
  squadF1,
  strategyQaAccuracy,
  strEm,
  strHit,
  substringAccuracy
} from "../src/index.js"

const close = (actual: number, expected: number) => assert.approximately(actual, expected, 1e-9)
const check = (name: string, body: () => void) => it.effect(name, () => Effect.sync(body))

describe("SQuAD EM / F1", () => {
  check("normalises case, punctuation, articles and spaces", () => {
    assert.strictEqual(normalizeAnswer("The Eiffel Tower!"), "eiffel tower")
    assert.strictEqual(squadEm("The Eiffel Tower!", ["eiffel tower"]), 1)
    assert.strictEqual(squadF1("The Eiffel Tower!", ["eiffel tower"]), 1)
    assert.strictEqual(squadEm("An  apple", ["apple"]), 1)
    assert.strictEqual(normalizeAnswer("theatre of the absurd"), "theatre of absurd")
  })

  check("Unicode quotes and dashes are punctuation in the default set, not in squad-ascii", () => {
    assert.strictEqual(squadEm("“Paris”", ["Paris"]), 1)
    assert.strictEqual(squadEm("“Paris”", ["Paris"], "ascii"), 0)
    assert.strictEqual(squadF1("“Paris”", ["Paris"], "ascii"), 0)
    assert.strictEqual(squadEm("1990—1995", ["1990–1995"]), 1)
    assert.strictEqual(squadEm("1990—1995", ["1990–1995"], "ascii"), 0)
    assert.strictEqual(normalizeAnswer("l’Académie « française »"), "lacadémie française")
  })

  check("token F1 on hand-worked examples, max over aliases", () => {
    close(squadF1("Barack Obama was president", ["Obama"]), 0.4)
    close(squadF1("Francis Baring", ["Sir Francis Baring", "Francis Baring, 1st Baronet"]), 0.8)
    assert.strictEqual(squadF1("", ["x"]), 0)
    assert.strictEqual(squadEm("anything", []), 0)
  })
})

describe("paper Acc and HotpotQA", () => {
  check("Acc is a case-insensitive substring test on the raw prediction", () => {
    assert.strictEqual(substringAccuracy("It is the Eiffel Tower.", ["eiffel tower"]), 1)
    assert.strictEqual(substringAccuracy("Eiffel-Tower", ["eiffel tower"]), 0)
    assert.strictEqual(substringAccuracy("“Paris”", ["paris"]), 1)
  })

  check("official HotpotQA F1 zeroes yes/no/noanswer mismatches", () => {
    assert.strictEqual(hotpotF1("no", ["yes"]), 0)
    assert.strictEqual(hotpotF1("yes it is", ["yes"]), 0)
    close(squadF1("yes it is", ["yes"]), 0.5)
    assert.strictEqual(hotpotF1("Yes.", ["yes"]), 1)
    close(hotpotF1("Barack Obama was president", ["Obama"]), 0.4)
  })

  check("StrategyQA matches yes/no as whole words, regex-escaped", () => {
    assert.strictEqual(strategyQaAccuracy("Yes, because it floats.", ["yes"]), 1)
    assert.strictEqual(strategyQaAccuracy("Yesterday it rained", ["yes"]), 0)
    assert.strictEqual(strategyQaAccuracy("No.", ["yes"]), 0)
    assert.strictEqual(strategyQaAccuracy("axb", ["a.b"]), 0)
    assert.strictEqual(strategyQaAccuracy("so a.b it is", ["a.b"]), 1)
  })

  check("ASQA STR-EM and STR-Hit", () => {
    const pairs = [{ short_answers: ["1990"] }, { short_answers: ["Paris", "City of Light"] }, {
      short_answers: ["Obama"]
    }]
    close(strEm("In 1990 the City-of-Light …", pairs), 1 / 3)
    close(strEm("In 1990 the city of light shone.", pairs), 2 / 3)
    assert.strictEqual(strHit("In 1990 the city of light shone.", pairs), 0)
    assert.strictEqual(strHit("1990, Paris and Obama.", pairs), 1)
  })
})

describe("Chinese (CMRC 2018)", () => {
  check("北京大学 vs 北京", () => {
    assert.strictEqual(squadEm("北京", ["北京大学"]), 0)
    assert.strictEqual(squadF1("北京", ["北京大学"]), 0)
    assert.strictEqual(cmrcEm("北京", ["北京大学"]), 0)
    close(cmrcF1("北京", ["北京大学"]), 2 / 3)
    close(cmrcF1("北京大学", ["北京"]), 2 / 3)
    assert.strictEqual(substringAccuracy("北京", ["北京大学"]), 0)
    assert.strictEqual(substringAccuracy("北京大学", ["北京"]), 1)
  })

  check("segments keep Latin words whole and drop punctuation", () => {
    assert.deepStrictEqual(mixedSegments("光荣和ω-force开发。"), ["光", "荣", "和", "ωforce", "开", "发"])
    close(cmrcF1("光荣和ω-force开发", ["光荣和ω-force"]), 0.8)
    assert.strictEqual(cmrcEm("光荣和ω-force。", ["光荣和ω-force"]), 1)
    // the official script keeps inner spaces in EM
    assert.strictEqual(cmrcEm("光荣 和 ω-force。", ["光荣和ω-force"]), 0)
    assert.strictEqual(cmrcEm("“北京”", ["北京"]), 1)
  })

  check("F1 uses the longest common contiguous run, as the official script", () => {
    close(cmrcF1("甲丙乙丁", ["甲乙丙丁"]), 0.25)
    close(cmrcF1("村雨城", ["任天堂游戏谜之村雨城", "村雨城"]), 1)
  })

  check("em and f1 pick the variant by language", () => {
    const zh = scoreItem({ prediction: "北京", golds: ["北京大学"], language: "zh" }, ["em", "f1", "acc"])
    assert.strictEqual(zh.em, 0)
    close(zh.f1 ?? -1, 2 / 3)
    const en = scoreItem({ prediction: "The Eiffel Tower!", golds: ["eiffel tower"], language: "en" }, ["em", "f1"])
    assert.deepStrictEqual(en, { em: 1, f1: 1 })
    assert.deepStrictEqual(scoreItem({ prediction: "x", golds: [], language: "en" }, ["em", "str-em"]), {})
  })
})

describe("bootstrap confidence intervals", () => {
  const scores: Array<number> = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 13 < 6 ? 1 : 0))
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length

  check("are deterministic for a seed and contain the mean", () => {
    const a = bootstrapMeanCi(scores)
    const b = bootstrapMeanCi(scores)
    assert.deepStrictEqual(a, b)
    assert.isDefined(a)
    assert.isTrue(a!.low <= mean && mean <= a!.high)
    assert.isTrue(a!.high - a!.low > 0.05 && a!.high - a!.low < 0.2)
    assert.notDeepEqual(bootstrapMeanCi(scores, { seed: 7 }), a)
    assert.deepStrictEqual(bootstrapMeanCi(scores, { seed: 7 }), bootstrapMeanCi(scores, { seed: 7 }))
  })

  check("degenerate inputs", () => {
    assert.isUndefined(bootstrapMeanCi([1]))
    const ones = bootstrapMeanCi([1, 1, 1, 1])
    assert.deepStrictEqual([ones?.low, ones?.high], [1, 1])
  })
})
