import { telemetryLayer } from "@deepnote-rag/telemetry"
import { Effect, Layer } from "effect"
import { version } from "../Cli.js"
import { UsageError } from "../Errors.js"
import { StandardStreams } from "../render/StandardStreams.js"

/**
 * Process-wide telemetry of the `deepnote` command, from the environment: OTLP export when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set (flushed when the command ends, also on Ctrl-C), logs on stderr (JSON lines unless stderr is a terminal) with
 * trace, span, run and item ids, and `DEEPNOTE_TRACE_CONTENT`.
 */
export const cliTelemetry = Layer.unwrapEffect(Effect.map(StandardStreams, (streams) =>
  telemetryLayer({
    serviceName: "deepnote",
    serviceVersion: version,
    stderrIsTty: streams.stderrIsTty,
    writeLog: streams.writeStderr
  }).pipe(
    Layer.mapError((e) => new UsageError({ message: `telemetry settings: ${e.message}` }))
  )))
