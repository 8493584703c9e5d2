import { ValidationError } from "@deepnote-rag/api"
import { checkCorpusFile } from "@deepnote-rag/retrieval"
import { Effect } from "effect"

/**
 * Refuses an upload that is not UTF-8 text with one message, before it is stored: the corpus check of the retrieval
 * package (no NUL byte and valid UTF-8 in the first 64 KiB, as `deepnote index` checks corpus files). Later lines
 * that are not UTF-8 are reported as bad records by the ingest job.
 */
export const refuseBinary = (field: string) => (file: string) =>
  checkCorpusFile(file, "text").pipe(
    Effect.asVoid,
    Effect.catchTags({
      InvalidCorpusFile: (e) =>
        e.problem === "binary"
          ? ValidationError.of(
            `the upload is not UTF-8 text (${e.detail ?? "NUL bytes / invalid UTF-8"}); send JSON Lines or a JSON ` +
              "array encoded as UTF-8",
            field
          )
          : Effect.die(e),
      CorpusFileNotFound: Effect.die
    })
  )
