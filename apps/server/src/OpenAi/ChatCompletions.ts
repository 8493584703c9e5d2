import {
  type ChatCompletion,
  type ChatMessage,
  type ConfigPatch,
  DeepNoteExtension,
  NotFound,
  ValidationError
} from "@deepnote-rag/api"
import { Profile } from "@deepnote-rag/core"
import { chatCompletionObject } from "@deepnote-rag/llm"
import { Effect, Schema } from "effect"
import type { AskAnswer } from "../Ask/Ask.js"
import { usageByRole, usageOf } from "./Usage.js"

/** The model ids the facade answers to: `deepnote` (the server's default profile) and `deepnote-<profile>`. */
export const modelIds: ReadonlyArray<string> = ["deepnote", ...Profile.literals.map((p) => `deepnote-${p}`)]

/** The profile a model id selects (`undefined`: the request's or server's default), or 404 `model_not_found`. */
export const profileOfModel = (model: string): Effect.Effect<Profile | undefined, NotFound> => {
  if (model === "deepnote") return Effect.succeed(undefined)
  const profile = model.startsWith("deepnote-") ? model.slice("deepnote-".length) : ""
  return Schema.is(Profile)(profile)
    ? Effect.succeed(profile)
    : Effect.fail(
      NotFound.of(`The model \`${model}\` does not exist; use one of ${modelIds.join(", ")}`, "model_not_found")
    )
}

const textOf = (message: ChatMessage): string =>
  typeof message.content === "string"
    ? message.content
    : (message.content ?? []).flatMap((part) => part.type === "text" && part.text !== undefined ? [part.text] : [])
      .join("\n")

/** The question: the text of the last user message. */
export const questionOf = (messages: ReadonlyArray<ChatMessage>): Effect.Effect<string, ValidationError> => {
  const index = messages.map((m) => m.role).lastIndexOf("user")
  const text = index < 0 ? "" : textOf(messages[index]!).trim()
  return text === ""
    ? Effect.fail(
      ValidationError.of(
        "messages: the last user message is missing or empty",
        index < 0 ? "messages" : `messages[${index}].content`
      )
    )
    : Effect.succeed(text)
}

/** DeepNote's extension field: best note, trace, counters and usage by role. */
export const extensionOf = ({ record, usage }: AskAnswer): typeof DeepNoteExtension.Type => ({
  ...(record.result.bestNote === undefined ? {} : { bestNote: record.result.bestNote }),
  stopReason: record.result.stopReason,
  trace: record.result.trace,
  counters: record.result.counters,
  ...(record.collection === undefined ? {} : { collection: record.collection }),
  elapsedMs: record.result.elapsedMs,
  usageByRole: usageByRole(usage)
})

/** The extension as JSON (for stream chunks). */
export const encodeExtension = Schema.encodeSync(DeepNoteExtension)

export const completionOf = (
  id: string,
  created: number,
  model: string,
  answer: AskAnswer
): ChatCompletion => ({
  ...chatCompletionObject(
    { id, created, model },
    { role: "assistant" as const, content: answer.record.result.answer.text },
    "stop",
    usageOf(answer.usage)
  ),
  deepnote: extensionOf(answer)
})

/** The request's knobs with the model's profile on top. */
export const configPatchFor = (profile: Profile | undefined, patch: ConfigPatch | undefined): ConfigPatch | undefined =>
  profile === undefined ? patch : { ...patch, profile }
