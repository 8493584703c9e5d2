import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SystemError } from "@effect/platform/Error"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Layer, Logger } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { formatBadLine, parseTraceFile, readTraceFile, traceFileLayer } from "../src/index.js"

const tempDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-telemetry-" })
).pipe(
  Effect.provide(NodeContext.layer),
  Effect.orDie
)

class Boom extends Data.TaggedError("Boom")<{ readonly message: string }> {}

const child = Effect.fn("Child.work")(function*(n: number) {
  yield* Effect.annotateCurrentSpan({ "deepnote.step": n, big: 10n, obj: { a: 1 } })
  yield* Effect.log(`working ${n}`)
  if (n === 2) return yield* new Boom({ message: "boom" })
  return n
})

const program = Effect.gen(function*() {
  yield* child(1)
  yield* Effect.either(child(2))
}).pipe(Effect.withSpan("parent", { attributes: { "deepnote.item.id": "q1" } }))

describe("trace file", () => {
  it.scopedLive("records every finished span as one JSON line with parent links, attributes, events and status", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "nested", "trace.jsonl")
      yield* program.pipe(Effect.provide(traceFileLayer(file).pipe(Layer.provide(NodeContext.layer))))
      const { badLines, spans } = yield* readTraceFile(file).pipe(Effect.provide(NodeContext.layer))
      assert.deepStrictEqual(badLines, [])
      assert.deepStrictEqual(spans.map((s) => s.name), ["Child.work", "Child.work", "parent"])
      const parent = spans[2]!
      assert.isUndefined(parent.parentSpanId)
      assert.strictEqual(parent.attributes["deepnote.item.id"], "q1")
      for (const s of spans.slice(0, 2)) {
        assert.strictEqual(s.parentSpanId, parent.spanId)
        assert.strictEqual(s.traceId, parent.traceId)
      }
      assert.strictEqual(spans[0]!.status, "ok")
      assert.strictEqual(spans[1]!.status, "error")
      assert.include(spans[1]!.statusMessage ?? "", "boom")
      assert.strictEqual(spans[0]!.attributes["big"], "10")
      assert.strictEqual(spans[0]!.attributes["obj"], "{\"a\":1}")
      assert.strictEqual(spans[0]!.events[0]?.name, "working 1")
      assert.isTrue(parent.endTimeUnixNano >= parent.startTimeUnixNano)
      // appending: a second execution adds lines
      yield* program.pipe(Effect.provide(traceFileLayer(file).pipe(Layer.provide(NodeContext.layer))))
      assert.strictEqual(readFileSync(file, "utf8").trim().split("\n").length, 6)
    }))

  it.scopedLive("keeps span lines whose write failed and writes them on the next flush, with a warning", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "trace.jsonl")
      let failures = 2
      // the real file system, except that the first two writes of the trace file fail (a full disk, a lost mount)
      const flaky = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (fs) => ({
          ...fs,
          open: (path: string, options?: FileSystem.OpenFileOptions) =>
            Effect.map(fs.open(path, options), (opened) => {
              const wrapped: FileSystem.File = Object.create(opened)
              return Object.assign(wrapped, {
                writeAll: (bytes: Uint8Array) =>
                  failures-- > 0
                    ? Effect.fail(new SystemError({ reason: "Unknown", module: "FileSystem", method: "writeAll" }))
                    : opened.writeAll(bytes)
              })
            })
        }))
      ).pipe(Layer.provide(NodeContext.layer))
      const logs: Array<string> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(String(message))))
      yield* Effect.gen(function*() {
        yield* program
        // two periodic flushes fail, the third writes everything
        while (failures > 0) yield* Effect.sleep("20 millis")
      }).pipe(
        // the logger outside the trace file's layer, so that the layer's own warnings go to it
        // @effect-diagnostics-next-line multipleEffectProvide:off
        Effect.provide(traceFileLayer(file, { flushInterval: "10 millis" }).pipe(Layer.provide(flaky))),
        Effect.provide(logger)
      )
      const { spans } = yield* readTraceFile(file).pipe(Effect.provide(NodeContext.layer))
      assert.deepStrictEqual(spans.map((s) => s.name), ["Child.work", "Child.work", "parent"])
      assert.isTrue(logs.some((line) => line.includes("kept for the next try")), logs.join("\n"))
    }))

  it("reports bad lines as file:line with the field", () => {
    const span = (traceId: string) =>
      JSON.stringify({
        traceId,
        spanId: "b".repeat(16),
        name: "x",
        kind: "internal",
        startTimeUnixNano: "1",
        endTimeUnixNano: "2",
        durationMs: 0,
        status: "ok",
        attributes: {},
        events: []
      })
    const text = [span("a".repeat(32)), "", span("nope"), "{\"traceId\": \"trunc"].join("\n")
    const parsed = parseTraceFile("t.jsonl", text)
    assert.strictEqual(parsed.spans.length, 1)
    assert.deepStrictEqual(parsed.badLines.map((b) => b.line), [3, 4])
    assert.match(formatBadLine(parsed.badLines[0]!), /^t\.jsonl:3: traceId: /)
  })

  it.scopedLive("a missing file is a TraceFileError naming the path", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeFileSync(Path.join(dir, "x"), "")
      const error = yield* Effect.flip(
        readTraceFile(Path.join(dir, "missing.jsonl")).pipe(Effect.provide(NodeContext.layer))
      )
      assert.include(error.message, "no trace file at")
    }))
})
