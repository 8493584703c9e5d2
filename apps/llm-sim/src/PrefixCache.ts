import { splitTokens } from "@deepnote-rag/llm"

/**
 * Automatic prefix caching in the manner of vLLM: a prompt's tokens are cut into blocks of `blockSize`; each full
 * block is identified by a hash chained from the block before it, so a block hits only when the whole prefix up to it
 * matches. Blocks live in an LRU of `capacityBlocks` (the KV cache's size in blocks). A hit saves its block's prefill.
 */
export class PrefixCache {
  private readonly blocks = new Map<string, true>()

  constructor(readonly blockSize: number, readonly capacityBlocks: number) {}

  /**
   * How many leading tokens of `promptTokens` this prompt finds cached (whole blocks, never the whole prompt: the last
   * token is always computed, as in vLLM); then caches every full block of the prompt.
   */
  admit(promptText: string, promptTokens: number): number {
    const pieces = splitTokens(promptText)
    let parent = ""
    let cached = 0
    let missed = false
    for (let start = 0; start + this.blockSize <= pieces.length; start += this.blockSize) {
      const hash = blockHash(parent, pieces.slice(start, start + this.blockSize).join(""))
      if (!missed && this.blocks.has(hash)) cached += this.blockSize
      else missed = true
      this.touch(hash)
      parent = hash
    }
    return Math.min(cached, Math.max(0, promptTokens - 1))
  }

  private touch(hash: string) {
    this.blocks.delete(hash)
    this.blocks.set(hash, true)
    if (this.blocks.size > this.capacityBlocks) {
      const oldest = this.blocks.keys().next()
      if (oldest.done !== true) this.blocks.delete(oldest.value)
    }
  }
}

/** FNV-1a over the parent's hash and the block's text (64 bits as two 32-bit halves, as hex). */
const blockHash = (parent: string, text: string): string => {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  const input = `${parent}\u0000${text}`
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995)
  }
  return (h1 >>> 0).toString(16) + (h2 >>> 0).toString(16)
}
