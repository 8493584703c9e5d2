import type { EmbedderService, EmbeddingError, EmbeddingModel } from "@deepnote-rag/core"
import type { Effect } from "effect"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import type { EmbedOptions, EmbedSummary, VectorInfo } from "../Domain/Embedding.js"
import type { CollectionNotFound, IndexError, IngestError, InvalidCollectionName, NoVectors } from "../Domain/Errors.js"
import type { CollectionSettings, IndexOptions, IngestSummary } from "../Domain/Ingest.js"
import type { FileProgress } from "../Index/FileProgress.js"
import type { ScoredDocument } from "../Index/FtsIndex.js"

/** What `Collections.info` reports about a collection file. */
export interface CollectionInfo {
  readonly name: string
  readonly file: string
  readonly documents: number
  readonly sizeBytes: number
  readonly settings: CollectionSettings
  /** Everything in the file's `meta` table (schema version, tokenizer, created/built times, …). */
  readonly meta: Readonly<Record<string, string>>
  readonly files: ReadonlyArray<FileProgress>
}

export interface SearchOptions {
  readonly limit: number
  /** BM25 weight of the title columns (default 5, RunConfig.titleWeight). */
  readonly titleWeight?: number
  /** BM25 weight of the text columns (default 1, RunConfig.textWeight). */
  readonly textWeight?: number
  /** Multiplier of the CJK bigram columns relative to the word columns (default 1). */
  readonly cjkWeight?: number
}

export type LookupError = InvalidCollectionName | CollectionNotFound | IndexError

/** Named BM25 collections under `<home>/collections/<name>.sqlite`: build, update, search, inspect, drop. */
export interface CollectionsService {
  /** Ingests corpus files (JSONL documents, IRCoT/HotpotQA/MuSiQue/2Wiki QA files, text, markdown); resumable. */
  readonly index: (
    name: string,
    files: ReadonlyArray<string>,
    options?: IndexOptions
  ) => Effect.Effect<IngestSummary, IngestError>
  /** Adds passages in one transaction (creating the collection if needed). */
  readonly add: (
    name: string,
    documents: ReadonlyArray<CorpusDocument>,
    options?: { readonly onDuplicate?: "skip" | "replace"; readonly settings?: Partial<CollectionSettings> }
  ) => Effect.Effect<{ readonly added: number; readonly skipped: number }, InvalidCollectionName | IndexError>
  /** Deletes passages by id; returns how many existed. */
  readonly remove: (name: string, ids: ReadonlyArray<string>) => Effect.Effect<number, LookupError>
  /** One BM25 query (free text, tokenised safely) → the best `limit` passages. */
  readonly search: (
    name: string,
    query: string,
    options: SearchOptions
  ) => Effect.Effect<ReadonlyArray<ScoredDocument>, LookupError>
  readonly get: (
    name: string,
    ids: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Omit<ScoredDocument, "score">>, LookupError>
  readonly info: (name: string) => Effect.Effect<CollectionInfo, LookupError>
  /**
   * The collection's content hash (`sha256:…` over every passage in id order): a run records it, and a worker on
   * another machine refuses a run whose collection differs from its own copy. Computed once and kept in the collection
   * file until a write adds, replaces or deletes passages.
   */
  readonly fingerprint: (name: string) => Effect.Effect<string, LookupError>
  /**
   * Embeds the passages that have no vector yet (all of them the first time), one committed batch per request of
   * `embedder.batchSize` texts, then saves the ANN file beside the collection. Resumable: an interrupted run keeps its
   * committed batches, and the next run sends only what is left. Needs a writable collection (it takes the lock).
   */
  readonly embed: (
    name: string,
    embedder: EmbedderService,
    options?: EmbedOptions
  ) => Effect.Effect<EmbedSummary, LookupError | EmbeddingError>
  /**
   * The `limit` passages nearest to a query vector of `model` (cosine similarity as the score), through the ANN
   * file; `NoVectors` when the collection was never embedded.
   */
  readonly nearest: (
    name: string,
    vector: Float32Array,
    model: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ScoredDocument>, LookupError | NoVectors>
  /** The embeddings model, vector count and passages still to embed (counts: reads the vectors table). */
  readonly vectorInfo: (name: string) => Effect.Effect<VectorInfo, LookupError>
  /** The model and length of the stored vectors (from `meta`, cheap); `NoVectors` when none is stored. */
  readonly embeddingModel: (name: string) => Effect.Effect<EmbeddingModel, LookupError | NoVectors>
  readonly list: Effect.Effect<ReadonlyArray<string>>
  /** Closes and deletes the collection file; false when there was none. */
  readonly drop: (name: string) => Effect.Effect<boolean, InvalidCollectionName | IndexError>
}
