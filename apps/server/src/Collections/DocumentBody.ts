import { DocumentInput, MalformedBody, ValidationError } from "@deepnote/api"
import { type CorpusDocument, passageId } from "@deepnote/retrieval"
import type { HttpServerRequest } from "@effect/platform"
import { Effect, Either, ParseResult, Schema } from "effect"
import { validationFromIssues } from "../Http/ErrorResponses.js"

const decodeDocument = Schema.decodeUnknownEither(DocumentInput)

/** Splits a JSON Lines text into parsed values (blank lines skipped); a bad line is a 400 naming it. */
export const parseJsonLines = (text: string, what: string) =>
  Effect.gen(function*() {
    const values: Array<{ readonly line: number; readonly value: unknown }> = []
    const lines = text.split(/\r?\n/u)
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === "") continue
      const parsed = Either.try(() => JSON.parse(line) as unknown)
      if (Either.isLeft(parsed)) {
        return yield* MalformedBody.of(
          `line ${i + 1} is not valid JSON: ${String(parsed.left)}`,
          `${what}[${values.length}]`
        )
      }
      values.push({ line: i + 1, value: parsed.right })
    }
    return values
  })

/** True when the request says its body is JSON (not JSON Lines). */
export const isJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "application/json").toLowerCase().includes("application/json")

/**
 * A documents upload: a JSON array or JSON Lines. Every document is validated before anything is indexed, so a bad
 * one is a 400 naming `documents[i].field` and nothing is added.
 */
export const readDocuments = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const text = yield* Effect.orDie(request.text)
    const values = isJsonBody(request)
      ? yield* Either.try(() => JSON.parse(text) as unknown).pipe(
        Either.mapLeft((e) => MalformedBody.of(`the body is not valid JSON: ${String(e)}`)),
        Effect.flatMap((v) =>
          Array.isArray(v)
            ? Effect.succeed(v.map((value, i) => ({ line: i + 1, value })))
            : ValidationError.of("the body must be a JSON array of documents (or JSON Lines)", "documents")
        )
      )
      : yield* parseJsonLines(text, "documents")
    if (values.length === 0) return yield* ValidationError.of("no documents in the body", "documents")
    const documents: Array<CorpusDocument> = []
    for (const [index, { value }] of values.entries()) {
      const decoded = decodeDocument(value, { errors: "all" })
      if (Either.isLeft(decoded)) {
        return yield* validationFromIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.left), [
          "documents",
          index
        ])
      }
      const d = decoded.right
      const title = d.title ?? ""
      documents.push({ id: d.id ?? passageId(title, d.text), title, text: d.text, metadata: d.metadata })
    }
    return documents
  })
