import type { Effect } from "effect"

/** Progress of embedding a collection, reported after every committed batch. */
export interface EmbedProgress {
  readonly collection: string
  /** Passages embedded by this run so far, and those that were still to embed when it started. */
  readonly embedded: number
  readonly pending: number
}

export interface EmbedOptions {
  /** Drop every stored vector first (another embeddings model, or other dimensions). */
  readonly reset?: boolean
  /**
   * Requests in flight at once (default 1); each batch is committed as soon as its vectors arrive, so an interrupted
   * run loses at most this many batches' requests, never a committed batch.
   */
  readonly parallel?: number
  /** Called after every committed batch; interrupting the effect stops after the last committed one. */
  readonly onProgress?: (progress: EmbedProgress) => Effect.Effect<void>
}

/** What `Collections.embed` did. */
export interface EmbedSummary {
  readonly collection: string
  readonly model: string
  readonly dimensions: number
  /** Passages embedded by this run; passages that already had a vector are not sent again. */
  readonly embedded: number
  /** Passages with a vector now, of `documents`. */
  readonly vectors: number
  readonly documents: number
  /** Requests sent to the embeddings server. */
  readonly batches: number
  /** The ANN file was rebuilt from the stored vectors (it was missing or older than them). */
  readonly rebuilt: boolean
  readonly annFile: string
  readonly ms: number
}

/** A collection's dense-retrieval state (`Collections.vectorInfo`). */
export interface VectorInfo {
  /** The model and vector length of the stored vectors; undefined before the first embedded batch. */
  readonly model: string | undefined
  readonly dimensions: number | undefined
  readonly vectors: number
  /** Passages without a vector (added after the last `embed`, or an interrupted one). */
  readonly pending: number
  readonly annFile: string
}
