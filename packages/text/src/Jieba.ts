import type { Jieba } from "@node-rs/jieba"
import { createRequire } from "node:module"

// Loaded on first use, not on import: `@node-rs/jieba/dict.js` reads its dictionaries (8 MB) when it is loaded, and the
// addon with it, which every `deepnote` command paid at start (~50 ms) though only Chinese text needs them.
const require = createRequire(import.meta.url)

let instance: Jieba | undefined

/** The shared jieba segmenter with its default dictionary, loaded on first use (~0.1 s). */
const jieba = (): Jieba => {
  if (instance === undefined) {
    const addon = require("@node-rs/jieba") as typeof import("@node-rs/jieba")
    const { dict } = require("@node-rs/jieba/dict.js") as typeof import("@node-rs/jieba/dict.js")
    instance = addon.Jieba.withDict(dict)
  }
  return instance
}

/** Precise segmentation, for queries. */
export const cut = (text: string): ReadonlyArray<string> => jieba().cut(text, true)

/** Search-mode segmentation (also emits sub-words such as 北京 and 大学 of 北京大学), for indexing. */
export const cutForSearch = (text: string): ReadonlyArray<string> => jieba().cutForSearch(text, true)
