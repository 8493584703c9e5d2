import { type CallContext, type Passage, type Role, RoleError, samplingFor } from "@deepnote-rag/core"
import { Effect } from "effect"
import type { ChatMessage, ChatResult, StructuredOutput } from "../Domain/Chat.js"
import type { LlmClientService } from "../LlmClient.js"
import type { PromptPassage } from "../Prompts/Sections.js"
import type { UsageLedgerService } from "../UsageLedger.js"

/** A role's call: its sampling from RunConfig, its tags, and any client failure turned into a RoleError. */
export const roleChat = (
  client: LlmClientService,
  role: Role,
  context: CallContext,
  messages: ReadonlyArray<ChatMessage>,
  structured?: StructuredOutput
): Effect.Effect<ChatResult, RoleError> =>
  client.chat({
    role,
    questionId: context.questionId,
    runId: context.runId,
    messages,
    sampling: samplingFor(context.config, role),
    structured
  }).pipe(Effect.mapError((e) => new RoleError({ role, message: e.message, cause: e })))

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
