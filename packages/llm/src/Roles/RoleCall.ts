import { type CallContext, type Passage, type Role, RoleError, samplingFor } from "@deepnote-rag/core"
import { Effect, Either } from "effect"
import type { ChatMessage, ChatResult, StructuredOutput } from "../Domain/Chat.js"
import type { LlmClientService } from "../LlmClient.js"
import type { PromptPassage } from "../Prompts/Sections.js"
import type { UsageLedgerService } from "../UsageLedger.js"

/**
 * A role's call: its sampling from RunConfig (`draw` > 0: the seed moved on by that much, see `readReply`), its tags,
 * and any client failure turned into a RoleError.
 */
export const roleChat = (
  client: LlmClientService,
  role: Role,
  context: CallContext,
  messages: ReadonlyArray<ChatMessage>,
  structured?: StructuredOutput,
  draw = 0
): Effect.Effect<ChatResult, RoleError> => {
  const sampling = samplingFor(context.config, role)
  return client.chat({
    role,
    questionId: context.questionId,
    runId: context.runId,
    messages,
    sampling: draw === 0 ? sampling : { ...sampling, seed: sampling.seed + draw },
    structured
  }).pipe(Effect.mapError((e) => new RoleError({ role, message: e.message, cause: e })))
}

/** How many more draws a role makes when it cannot read a reply, per execution of the question (see `readReply`). */
export const extraDraws = 2

/**
 * A role's call whose reply must be read: `read` gives the value, or says what is wrong with the reply. An unreadable
 * reply counts as a parse failure and is asked for again with the next seed, at most `extraDraws` times per execution
 * of the question (`CallContext.attempt`): a sampling model that wrote something unusable (or a server that sent
 * garbage) gets other draws, where one bad reply used to fail the question. A greedy model repeats itself, and the
 * question fails as before, quoting the last reply. The draws come in the same order on every execution (seed, seed+1,
 * …) and go through the LLM cache like any call, so a resumed question reads the same replies the same way; only when
 * every draw of the earlier executions was unreadable does a later one (`--retry-failed`) go on to new seeds.
 */
export const readReply = <A>(
  client: LlmClientService,
  ledger: UsageLedgerService,
  role: Role,
  context: CallContext,
  messages: ReadonlyArray<ChatMessage>,
  structured: StructuredOutput | undefined,
  read: (content: string) => Either.Either<A, string>
): Effect.Effect<A, RoleError> => {
  const lastDraw = extraDraws * Math.max(1, context.attempt ?? 1)
  const attempt = (draw: number): Effect.Effect<A, RoleError> =>
    Effect.flatMap(
      roleChat(client, role, context, messages, structured, draw),
      (reply) =>
        Either.match(read(reply.content), {
          onRight: Effect.succeed,
          onLeft: (what) =>
            draw < lastDraw
              ? Effect.zipRight(countParseFailure(ledger, role), attempt(draw + 1))
              : unreadable(ledger, role, draw === 0 ? what : `${what} (${draw + 1} draws)`, reply.content)
        })
    )
  return attempt(0)
}

/** Records a reply the role could not read, then fails with a message that quotes it. */
export const unreadable = (
  ledger: UsageLedgerService,
  role: Role,
  what: string,
  reply: string
): Effect.Effect<never, RoleError> =>
  ledger.parseFailure({ role }).pipe(
    Effect.zipRight(
      Effect.fail(
        new RoleError({ role, message: `${what}; the model replied: ${JSON.stringify(reply.slice(0, 300))}` })
      )
    )
  )

export const countParseFailure = (ledger: UsageLedgerService, role: Role) => ledger.parseFailure({ role })

export const toPromptPassages = (passages: ReadonlyArray<Passage>): Array<PromptPassage> =>
  passages.map((p) => ({ title: p.title, text: p.text }))
