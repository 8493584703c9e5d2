import { Either, type ParseResult, Schema } from "effect"
import { type CorpusDocument, normalizeWhitespace, passageId } from "../Domain/CorpusDocument.js"
import type { CorpusFormat } from "../Domain/Ingest.js"

const NonBlank = (field: string) => Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || `${field} is empty`))

/** `{id?, title?, text, ...metadata}`: a plain passage record. */
export const DocumentRecord = Schema.Struct(
  {
    id: Schema.optional(
      Schema.Union(Schema.String.pipe(Schema.minLength(1, { message: () => "id is empty" })), Schema.Number)
    ),
    title: Schema.optional(Schema.NullOr(Schema.String)),
    text: NonBlank("text")
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

/** IRCoT-processed QA record: the corpus is `contexts[]`. */
export const IrcotRecord = Schema.Struct({
  question_id: Schema.String,
  contexts: Schema.Array(Schema.Struct({ title: Schema.String, paragraph_text: NonBlank("paragraph_text") }))
})

/** Official HotpotQA and 2WikiMultihopQA record: `context[[title, [sentences]]]`. */
export const HotpotRecord = Schema.Struct({
  _id: Schema.String,
  context: Schema.Array(Schema.Tuple(Schema.String, Schema.Array(Schema.String)))
})

/** Official MuSiQue record: `paragraphs[]`. */
export const MusiqueRecord = Schema.Struct({
  id: Schema.String,
  paragraphs: Schema.Array(Schema.Struct({ title: Schema.String, paragraph_text: NonBlank("paragraph_text") }))
})

const paragraph = (title: string, text: string): CorpusDocument => {
  const clean = normalizeWhitespace(text)
  return { id: passageId(title, clean), title, text: clean }
}

export type JsonFormat = Exclude<CorpusFormat, "text" | "markdown">

/** Decodes one parsed JSON record into the passages it holds. */
export type RecordDecoder = (input: unknown) => Either.Either<ReadonlyArray<CorpusDocument>, ParseResult.ParseError>

const decoder = <A, I>(
  schema: Schema.Schema<A, I>,
  documents: (record: A) => ReadonlyArray<CorpusDocument>
): RecordDecoder => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: "ignore" })
  return (input) => Either.map(decode(input), documents)
}

/** How each JSON-lines format decodes one record into passages. */
export const jsonFormats: { readonly [F in JsonFormat]: RecordDecoder } = {
  documents: decoder(DocumentRecord, ({ id, text, title, ...metadata }) => [{
    id: id === undefined ? passageId(title ?? "", text) : String(id),
    title: title ?? "",
    text,
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined
  }]),
  ircot: decoder(IrcotRecord, (r) => r.contexts.map((c) => paragraph(c.title, c.paragraph_text))),
  hotpotqa: decoder(HotpotRecord, (r) => {
    // HotpotQA sentences carry their leading space (" In 2001, …"); 2WikiMultihopQA sentences do not.
    const separator = r.context.some(([, sentences]) => sentences.slice(1).some((s) => /^\s/u.test(s))) ? "" : " "
    return r.context
      .filter(([, sentences]) => sentences.join("").trim().length > 0)
      .map(([title, sentences]) => paragraph(title, sentences.join(separator)))
  }),
  musique: decoder(MusiqueRecord, (r) => r.paragraphs.map((p) => paragraph(p.title, p.paragraph_text)))
}

/** The JSON-lines format a record looks like, from its distinguishing field. */
export const detectJsonFormat = (record: unknown): JsonFormat => {
  if (typeof record !== "object" || record === null) return "documents"
  if ("contexts" in record) return "ircot"
  if ("paragraphs" in record) return "musique"
  if ("context" in record && Array.isArray(record.context)) return "hotpotqa"
  return "documents"
}
