import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import { otlpSettingsConfig, parseKeyValueList } from "../src/index.js"

const read = (env: Record<string, string>) =>
  Effect.withConfigProvider(
    otlpSettingsConfig({ serviceName: "deepnote", serviceVersion: "0.1.0" }),
    ConfigProvider.fromMap(new Map(Object.entries(env)))
  )

describe("OTLP settings from OTEL_* variables", () => {
  it.effect("nothing configured: no export", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* read({})))
      assert.isTrue(
        Option.isNone(yield* read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))
      )
    }))

  it.effect("a base endpoint gets /v1/<signal>; signal endpoints win; `none` turns a signal off", () =>
    Effect.gen(function*() {
      const s = Option.getOrThrow(
        yield* read({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
          OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://metrics:9000/otlp",
          OTEL_LOGS_EXPORTER: "none",
          OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-team=qa,broken",
          OTEL_SERVICE_NAME: "deepnote-batch",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=staging,service.version=9",
          OTEL_BSP_SCHEDULE_DELAY: "200"
        })
      )
      assert.deepStrictEqual(Option.getOrNull(s.tracesUrl), "http://collector:4318/v1/traces")
      assert.deepStrictEqual(Option.getOrNull(s.metricsUrl), "http://metrics:9000/otlp")
      assert.isTrue(Option.isNone(s.logsUrl))
      assert.deepStrictEqual(Redacted.value(s.headers), { authorization: "Bearer abc", "x-team": "qa" })
      assert.strictEqual(s.serviceName, "deepnote-batch")
      assert.strictEqual(s.serviceVersion, "9")
      assert.strictEqual(s.resourceAttributes["deployment.environment"], "staging")
      assert.strictEqual(Duration.toMillis(s.tracesExportInterval), 200)
      assert.strictEqual(s.protocol, "http/json")
    }))

  it.effect("an unsupported protocol is a config error naming the variable", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
      )
      assert.include(String(error), "OTEL_EXPORTER_OTLP_PROTOCOL")
    }))

  it("key=value lists are percent-decoded and bad pairs skipped", () => {
    assert.deepStrictEqual(parseKeyValueList("a=1, b = x%3Dy ,=z,c"), { a: "1", b: "x=y" })
  })
})
