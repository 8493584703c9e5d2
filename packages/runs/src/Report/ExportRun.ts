import { AlignItemResult, PipelineResult } from "@deepnote-rag/core"
import { RunStore } from "@deepnote-rag/store"
import { Effect, Schema, Stream } from "effect"
import { engineOf } from "./EngineFacts.js"
import { reportPageSize } from "./ReportPageSize.js"

/**
 * A run's items as JSON lines: question, gold answers, status, answer, best note and the full trace (an align run's
 * items: their pairs and drops per role), and the models and servers its manifest records (`engine`). A stream read a
 * page at a time: the caller writes it with back-pressure, so memory stays flat whatever the run's size.
 */
export const exportRun = (runId: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const run = yield* store.getRun(runId)
    const engine = engineOf(run.manifest)
    const encode = Schema.encodeSync(PipelineResult)
    const encodeAlign = Schema.encodeSync(AlignItemResult)
    return store.results(runId, { statuses: ["done", "failed", "pending", "running"], limit: reportPageSize }).pipe(
      Stream.map((record) =>
        JSON.stringify({
          runId,
          itemId: record.itemId,
          question: record.question.text,
          gold: record.question.answers ?? [],
          status: record.status,
          answer: record.result?.answer.text,
          ...(record.result === undefined ? {} : { result: encode(record.result) }),
          // an align run's question: its outcome per role (pair or drop reason)
          ...(record.align === undefined ? {} : { align: encodeAlign(record.align) }),
          ...(record.error === undefined ? {} : { error: record.error }),
          ...(engine === undefined ? {} : { engine })
        })
      )
    )
  })
