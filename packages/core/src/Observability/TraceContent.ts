import { Context } from "effect"

/**
 * Whether spans may carry prompt and completion text (`gen_ai.input.messages`, `gen_ai.output.messages`).
 * Off by default: prompts hold questions and passages, which may be private. Switched on by the CLI's
 * `--trace-content` or `DEEPNOTE_TRACE_CONTENT=true` (see `@deepnote-rag/telemetry`).
 */
export class TraceContent extends Context.Reference<TraceContent>()("@deepnote-rag/core/TraceContent", {
  defaultValue: () => false
}) {}
