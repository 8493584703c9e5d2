import { withoutCredentials } from "@deepnote-rag/core"
import * as OtlpLogger from "@effect/opentelemetry/OtlpLogger"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { HttpClient, type HttpClientError, type HttpClientResponse } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { type ConfigError, type Duration, Effect, Fiber, FiberSet, Layer, Option, Redacted } from "effect"
import { quietTracer } from "../Filter/QuietTracer.js"
import { type OtlpSettings, otlpSettingsConfig } from "./OtlpSettings.js"

/** Says what became of an export: a collector that cannot be reached, and one that can again. */
export type ExportReport = (message: string) => Effect.Effect<void>

/**
 * The exporters' HTTP client, reporting failed exports and finishing the ones under way at shutdown.
 *
 * Reporting: `@effect/opentelemetry` logs a failed export only at debug level, in a fiber of its own that never sees the
 * process's logger, and drops what the export held (and what comes in the minute after, while it waits to try again):
 * with a collector that cannot be reached, spans vanished without a word. This client reports the first failure of
 * each signal's streak, and the export that works again.
 *
 * Finishing: each exporter sends its buffer every interval from a fiber that shutdown interrupts before the final
 * export, and the batch that interval took out of the buffer was lost with the interrupted request — the last spans of
 * a short command (the question's root span, ending last) went missing in ~1 of 10 runs when an interval fell in the
 * last milliseconds (measured with a 5–20 ms interval). Here each request runs in a fiber of the client's own, which
 * the caller's interruption leaves running, and the client's shutdown, after the exporters' final exports, waits for
 * them up to `shutdownTimeout`.
 */
const reportingClient = (
  report: ExportReport,
  shutdownTimeout: Duration.Duration
): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const underWay = yield* FiberSet.make<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>()
      yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(underWay).pipe(Effect.timeoutOption(shutdownTimeout)))
      const failing = new Set<string>()
      const failed = (url: string, why: string) =>
        Effect.suspend(() => {
          if (failing.has(url)) return Effect.void
          failing.add(url)
          return report(
            `telemetry: OTLP export to ${
              withoutCredentials(url)
            } failed (${why}): tried again 3 times, a second apart; after that what ` +
              "it holds is dropped and the next try is a minute later"
          )
        })
      const worked = (url: string) =>
        Effect.suspend(() =>
          failing.delete(url) ? report(`telemetry: OTLP export to ${withoutCredentials(url)} works again`) : Effect.void
        )
      const reported = client.pipe(
        HttpClient.tap((response) =>
          response.status >= 200 && response.status < 300
            ? worked(response.request.url)
            : failed(response.request.url, `HTTP ${response.status}`)
        ),
        HttpClient.tapError((error) =>
          failed(error.request.url, error.cause instanceof Error ? error.cause.message : error.message)
        )
      )
      return HttpClient.transformResponse(
        reported,
        (sending) => FiberSet.run(underWay, sending).pipe(Effect.flatMap(Fiber.join))
      )
    })
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))

/**
 * Exports traces, metrics and logs over OTLP/HTTP with `@effect/opentelemetry` (no OpenTelemetry SDK exporter), over its
 * own undici client. Each exporter sends what is buffered when the layer closes (normal exit, failure, SIGINT). A failed
 * export is told to `report` (a warning in the fiber's log by default).
 */
export const otlpLayer = (
  settings: OtlpSettings,
  report: ExportReport = (message) => Effect.logWarning(message)
): Layer.Layer<never> => {
  const resource = {
    serviceName: settings.serviceName,
    serviceVersion: settings.serviceVersion,
    attributes: settings.resourceAttributes
  }
  const headers = Redacted.value(settings.headers)
  const common = { resource, headers, shutdownTimeout: settings.shutdownTimeout }
  const signal = <A>(url: Option.Option<string>, make: (url: string) => Layer.Layer<never, never, A>) =>
    Option.match(url, { onNone: () => Layer.empty, onSome: make })
  return Layer.mergeAll(
    signal(
      settings.tracesUrl,
      (url) =>
        Layer.unwrapScoped(Effect.gen(function*() {
          const tracer = yield* OtlpTracer.make({ ...common, url, exportInterval: settings.tracesExportInterval })
          return Layer.setTracer(settings.traceInternals ? tracer : quietTracer(tracer))
        }))
    ),
    signal(
      settings.metricsUrl,
      (url) => OtlpMetrics.layer({ ...common, url, exportInterval: settings.metricsExportInterval })
    ),
    signal(settings.logsUrl, (url) => OtlpLogger.layer({ ...common, url, exportInterval: settings.logsExportInterval }))
  ).pipe(
    Layer.provide(
      settings.protocol === "http/protobuf" ? OtlpSerialization.layerProtobuf : OtlpSerialization.layerJson
    ),
    Layer.provide(reportingClient(report, settings.shutdownTimeout))
  )
}

/** OTLP export from the `OTEL_*` variables (see `otlpSettingsConfig`); `Layer.empty` when no endpoint is set. */
export const otlpLayerConfig = (
  defaults: { readonly serviceName: string; readonly serviceVersion: string },
  report?: ExportReport
): Layer.Layer<never, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.map(
      otlpSettingsConfig(defaults),
      Option.match({ onNone: () => Layer.empty, onSome: (settings) => otlpLayer(settings, report) })
    )
  )
