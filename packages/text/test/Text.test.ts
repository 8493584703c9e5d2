import { cjkBigrams, detectLanguage, splitSentences, tokenize } from "@deepnote-rag/text"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("text", () => {
  it.effect("tokenises English: lower case, stop words dropped, possessives removed, NFKC", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(tokenize("The Director's first FILM, Ｊａｗｓ (1975)!"), [
        "director",
        "first",
        "film",
        "jaws",
        "1975"
      ])
      assert.deepStrictEqual(tokenize("The film", { keepStopWords: true }), ["the", "film"])
    }))

  it.effect("segments Chinese with jieba, search mode adds sub-words, mixed scripts split", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(tokenize("我们在北京大学学习"), ["我们", "北京大学", "学习"])
      assert.includeMembers(tokenize("北京大学", { search: true }), ["北京", "大学", "北京大学"])
      assert.deepStrictEqual(tokenize("DeepNote笔记"), ["deepnote", "笔记"])
    }))

  it.effect("the Latin fast path gives the same tokens as the general path", () =>
    Effect.sync(() => {
      const english = "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress's idol."
      assert.deepStrictEqual(tokenize(english), tokenize(`${english} 大桥`).slice(0, -1))
    }))

  it.effect("CJK bigrams, language detection and sentence splitting", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(cjkBigrams("长江大桥 a 中"), ["长江", "江大", "大桥", "中"])
      assert.strictEqual(detectLanguage("《战国无双3》是由哪两个公司合作开发的？"), "zh")
      assert.strictEqual(detectLanguage("Who wrote Hamlet?"), "en")
      assert.deepStrictEqual(splitSentences("Dr. Smith met J. R. R. Tolkien. He left! 他来了。你呢？"), [
        "Dr. Smith met J. R. R. Tolkien.",
        "He left!",
        "他来了。",
        "你呢？"
      ])
    }))
})
