import { Config, Duration, Option, Redacted, Schema } from "effect"
import { traceInternalsConfig } from "../Filter/QuietTracer.js"

export type OtlpProtocol = "http/json" | "http/protobuf"

/** Where and how to export, resolved from the standard `OTEL_*` variables. */
export interface OtlpSettings {
  /** Full URLs per signal; `None` turns that signal off. */
  readonly tracesUrl: Option.Option<string>
  readonly metricsUrl: Option.Option<string>
  readonly logsUrl: Option.Option<string>
  readonly headers: Redacted.Redacted<Record<string, string>>
  readonly protocol: OtlpProtocol
  readonly serviceName: string
  readonly serviceVersion: string
  readonly resourceAttributes: Record<string, string>
  readonly tracesExportInterval: Duration.Duration
  readonly metricsExportInterval: Duration.Duration
  readonly logsExportInterval: Duration.Duration
  readonly shutdownTimeout: Duration.Duration
  /** Export the storage and journal internals' spans too (`DEEPNOTE_TRACE_INTERNALS`); default false. */
  readonly traceInternals: boolean
}

/** `k1=v1,k2=v2` with percent-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES); bad pairs are skipped. */
export const parseKeyValueList = (text: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const raw = pair.slice(at + 1).trim()
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      value = raw
    }
    if (key !== "") out[key] = value
  }
  return out
}

/** The base endpoint plus `v1/<signal>` (spec: signal-specific endpoints are used as they are). */
export const signalUrl = (base: string, signal: "traces" | "metrics" | "logs"): string =>
  `${base.replace(/\/+$/, "")}/v1/${signal}`

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((s) => s.trim() !== "")))
const millis = (name: string, fallback: number) =>
  Config.integer(name).pipe(Config.withDefault(fallback), Config.map(Duration.millis))
const exporterOn = (name: string) =>
  Config.string(name).pipe(Config.withDefault("otlp"), Config.map((v) => v.trim().toLowerCase() !== "none"))

/**
 * The OTLP export settings, or `None` when nothing is configured (no endpoint) or `OTEL_SDK_DISABLED=true`.
 * Read: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_EXPORTER_OTLP_PROTOCOL (http/json, default, or http/protobuf), OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_{TRACES,METRICS,LOGS}_EXPORTER (`none` turns a signal off), OTEL_BSP_SCHEDULE_DELAY,
 * OTEL_METRIC_EXPORT_INTERVAL, OTEL_BLRP_SCHEDULE_DELAY.
 */
export const otlpSettingsConfig = (
  defaults: { readonly serviceName: string; readonly serviceVersion: string }
): Config.Config<Option.Option<OtlpSettings>> =>
  Config.all({
    disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
    base: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
    traces: optionalString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    metrics: optionalString("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
    logs: optionalString("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"),
    tracesOn: exporterOn("OTEL_TRACES_EXPORTER"),
    metricsOn: exporterOn("OTEL_METRICS_EXPORTER"),
    logsOn: exporterOn("OTEL_LOGS_EXPORTER"),
    headers: Config.redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault(Redacted.make(""))),
    protocol: Schema.Config("OTEL_EXPORTER_OTLP_PROTOCOL", Schema.Literal("http/json", "http/protobuf")).pipe(
      Config.withDefault("http/json" as const)
    ),
    serviceName: optionalString("OTEL_SERVICE_NAME"),
    resource: Config.string("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault("")),
    tracesInterval: millis("OTEL_BSP_SCHEDULE_DELAY", 5_000),
    metricsInterval: millis("OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    logsInterval: millis("OTEL_BLRP_SCHEDULE_DELAY", 1_000),
    timeout: millis("OTEL_EXPORTER_OTLP_TIMEOUT", 10_000),
    traceInternals: traceInternalsConfig
  }).pipe(Config.map((c): Option.Option<OtlpSettings> => {
    const url = (specific: Option.Option<string>, on: boolean, signal: "traces" | "metrics" | "logs") =>
      on ? Option.orElse(specific, () => Option.map(c.base, (b) => signalUrl(b, signal))) : Option.none()
    const tracesUrl = url(c.traces, c.tracesOn, "traces")
    const metricsUrl = url(c.metrics, c.metricsOn, "metrics")
    const logsUrl = url(c.logs, c.logsOn, "logs")
    if (c.disabled || (Option.isNone(tracesUrl) && Option.isNone(metricsUrl) && Option.isNone(logsUrl))) {
      return Option.none()
    }
    const resourceAttributes = parseKeyValueList(c.resource)
    return Option.some({
      tracesUrl,
      metricsUrl,
      logsUrl,
      headers: Redacted.make(parseKeyValueList(Redacted.value(c.headers))),
      protocol: c.protocol,
      serviceName: Option.getOrElse(c.serviceName, () => resourceAttributes["service.name"] ?? defaults.serviceName),
      serviceVersion: resourceAttributes["service.version"] ?? defaults.serviceVersion,
      resourceAttributes,
      tracesExportInterval: c.tracesInterval,
      metricsExportInterval: c.metricsInterval,
      logsExportInterval: c.logsInterval,
      shutdownTimeout: Duration.min(c.timeout, Duration.seconds(10)),
      traceInternals: c.traceInternals
    })
  }))
