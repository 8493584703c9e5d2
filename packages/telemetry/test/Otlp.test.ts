import { PipelineMetrics, withTags } from "@deepnote-rag/core"
import { listenLocally } from "@deepnote-rag/core/testing"
import { FileSystem, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Metric, Option, Redacted } from "effect"
import * as Http from "node:http"
import * as Path from "node:path"
import { otlpLayer, type OtlpSettings, readTraceFile, traceFileLayer } from "../src/index.js"
import { startOtlpReceiver } from "../src/testing.js"

const settings = (url: string): OtlpSettings => ({
  tracesUrl: Option.some(`${url}/v1/traces`),
  metricsUrl: Option.some(`${url}/v1/metrics`),
  logsUrl: Option.some(`${url}/v1/logs`),
  headers: Redacted.make({ "x-tenant": "t1" }),
  protocol: "http/json",
  serviceName: "deepnote-test",
  serviceVersion: "0.0.0",
  resourceAttributes: {},
  tracesExportInterval: Duration.seconds(30),
  metricsExportInterval: Duration.seconds(30),
  logsExportInterval: Duration.seconds(30),
  shutdownTimeout: Duration.seconds(3),
  traceInternals: false
})

const role = Effect.fn("NoteWriter.init")(function*() {
  yield* Effect.annotateCurrentSpan({ "deepnote.step": 0 })
  yield* Effect.logInfo("writing")
  yield* Metric.increment(withTags(PipelineMetrics.questions, { profile: "deepnote", outcome: "done" }))
})

const question = role().pipe(Effect.withSpan("deepnote.question", { attributes: { "deepnote.item.id": "q1" } }))

