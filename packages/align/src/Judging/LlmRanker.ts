import { RoleError, samplingFor } from "@deepnote-rag/core"
import {
  type ChatMessage,
  LlmClient,
  parseRankReply,
  type PromptCandidate,
  rankNotesPrompt,
  rankQueriesPrompt,
  rankStructured
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
  /** Asks the judge for the best and worst of `contents` (ids 0…n−1), in the prompt `prompt` builds from the group. */
  const rank = (
    context: RankNotesInput["context"],
    contents: ReadonlyArray<string>,
    prompt: (candidates: ReadonlyArray<PromptCandidate>) => ReadonlyArray<ChatMessage>
  ): Effect.Effect<Ranking, RoleError> => {
    const group = Array.from({ length: contents.length }, (_, i) => i)
    return client.chat({
      role: "judge",
      questionId: context.questionId,
      runId: context.runId,
      messages: prompt(contents.map((content, id) => ({ id, content }))),
      sampling: samplingFor(context.config, "judge"),
      structured: rankStructured(group)
    }).pipe(
      Effect.mapError((e) => new RoleError({ role: "judge", message: e.message, cause: e })),
      Effect.map((reply): Ranking => {
        const ranked = parseRankReply(reply.content, group)
        return ranked === undefined
          ? { _tag: "Unreadable", reply: reply.content.slice(0, 300) }
          : { _tag: "Ranked", ...ranked }
      })
    )
  }
  return {
    rankNotes: (input) =>
      rank(input.context, input.candidates, (candidates) =>
        rankNotesPrompt(
          input.context.language,
          input.question,
          input.passages.map((p) => ({ title: p.title, text: p.text })),
          candidates
        )).pipe(Effect.withSpan("Ranker.rankNotes")),
    rankQueries: (input) =>
      rank(
        input.context,
        input.rendered,
        (candidates) =>
          rankQueriesPrompt(input.context.language, input.question, input.note, input.queryLog, candidates)
      ).pipe(
        Effect.withSpan("Ranker.rankQueries")
      )
  }
})

export const layer = Layer.effect(Ranker, make)
