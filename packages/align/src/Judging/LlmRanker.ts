import { RoleError, samplingFor } from "@deepnote-rag/core"
import {
  type ChatMessage,
  LlmClient,
  parseRankReply,
  rankNotesPrompt,
  rankQueriesPrompt,
  rankStructured,
  type StructuredOutput
} from "@deepnote-rag/llm"
import { Effect, Layer } from "effect"
import { Ranker, type RankerService, type Ranking, type RankNotesInput } from "./Ranker.js"

/**
 * The group judge through the LLM (the paper: GPT-4o-mini), with the judge role's sampling and model (`--judge-model`
 * sets it): the group as `[{"_id", "content"}]`, the reply constrained to two of its ids where the server supports
 * structured outputs, and decoded with its schema either way. A reply that names no two candidates gives no pair.
 */
export const make: Effect.Effect<RankerService, never, LlmClient> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ask = (
    context: RankNotesInput["context"],
    messages: ReadonlyArray<ChatMessage>,
    ids: ReadonlyArray<number>,
    structured: StructuredOutput
  ): Effect.Effect<Ranking, RoleError> =>
    client.chat({
      role: "judge",
      questionId: context.questionId,
      runId: context.runId,
      messages,
      sampling: samplingFor(context.config, "judge"),
      structured
    }).pipe(
      Effect.mapError((e) => new RoleError({ role: "judge", message: e.message, cause: e })),
      Effect.map((reply): Ranking => {
        const ranked = parseRankReply(reply.content, ids)
        return ranked === undefined
          ? { _tag: "Unreadable", reply: reply.content.slice(0, 300) }
          : { _tag: "Ranked", ...ranked }
      })
    )
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i)
  return {
    rankNotes: (input) => {
      const group = ids(input.candidates.length)
      return ask(
        input.context,
        rankNotesPrompt(
          input.context.language,
          input.question,
          input.passages.map((p) => ({ title: p.title, text: p.text })),
          input.candidates.map((content, id) => ({ id, content }))
        ),
        group,
        rankStructured(group)
      ).pipe(Effect.withSpan("Ranker.rankNotes"))
    },
    rankQueries: (input) => {
      const group = ids(input.rendered.length)
      return ask(
        input.context,
        rankQueriesPrompt(
          input.context.language,
          input.question,
          input.note,
          input.queryLog,
          input.rendered.map((content, id) => ({ id, content }))
        ),
        group,
        rankStructured(group)
      ).pipe(Effect.withSpan("Ranker.rankQueries"))
    }
  }
})

export const layer = Layer.effect(Ranker, make)
