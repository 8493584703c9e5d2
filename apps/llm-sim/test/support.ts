import { defaultRunConfig, type Role, samplingFor } from "@deepnote-rag/core"
import {
  type ChatMessage,
  httpClientLayer,
  LlmCache,
  LlmClient,
  LlmSettings,
  type LlmSettingsInput,
  UsageLedger
} from "@deepnote-rag/llm"
import { Context, Effect, Layer } from "effect"

/** The client stack (LlmClient + UsageLedger) over a pooled undici client, built for the test's scope. */
export const clientStack = (
  settings: LlmSettingsInput,
  cache: Layer.Layer<LlmCache> = LlmCache.layer({ file: undefined })
) =>
  LlmClient.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, cache, httpClientLayer({ connections: 64 }))),
    Layer.provideMerge(LlmSettings.layer(settings))
  )

export const buildClient = (settings: LlmSettingsInput, cache?: Layer.Layer<LlmCache>) =>
  Effect.map(Layer.build(clientStack(settings, cache)), (ctx) => ({
    client: Context.get(ctx, LlmClient),
    ledger: Context.get(ctx, UsageLedger),
    context: ctx
  }))

/** Fast retry settings for tests. */
export const fast = {
  backoffBaseMs: 5,
  backoffMaxMs: 50,
  cooldownMs: 100,
  cooldownMaxMs: 200,
  healthIntervalMs: 100
} as const

export const messages = (question: string): Array<ChatMessage> => [
  { role: "system", content: "Write a note." },
  {
    role: "user",
    content:
      `### Question\n${question}\n\n### Passages\n[1] Title: Jaws (film)\nJaws is a 1975 thriller film directed by Steven Spielberg.`
  }
]

export const request = (role: Role, questionId = "q1", extra: Partial<{ maxTokens: number }> = {}) => ({
  role,
  questionId,
  messages: messages(`Who directed Jaws? (${questionId})`),
  sampling: {
    ...samplingFor(defaultRunConfig, role),
    ...(extra.maxTokens === undefined ? {} : { maxTokens: extra.maxTokens })
  }
})

export { deadUrl } from "../src/DeadUrl.js"

/** Polls `read` every 20 ms until `condition` holds (the test's own timeout bounds it). */
export const waitFor = <A>(read: Effect.Effect<A>, condition: (a: A) => boolean): Effect.Effect<A> =>
  Effect.flatMap(
    read,
    (a) => condition(a) ? Effect.succeed(a) : Effect.zipRight(Effect.sleep("20 millis"), waitFor(read, condition))
  )
