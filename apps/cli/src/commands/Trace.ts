import { counted, Home } from "@deepnote-rag/core"
import {
  buildForest,
  formatBadLine,
  readTraceFile,
  renderQuestion,
  renderSummary,
  selectQuestions,
  selectRuns,
  type SpanRecord
} from "@deepnote-rag/telemetry"
import { traceFilesOf } from "@deepnote-rag/telemetry"
import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Console, Effect, Option } from "effect"
import { CommandFailed } from "../Errors.js"
import { homeLayer, homeOption } from "./Common.js"

const target = Args.text({ name: "file-or-run-id" }).pipe(
  Args.withDescription(
    "a trace file (from --trace-file) or a run id (its <home>/traces/<run-id>.jsonl and any --trace-file it used)"
  )
)

const traceOptions = {
  target,
  item: Options.text("item").pipe(
    Options.withDescription("only this question (its id, as in `deepnote status`/`export`)"),
    Options.optional
  ),
  all: Options.boolean("all").pipe(Options.withDescription("render every question's timeline, not just the summary")),
  content: Options.boolean("content").pipe(
    Options.withDescription("show recorded prompts and completions (present only if the run used --trace-content)")
  ),
  width: Options.integer("width").pipe(
    Options.withDescription("timeline bar width in characters (default 32)"),
    Options.withDefault(32)
  ),
  home: homeOption
}

/** The files to read: the argument itself if it is a file, else the trace files recorded for that run id. */
const resolveTarget = (value: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const isFile = yield* fs.stat(value).pipe(Effect.map((s) => s.type === "File"), Effect.orElseSucceed(() => false))
    if (isFile) return { files: [value], runId: undefined }
    const home = yield* Home
    const files = yield* traceFilesOf(home, value)
    if (files.length === 0) {
      return yield* new CommandFailed({
        message:
          `"${value}" is neither a trace file nor a run with recorded traces in ${home.root}/traces (record one with \`deepnote run --trace\` or \`--trace-file FILE\`)`
      })
    }
    return { files, runId: value }
  })

/** `deepnote trace FILE|RUN_ID [--item ID]`: a question's span tree as a timeline in the terminal, no backend needed. */
export const traceCommand = Command.make("trace", traceOptions, (opts) =>
  Effect.gen(function*() {
    const { files, runId } = yield* resolveTarget(opts.target)
    const spans: Array<SpanRecord> = []
    for (const file of files) {
      const contents = yield* readTraceFile(file).pipe(
        Effect.mapError((e) => new CommandFailed({ message: e.message }))
      )
      spans.push(...contents.spans)
      for (const bad of contents.badLines.slice(0, 5)) yield* Console.error(`deepnote: skipped ${formatBadLine(bad)}`)
      if (contents.badLines.length > 5) {
        yield* Console.error(`deepnote: skipped ${counted(contents.badLines.length - 5, "more bad line")} in ${file}`)
      }
    }
    const forest = buildForest(spans)
    const itemId = Option.getOrUndefined(opts.item)
    const questions = selectQuestions(forest, { runId, itemId })
    if (questions.length === 0) {
      const known = [
        ...new Set(selectQuestions(forest, { runId }).map((q) => String(q.span.attributes["deepnote.item.id"] ?? "?")))
      ]
      return yield* new CommandFailed({
        message: itemId === undefined
          ? `no question spans in ${files.join(", ")} (${counted(spans.length, "span")} read)`
          : `no spans of question "${itemId}" in ${files.join(", ")}${
            known.length > 0 ? ` (questions: ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})` : ""
          }`
      })
    }
    if (itemId !== undefined || questions.length === 1 || opts.all) {
      yield* Console.log(
        questions.map((q) => renderQuestion(q, { width: opts.width, content: opts.content })).join("\n\n")
      )
    } else {
      yield* Console.log(renderSummary(questions, selectRuns(forest, runId)))
      yield* Console.log(`\n${counted(questions.length, "question")}: show one with --item ID, or all with --all`)
    }
  }).pipe(Effect.provide(homeLayer(opts.home)))).pipe(
    Command.withDescription(
      "Show a question's span tree (steps, roles, LLM calls and attempts) as a timeline, from a --trace-file or a run's recorded traces."
    )
  )