/** A 127.0.0.1 server that records request headers and answers `{}` (the first `failFirst` requests: 503). */
const headerServer = (failFirst = 0) =>
  Effect.acquireRelease(
    Effect.async<{ server: Http.Server; port: number; seen: Array<Http.IncomingHttpHeaders> }>((resume) => {
      const seen: Array<Http.IncomingHttpHeaders> = []
      const server = Http.createServer((req, res) => {
        seen.push(req.headers)
        req.resume()
        req.on("end", () => {
          if (seen.length <= failFirst) res.statusCode = 503
          res.end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(
          Effect.succeed({ server, port: typeof address === "object" && address !== null ? address.port : 0, seen })
        )
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

describe("OTLP export", () => {
  it.scopedLive("sends spans with parent links, metrics and logs when the layer closes; the trace file has the same spans", () =>
    Effect.gen(function*() {
      const receiver = yield* startOtlpReceiver
      const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "otlp-" }))
        .pipe(
          Effect.provide(NodeContext.layer)
        )
      const file = Path.join(dir, "t.jsonl")
      // the file tracer wraps the OTLP tracer: provided inside it, built after it
      yield* question.pipe(
        // @effect-diagnostics-next-line multipleEffectProvide:off
        Effect.provide(traceFileLayer(file).pipe(Layer.provide(NodeContext.layer))),
        Effect.provide(otlpLayer(settings(receiver.url)))
      )
      const spans = receiver.spans()
      assert.deepStrictEqual(spans.map((s) => s.name).sort(), ["NoteWriter.init", "deepnote.question"])
      const root = spans.find((s) => s.name === "deepnote.question")!
      const child = spans.find((s) => s.name === "NoteWriter.init")!
      assert.strictEqual(child.parentSpanId, root.spanId)
      assert.strictEqual(child.traceId, root.traceId)
      assert.strictEqual(root.attributes["deepnote.item.id"], "q1")
      assert.strictEqual(child.attributes["deepnote.step"], 0)
      const questions = receiver.metrics().get("deepnote_questions_total")
      assert.isDefined(questions)
      assert.isTrue(
        questions!.points.some((p) =>
          p.attributes["profile"] === "deepnote" && p.attributes["outcome"] === "done" && p.value >= 1
        )
      )
      const log = receiver.logs().find((l) => l["body"] === "writing")
      assert.strictEqual(log?.["spanId"], child.spanId)
      assert.isTrue(receiver.requests().every((r) => r.headers["x-tenant"] === "t1"))
      const recorded = yield* readTraceFile(file).pipe(Effect.provide(NodeContext.layer))
      assert.deepStrictEqual(recorded.spans.map((s) => s.spanId).sort(), spans.map((s) => s.spanId).sort())
    }))

  it.scopedLive("a failed export is reported once per streak (its cause named), and the export that works again", () =>
    Effect.gen(function*() {
      const reports: Array<string> = []
      const report = (message: string) => Effect.sync(() => void reports.push(message))
      const tracesOnly = (url: string): OtlpSettings => ({
        ...settings(url),
        metricsUrl: Option.none(),
        logsUrl: Option.none()
      })
      // nothing listens on port 1: the export at close fails at once (@effect/opentelemetry said so at debug level only);
      // the collector's user name and password stay out of the line
      yield* question.pipe(Effect.provide(otlpLayer(tracesOnly("http://otel:s3cret@127.0.0.1:1"), report)))
      assert.strictEqual(reports.length, 1, reports.join("\n"))
      assert.match(
        reports[0]!,
        /^telemetry: OTLP export to http:\/\/127\.0\.0\.1:1\/v1\/traces failed \(connect ECONNREFUSED/
      )
      // a collector that answers 503 twice, then takes the export (the exporter tries again after a second)
      reports.length = 0
      const { port, seen } = yield* headerServer(2)
      yield* question.pipe(Effect.provide(otlpLayer(tracesOnly(`http://127.0.0.1:${port}`), report)))
      assert.strictEqual(seen.length, 3)
      assert.deepStrictEqual(reports, [
        `telemetry: OTLP export to http://127.0.0.1:${port}/v1/traces failed (HTTP 503): tried again 3 times, a ` +
        "second apart; after that what it holds is dropped and the next try is a minute later",
        `telemetry: OTLP export to http://127.0.0.1:${port}/v1/traces works again`
      ])
    }))

  it.scopedLive("an export under way when the layer closes is finished, not cut off with the spans it holds", () =>
    Effect.gen(function*() {
      // a collector that answers 300 ms after a request has come in, and counts the requests left without their answer
      const names: Array<string> = []
      let cutOff = 0
      const server = Http.createServer((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        req.on("end", () => {
          const json = JSON.parse(body) as {
            resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }>
          }
          const spans = json.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans))
          res.on("close", () => {
            if (!res.writableFinished) cutOff++
            else names.push(...spans.map((x) => x.name))
          })
          setTimeout(() => res.end("{}"), 300)
        })
      })
      const port = yield* listenLocally(server)
      const everyTwentyMs: OtlpSettings = {
        ...settings(`http://127.0.0.1:${port}`),
        metricsUrl: Option.none(),
        logsUrl: Option.none(),
        tracesExportInterval: Duration.millis(20)
      }
      // the root span ends, an interval's export takes it out of the buffer, and the layer closes while that export
      // waits for its answer: the exporter interrupts its interval fiber before the final export (which finds an
      // empty buffer), and the interrupted request took the root span with it
      yield* question.pipe(
        Effect.zipRight(Effect.sleep(Duration.millis(100))),
        Effect.provide(otlpLayer(everyTwentyMs))
      )
      assert.strictEqual(cutOff, 0, "no export was cut off")
      assert.include(names, "deepnote.question")
      assert.include(names, "NoteWriter.init")
    }))

  it.scopedLive("the platform HttpClient sends traceparent (and b3) from the active span", () =>
    Effect.gen(function*() {
      const { port, seen } = yield* headerServer()
      const receiver = yield* startOtlpReceiver
      yield* Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        yield* client.execute(HttpClientRequest.post(`http://127.0.0.1:${port}/v1/rerank`)).pipe(
          Effect.flatMap((r) => r.text)
        )
      }).pipe(
        Effect.withSpan("Reranker.rerank"),
        // the client inside the tracer's layer, as an application provides them
        // @effect-diagnostics-next-line multipleEffectProvide:off
        Effect.provide(NodeHttpClient.layerUndici),
        Effect.provide(otlpLayer(settings(receiver.url)))
      )
      const traceparent = String(seen[0]?.["traceparent"] ?? "")
      const [version, traceId, spanId, flags] = traceparent.split("-")
      assert.strictEqual(version, "00")
      assert.strictEqual(flags, "01")
      const httpSpan = receiver.spans().find((s) => s.spanId === spanId)
      const rerank = receiver.spans().find((s) => s.name === "Reranker.rerank")!
      assert.isDefined(httpSpan, "traceparent names the HTTP client span")
      assert.strictEqual(httpSpan!.kind, 3)
      assert.strictEqual(httpSpan!.parentSpanId, rerank.spanId)
      assert.strictEqual(traceId, rerank.traceId)
      assert.include(String(seen[0]?.["b3"] ?? ""), rerank.traceId)
    }))
})
