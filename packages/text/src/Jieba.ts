import { Jieba } from "@node-rs/jieba"
import { dict } from "@node-rs/jieba/dict.js"

let instance: Jieba | undefined

/** The shared jieba segmenter with its default dictionary, loaded on first use (~0.1 s). */
const jieba = (): Jieba => (instance ??= Jieba.withDict(dict))

/** Precise segmentation, for queries. */
export const cut = (text: string): ReadonlyArray<string> => jieba().cut(text, true)

/** Search-mode segmentation (also emits sub-words such as 北京 and 大学 of 北京大学), for indexing. */
export const cutForSearch = (text: string): ReadonlyArray<string> => jieba().cutForSearch(text, true)
