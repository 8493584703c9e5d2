import { AnswerRecord, decodeIssues } from "@deepnote-rag/core"
import { Args, Command } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Schema } from "effect"
import { unreadable, UsageError } from "../Errors.js"
import { renderTimeline } from "../render/RenderTimeline.js"

const file = Args.text({ name: "file" }).pipe(
  Args.withDescription("a result saved by `deepnote ask --save FILE` (or `ask --json > FILE`)")
)

/** Reads and validates a saved result. */
export const readAnswerRecord = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new UsageError({ message: `cannot read ${path}: ${unreadable(e)}` }))
    )
    return yield* Schema.decodeUnknown(Schema.parseJson(AnswerRecord))(text).pipe(
      Effect.mapError((e) =>
        new UsageError({
          message: `${path} is not a saved DeepNote result: ${
            decodeIssues(e).slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")
          }`
        })
      )
    )
  })

/** `deepnote inspect FILE`: the note's evolution as a readable timeline. */
export const inspectCommand = Command.make("inspect", { file }, (opts) =>
  Effect.gen(function*() {
    const record = yield* readAnswerRecord(opts.file)
    yield* Console.log(renderTimeline(record.result))
  })).pipe(
    Command.withDescription(
      "Render a saved result's note evolution as a timeline: queries, passages read, verdicts, and what each note added."
    )
  )
