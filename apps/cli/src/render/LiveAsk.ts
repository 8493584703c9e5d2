import { AnswerTokens, describeEvent, EventSink, type PipelineEvent } from "@deepnote-rag/core"
import { Effect, Layer } from "effect"

/**
 * `deepnote ask` as it happens, on stderr (stdout keeps the final block): one line per step the moment the pipeline
 * publishes it, then the answer's text as the answer role writes it (token by token with the LLM engine).
 */
export const liveAskLayer = (write: (text: string) => void): Layer.Layer<EventSink | AnswerTokens> => {
  let answering = false
  const event = (e: PipelineEvent) =>
    Effect.sync(() => {
      const line = describeEvent(e)
      if (e._tag === "Answered" && answering) write("\n")
      else if (line !== undefined) write(`· ${line}\n`)
    })
  const token = (text: string) =>
    Effect.sync(() => {
      if (!answering) {
        answering = true
        write("answer: ")
        text = text.trimStart()
      }
      write(text)
    })
  return Layer.merge(EventSink.layer(event), AnswerTokens.layer(token))
}
