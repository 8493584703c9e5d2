/** What the KV accounting needs to know of a sequence. */
export interface KvHolder {
  /** Tokens whose keys and values are in the cache (cached prefix, prefilled prompt, generated tokens). */
  computed: number
  /** Blocks held for them. */
  blocks: number
}

/**
 * The KV cache in blocks of `blockSize` tokens, as vLLM's block pool counts it: a running sequence holds
 * ⌈computed / blockSize⌉ blocks; a step that would need more than `capacity` must pre-empt someone first.
 * Blocks are not shared between sequences (the prefix cache is modelled apart, in `PrefixCache`).
 */
export class KvBlocks {
  used = 0

  constructor(readonly blockSize: number, readonly capacity: number) {}

  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize)
  }

  /** Whether `holder` can grow by `tokens` more. */
  canGrow(holder: KvHolder, tokens: number): boolean {
    return this.used - holder.blocks + this.blocksFor(holder.computed + tokens) <= this.capacity
  }

  grow(holder: KvHolder, tokens: number) {
    const blocks = this.blocksFor(holder.computed + tokens)
    this.used += blocks - holder.blocks
    holder.blocks = blocks
    holder.computed += tokens
  }

  /** Returns every block of `holder` (finished, cancelled or pre-empted: its computed tokens are lost). */
  free(holder: KvHolder) {
    this.used -= holder.blocks
    holder.blocks = 0
    holder.computed = 0
  }

  /** Share of blocks in use, 0–1 (`vllm:kv_cache_usage_perc`). */
  get usage(): number {
    return this.capacity === 0 ? 0 : Math.min(1, this.used / this.capacity)
  }
}
