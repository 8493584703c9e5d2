import { listenLocally } from "@deepnote-rag/core/testing"
import { Effect, type Scope } from "effect"
import * as Http from "node:http"

/** A span as an OTLP/JSON receiver sees it, attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly status: { readonly code?: number; readonly message?: string }
  readonly attributes: Readonly<Record<string, unknown>>
}

export interface ReceivedMetric {
  readonly name: string
  /** `sum`, `gauge` or `histogram`, with the data points' attributes flattened. */
  readonly kind: string
  readonly points: ReadonlyArray<{ readonly attributes: Readonly<Record<string, unknown>>; readonly value: number }>
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: use as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string
  /**
   * Each span once, in the order first received: OTLP delivery is at least once (an exporter sends a batch again when
   * it did not get the reply, which a busy machine can delay), so a span received twice is one span.
   */
  readonly spans: () => ReadonlyArray<ReceivedSpan>
  /** The latest export of each metric (exports are cumulative). */
  readonly metrics: () => ReadonlyMap<string, ReceivedMetric>
  readonly logs: () => ReadonlyArray<Record<string, unknown>>
  readonly requests: () => ReadonlyArray<{ readonly path: string; readonly headers: Http.IncomingHttpHeaders }>
}

interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly doubleValue?: number
  readonly boolValue?: boolean
  readonly arrayValue?: { readonly values: ReadonlyArray<AnyValue> }
}
interface KeyValue {
  readonly key: string
  readonly value: AnyValue
}

const plain = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ??
    (v.arrayValue !== undefined ? v.arrayValue.values.map(plain) : undefined)

const flatten = (attributes: ReadonlyArray<KeyValue> | undefined): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map((a) => [a.key, plain(a.value)]))

interface OtlpSpanJson {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  status?: { code?: number; message?: string }
  attributes?: Array<KeyValue>
}
interface PointJson {
  attributes?: Array<KeyValue>
  asInt?: number
  asDouble?: number
  sum?: number
  count?: number
}
interface MetricJson {
  name: string
  sum?: { dataPoints: Array<PointJson> }
  gauge?: { dataPoints: Array<PointJson> }
  histogram?: { dataPoints: Array<PointJson> }
}

/**
 * An OTLP/HTTP JSON receiver on 127.0.0.1 (a free port) for tests: it collects `POST /v1/traces`, `/v1/metrics` and
 * `/v1/logs` bodies and answers 200. It stops when the scope closes.
 */
export const startOtlpReceiver: Effect.Effect<OtlpReceiver, never, Scope.Scope> = Effect.gen(function*() {
  const spans = new Map<string, ReceivedSpan>()
  const metrics = new Map<string, ReceivedMetric>()
  const logs: Array<Record<string, unknown>> = []
  const requests: Array<{ path: string; headers: Http.IncomingHttpHeaders }> = []
  const server = Http.createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      const path = req.url ?? ""
      requests.push({ path, headers: req.headers })
      try {
        const json = JSON.parse(body) as {
          resourceSpans?: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpanJson> }> }>
          resourceMetrics?: Array<{ scopeMetrics: Array<{ metrics: Array<MetricJson> }> }>
          resourceLogs?: Array<
            {
              scopeLogs: Array<
                {
                  logRecords: Array<
                    { body?: AnyValue; attributes?: Array<KeyValue>; traceId?: string; spanId?: string }
                  >
                }
              >
            }
          >
        }
        for (const s of json.resourceSpans?.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans)) ?? []) {
          if (spans.has(s.spanId)) continue
          spans.set(s.spanId, {
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            status: s.status ?? {},
            attributes: flatten(s.attributes)
          })
        }
        for (const m of json.resourceMetrics?.flatMap((r) => r.scopeMetrics.flatMap((x) => x.metrics)) ?? []) {
          const [kind, points] = m.sum
            ? ["sum", m.sum.dataPoints] as const
            : m.gauge
            ? ["gauge", m.gauge.dataPoints] as const
            : ["histogram", m.histogram?.dataPoints ?? []] as const
          metrics.set(m.name, {
            name: m.name,
            kind,
            points: points.map((p) => ({
              attributes: flatten(p.attributes),
              value: Number(p.asInt ?? p.asDouble ?? p.count ?? 0)
            }))
          })
        }
        for (const l of json.resourceLogs?.flatMap((r) => r.scopeLogs.flatMap((x) => x.logRecords)) ?? []) {
          logs.push({
            ...flatten(l.attributes),
            body: l.body === undefined ? undefined : plain(l.body),
            traceId: l.traceId,
            spanId: l.spanId
          })
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      } catch {
        res.writeHead(400, { "content-type": "application/json" })
        res.end("{}")
      }
    })
  })
  const port = yield* listenLocally(server)
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans.values()],
    metrics: () => new Map(metrics),
    logs: () => [...logs],
    requests: () => [...requests]
  }
})
