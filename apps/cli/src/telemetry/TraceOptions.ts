import { Options } from "@effect/cli"
import type { Option } from "effect"

const traceFile = Options.file("trace-file").pipe(
  Options.withDescription(
    "append every finished span as one JSON line to this file (read it with `deepnote trace FILE`)"
  ),
  Options.optional
)

const traceContent = Options.boolean("trace-content").pipe(
  Options.withDescription(
    "also record prompt and completion text on LLM spans (they may hold private data; default: $DEEPNOTE_TRACE_CONTENT, else off)"
  )
)

const trace = Options.boolean("trace").pipe(
  Options.withDescription(
    "record the run's spans in <home>/traces/<run-id>.jsonl (read them with `deepnote trace RUN_ID`)"
  )
)

export interface TraceFlags {
  readonly file: Option.Option<string>
  readonly content: boolean
  /** Runs only: record to the run's default trace file. */
  readonly trace?: boolean
}

/** `--trace-file FILE`, `--trace-content` (ask). */
export const askTraceOptions = Options.all({ file: traceFile, content: traceContent })

/** `--trace`, `--trace-file FILE`, `--trace-content` (run, resume). */
export const runTraceOptions = Options.all({ file: traceFile, content: traceContent, trace })
