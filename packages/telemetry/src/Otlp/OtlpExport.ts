import * as OtlpLogger from "@effect/opentelemetry/OtlpLogger"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { NodeHttpClient } from "@effect/platform-node"
import { type ConfigError, Effect, Layer, Option, Redacted } from "effect"
import { quietTracer } from "../Filter/QuietTracer.js"
import { type OtlpSettings, otlpSettingsConfig } from "./OtlpSettings.js"

/**
 * Exports traces, metrics and logs over OTLP/HTTP with `@effect/opentelemetry` (no OpenTelemetry SDK exporter), over its
 * own undici client. Each exporter sends what is buffered when the layer closes (normal exit, failure, SIGINT).
 */
export const otlpLayer = (settings: OtlpSettings): Layer.Layer<never> => {
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
    Layer.provide(NodeHttpClient.layerUndici)
  )
}

/** OTLP export from the `OTEL_*` variables (see `otlpSettingsConfig`); `Layer.empty` when no endpoint is set. */
export const otlpLayerConfig = (
  defaults: { readonly serviceName: string; readonly serviceVersion: string }
): Layer.Layer<never, ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Effect.map(otlpSettingsConfig(defaults), Option.match({ onNone: () => Layer.empty, onSome: otlpLayer }))
  )
