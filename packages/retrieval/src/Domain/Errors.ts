import { Schema } from "effect"
import { printable } from "./Printable.js"

/** A corpus file given to ingestion does not exist. */
export class CorpusFileNotFound extends Schema.TaggedError<CorpusFileNotFound>()("CorpusFileNotFound", {
  file: Schema.String
}) {
  override get message(): string {
    return `corpus file not found: ${printable(this.file)}`
  }
}

/**
 * A corpus path that exists but cannot be ingested: a directory or another non-regular file, a file that looks
 * binary (NUL bytes or invalid UTF-8), or one that cannot be read (e.g. permissions).
 */
export class InvalidCorpusFile extends Schema.TaggedError<InvalidCorpusFile>()("InvalidCorpusFile", {
  file: Schema.String,
  problem: Schema.Literal("directory", "not-regular", "binary", "unreadable"),
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const file = printable(this.file)
    const detail = this.detail === undefined ? "" : printable(this.detail)
    switch (this.problem) {
      case "directory":
        return `not a file: ${file} is a directory`
      case "not-regular":
        return `not a file: ${file} is not a regular file`
      case "binary":
        return `corpus file ${file} looks binary (NUL bytes / invalid UTF-8${detail === "" ? "" : `: ${detail}`}); ` +
          "only UTF-8 text can be indexed"
      case "unreadable":
        return `cannot read corpus file ${file}${detail === "" ? "" : ` (${detail})`}`
    }
  }
}

/** A corpus record failed validation (strict mode), named by file, line and field. */
export class InvalidRecord extends Schema.TaggedError<InvalidRecord>()("InvalidRecord", {
  file: Schema.String,
  line: Schema.Number,
  field: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    const field = this.field === undefined ? "" : `${printable(this.field)}: `
    return `${printable(this.file)}:${this.line}: ${field}${printable(this.reason)}`
  }
}

/** A collection name is not a safe file name. */
export class InvalidCollectionName extends Schema.TaggedError<InvalidCollectionName>()("InvalidCollectionName", {
  name: Schema.String
}) {
  override get message(): string {
    return `invalid collection name "${this.name}": use letters, digits, '.', '_' or '-' (max 128, not starting with '.')`
  }
}

/** No index file exists for a collection. */
export class CollectionNotFound extends Schema.TaggedError<CollectionNotFound>()("CollectionNotFound", {
  name: Schema.String,
  file: Schema.String
}) {
  override get message(): string {
    return `collection "${this.name}" not found (${this.file}); build it with \`deepnote index <files…> --collection ${this.name}\``
  }
}

/** Dense retrieval was asked of a collection that has no vectors. */
export class NoVectors extends Schema.TaggedError<NoVectors>()("NoVectors", { name: Schema.String }) {
  override get message(): string {
    return `collection "${this.name}" has no vectors: embed it with \`deepnote embed ${this.name}\` (or ` +
      "`deepnote index … --embed`) against an embeddings server (DEEPNOTE_EMBEDDINGS_URL)"
  }
}

/**
 * The index file could not be opened, read or written: SQLite failures, a file that is not a collection (another
 * SQLite database, not SQLite at all, written by a newer DeepNote) or a corrupted one. The reason is one line.
 */
export class IndexError extends Schema.TaggedError<IndexError>()("IndexError", {
  file: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `index ${printable(this.file)}: ${printable(this.reason)}`
  }
}

export type IngestError = CorpusFileNotFound | InvalidCorpusFile | InvalidRecord | InvalidCollectionName | IndexError
