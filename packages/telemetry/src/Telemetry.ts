import { TraceContent } from "@deepnote-rag/core"
import { Config, type ConfigError, Effect, Layer } from "effect"
import { logFormatConfig, logLayer } from "./Logs/LogFormat.js"
import { otlpLayerConfig } from "./Otlp/OtlpExport.js"

/** `DEEPNOTE_TRACE_CONTENT=true` lets spans carry prompt and completion text (off by default: private data). */
export const traceContentConfig = Config.boolean("DEEPNOTE_TRACE_CONTENT").pipe(Config.withDefault(false))

export const traceContentLayer = (on: boolean): Layer.Layer<never> => Layer.succeed(TraceContent, on)

export interface TelemetryOptions {
  readonly serviceName: string
  readonly serviceVersion: string
  /** Whether stderr is a terminal (pretty logs) or not (JSON lines), unless DEEPNOTE_LOG_FORMAT says otherwise. */
  readonly stderrIsTty: boolean
  /** Where the JSON log lines go (stderr unless said). */
  readonly writeLog?: (line: string) => void
}

/**
 * Everything a process needs, from `Config`: OTLP export of traces, metrics and logs when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or a per-signal endpoint) is set, structured logs on stderr with trace and span ids, and the trace-content switch.
 * The trace file (`traceFileLayer`) is separate: commands add it around the work they trace.
 */
export const telemetryLayer = (options: TelemetryOptions): Layer.Layer<never, ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(logFormatConfig(options.stderrIsTty), (format) => {
    const logs = logLayer(format, options.writeLog)
    // the exporters run in fibers forked before this logger is in place: their reports are logged through it
    const report = (message: string) => Effect.logWarning(message).pipe(Effect.provide(logs))
    return Layer.mergeAll(logs, Layer.unwrapEffect(Effect.map(traceContentConfig, traceContentLayer))).pipe(
      Layer.provideMerge(otlpLayerConfig(options, report))
    )
  }))
