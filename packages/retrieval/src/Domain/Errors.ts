import { Schema } from "effect"

/** A corpus file given to ingestion does not exist or cannot be read. */
export class CorpusFileNotFound extends Schema.TaggedError<CorpusFileNotFound>()("CorpusFileNotFound", {
  file: Schema.String
}) {
  override get message(): string {
    return `corpus file not found: ${this.file}`
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
    return `${this.file}:${this.line}: ${this.field === undefined ? "" : `${this.field}: `}${this.reason}`
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

/** The index file could not be opened, read or written. */
export class IndexError extends Schema.TaggedError<IndexError>()("IndexError", {
  file: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `index ${this.file}: ${this.reason}`
  }
}

export type IngestError = CorpusFileNotFound | InvalidRecord | InvalidCollectionName | IndexError
