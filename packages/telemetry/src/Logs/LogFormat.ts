import {
  Cause,
  Config,
  Context,
  FiberRef,
  FiberRefs,
  HashMap,
  Inspectable,
  Layer,
  List,
  Logger,
  Option,
  Tracer
} from "effect"

export type LogFormat = "json" | "pretty"

/** `DEEPNOTE_LOG_FORMAT`: `json`, `pretty` or `auto` (default: JSON lines unless stderr is a terminal). */
export const logFormatConfig = (stderrIsTty: boolean): Config.Config<LogFormat> =>
  Config.literal("json", "pretty", "auto")("DEEPNOTE_LOG_FORMAT").pipe(
    Config.withDefault("auto" as const),
    Config.map((f) => (f === "auto" ? (stderrIsTty ? "pretty" : "json") : f))
  )

const spanOf = (context: FiberRefs.FiberRefs): Option.Option<Tracer.AnySpan> =>
  Option.flatMap(FiberRefs.get(context, FiberRef.currentContext), Context.getOption(Tracer.ParentSpan))

/**
 * One JSON object per log line: `timestamp`, `level`, `message`, `trace_id`/`span_id`/`span_name` of the current span,
 * the log annotations (e.g. `deepnote.run.id`, `deepnote.item.id`), log spans as `<label>_ms`, and `cause` if any.
 */
export const jsonLogLine = Logger.make<unknown, string>(
  ({ annotations, cause, context, date, logLevel, message, spans }) => {
    const line: Record<string, unknown> = { timestamp: date.toISOString(), level: logLevel.label }
    const parts = Array.isArray(message) ? message : [message]
    line["message"] = parts.length === 1 ? Inspectable.toJSON(parts[0]) : parts.map((p) => Inspectable.toJSON(p))
    const span = spanOf(context)
    if (Option.isSome(span)) {
      line["trace_id"] = span.value.traceId
      line["span_id"] = span.value.spanId
      if (span.value._tag === "Span") line["span_name"] = span.value.name
    }
    for (const [key, value] of HashMap.toEntries(annotations)) line[key] = Inspectable.toJSON(value)
    for (const span of List.toArray(spans)) line[`${span.label}_ms`] = date.getTime() - span.startTime
    if (!Cause.isEmpty(cause)) line["cause"] = Cause.pretty(cause, { renderErrorCause: true })
    return Inspectable.stringifyCircular(line)
  }
)

/**
 * JSON lines (for machines) on `write`, or Effect's pretty logger with trace and span ids (for people), which writes
 * to stderr itself (it formats for a terminal; `write` does not apply to it).
 */
export const makeLogger = (format: LogFormat, write: (line: string) => void): Logger.Logger<unknown, void> =>
  format === "json"
    ? Logger.map(jsonLogLine, (line) => write(`${line}\n`))
    : Logger.withSpanAnnotations(Logger.prettyLogger({ stderr: true, colors: "auto" }))

/** Replaces the default logger (stdout) with one that writes to stderr, so `--json` output on stdout stays clean. */
export const logLayer = (
  format: LogFormat,
  write: (line: string) => void = (line) => void process.stderr.write(line)
): Layer.Layer<never> => Logger.replace(Logger.defaultLogger, makeLogger(format, write))
