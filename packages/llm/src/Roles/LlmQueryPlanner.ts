import { QueryPlanner, type QueryPlannerService } from "@deepnote-rag/core"
import { Effect, Either, Layer } from "effect"
import type { ChatMessage } from "../Domain/Chat.js"
import { LlmClient } from "../LlmClient.js"
import { decomposePrompt, parseFollowUp } from "../Prompts/DeepRagPrompts.js"
import { planPrompt } from "../Prompts/Prompts.js"
import { actPrompt, parseAction } from "../Prompts/RenactPrompts.js"
import { UsageLedger } from "../UsageLedger.js"
import { cleanReply, parseQueriesJson, parseQueryLines } from "./Parse.js"
import { countParseFailure, readReply, roleChat } from "./RoleCall.js"

/** The JSON schema the `deepnote` planner is held to: exactly `count` non-empty queries. */
const plannerSchema = (count: number) => ({
  type: "object",
  properties: { queries: { type: "array", items: { type: "string", minLength: 1 }, minItems: count, maxItems: count } },
  required: ["queries"],
  additionalProperties: false
})

/**
 * Query refinement through the LLM.
 * - `text` format (`paper`): free text; `raw` is the reply as produced (retrieved with verbatim, even when empty), `queries` its lines.
 * - `react` format (`renact`): a Thought and an Action; `search[q]` is the one query, `finish[…]` none (the loop
 *   ends); a reply without an Action is read as a search for its first line, an empty one as finish (parse failures).
 * - `decompose` format (`deeprag`): `Follow up: q` is the one query, "the final answer is" none (the loop ends); a
 *   reply with neither is read as its first line (a parse failure).
 * - `json` format: structured `{"queries": [...]}` with the count, read tolerantly (JSON, else one query per line).
 */
export const make: Effect.Effect<QueryPlannerService, never, LlmClient | UsageLedger> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ledger = yield* UsageLedger
  return {
    plan: (input) =>
      Effect.gen(function*() {
        const { context } = input
        // decompose and react plan one query: the reply read by its format's parser, else as a search for its first
        // line (counted as a parse failure, not fatal: a reply with no line at all reads as finish, and the loop's
        // first action then searches the question)
        const oneQuery = (
          messages: ReadonlyArray<ChatMessage>,
          parse: (reply: string) => { readonly queries: ReadonlyArray<string> } | undefined
        ) =>
          Effect.gen(function*() {
            const reply = yield* roleChat(client, "plan", context, messages)
            const parsed = parse(reply.content)
            if (parsed !== undefined) return { raw: reply.content, queries: parsed.queries }
            yield* countParseFailure(ledger, "plan")
            return { raw: reply.content, queries: parseQueryLines(reply.content).slice(0, 1) }
          })
        if (context.formats.plan === "decompose") {
          return yield* oneQuery(
            decomposePrompt(context.language, input.question, input.bestNote.text, input.queryLog),
            parseFollowUp
          )
        }
        if (context.formats.plan === "react") {
          return yield* oneQuery(
            actPrompt(context.language, input.question, input.bestNote.text, input.queryLog),
            parseAction
          )
        }
        const paper = context.formats.plan === "text"
        const messages = planPrompt(
          context.language,
          input.question,
          input.bestNote.text,
          input.queryLog,
          input.count,
          paper ? "text" : "json",
          context.config.profile
        )
        if (paper) {
          const reply = yield* roleChat(client, "plan", context, messages)
          // As in the reference, the raw text is used whatever it holds (an empty reply retrieves with the question alone).
          const raw = cleanReply(reply.content)
          if (raw.length === 0) yield* countParseFailure(ledger, "plan")
          return { raw, queries: parseQueryLines(raw) }
        }
        const plan = yield* readReply(
          client,
          ledger,
          "plan",
          context,
          messages,
          { _tag: "Json", name: "queries", schema: plannerSchema(input.count) },
          (content) => {
            const fromJson = parseQueriesJson(content)
            // A readable empty list is an answer ("nothing left to ask"): the loop stops with no-new-queries.
            if (fromJson !== undefined) {
              return Either.right({ raw: content, queries: fromJson.slice(0, input.count), json: true })
            }
            const queries = parseQueryLines(content).slice(0, input.count)
            return queries.length === 0
              ? Either.left("the planner returned no readable queries")
              : Either.right({ raw: content, queries, json: false })
          }
        )
        if (!plan.json) {
          yield* countParseFailure(ledger, "plan")
        }
        return { raw: plan.raw, queries: plan.queries }
      })
  }
})

/** The `QueryPlanner` over the `LlmClient` and `UsageLedger` in context, in the tag's spans (`QueryPlanner.make`). */
export const layer: Layer.Layer<QueryPlanner, never, LlmClient | UsageLedger> = Layer.effect(
  QueryPlanner,
  Effect.map(make, QueryPlanner.make)
)
