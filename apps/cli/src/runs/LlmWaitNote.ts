import { LlmClient, type LlmHealth } from "@deepnote-rag/llm"
import type { EngineServices } from "@deepnote-rag/runs"
import { Context, Effect, Option, Ref, type Scope, Stream } from "effect"

/** The endpoints that are not up: `http://a (down: connection refused)`. */
export const endpointsNotUp = (health: LlmHealth): string =>
  health.endpoints.filter((e) => e.condition !== "up")
    .map((e) => `${e.url} (${e.condition}${e.lastError === undefined ? "" : `: ${e.lastError}`})`)
    .join(", ")

/**
 * While every LLM endpoint is down or overloaded the run's questions wait (they do not fail): the progress line says
 * "waiting for LLM servers", and a line is written when the outage begins and when it ends (also without a TTY, where
 * progress lines are 10 s apart).
 */
export const watchLlmHealth = (
  note: Ref.Ref<string | undefined>,
  write: (line: string) => Effect.Effect<void>
) =>
(engine: Context.Context<EngineServices>): Effect.Effect<void, never, Scope.Scope> =>
  Option.match(Context.getOption(engine, LlmClient), {
    onNone: () => Effect.void,
    onSome: (client) =>
      client.healthChanges.pipe(
        Stream.runForEach((health) =>
          Effect.gen(function*() {
            const waiting = health.state === "outage"
            const before = yield* Ref.getAndSet(note, waiting ? "waiting for LLM servers" : undefined)
            if (waiting && before === undefined) {
              yield* write(`waiting for LLM servers (questions pause, nothing fails): ${endpointsNotUp(health)}`)
            } else if (!waiting && before !== undefined) {
              yield* write("LLM servers are back: the run continues")
            }
          })
        ),
        Effect.forkScoped,
        Effect.asVoid
      )
  })
