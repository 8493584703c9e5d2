import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { Journal, RunStore, Store, Sweeps } from "../src/index.js"
import { manifest, question, result, tempDir } from "./fixtures.js"

const items = Array.from({ length: 120 }, (_, i) => question(`q${i}`))

/** What one executor fiber does per item: mark running, two journaled calls, complete. */
const runItem = (runId: string, id: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const journal = yield* Journal
    yield* store.markItemRunning(runId, id)
    const replay = yield* journal.replaying(runId, id)
    yield* replay.call({ kind: "init", requestHash: `${id}-init`, schema: Schema.String }, Effect.succeed("note"))
    yield* replay.call({ kind: "retrieve", requestHash: `${id}-r`, schema: Schema.Number }, Effect.succeed(3))
    yield* store.completeItem({ runId, itemId: id, result: result(question(id)), elapsedMs: 1 })
  })

/** Another process writing to the same file in short transactions, as a second CLI or the HTTP app would. */
const otherProcess = (filename: string, writes: number) =>
  Effect.async<number>((resume) => {
    const sqlite = createRequire(import.meta.url).resolve("better-sqlite3")
    const script = `
      const Db = require(${JSON.stringify(sqlite)}); const db = new Db(${JSON.stringify(filename)});
      db.pragma("busy_timeout = 10000");
      const put = db.prepare("INSERT INTO sweeps (id, label, grid, created_at) VALUES (?, 'other', '{}', '2026-01-01T00:00:00.000Z')");
      for (let i = 0; i < ${writes}; i++) db.transaction(() => put.run("s-other-" + i))();
      db.close();`
    const child = spawn(process.execPath, ["-e", script], { stdio: "inherit" })
    child.on("exit", (code) => resume(Effect.succeed(code ?? -1)))
  })

describe("concurrent writers (SQLite)", () => {
  it.scopedLive("many fibers complete items while another process writes to the same file", () =>
    Effect.gen(function*() {
      const filename = Path.join(yield* tempDir, "deepnote.sqlite")
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest(), id: "r-c" })
        yield* store.addItems(run.id, items)
        const [, code] = yield* Effect.all([
          Effect.forEach(items, (q) => runItem(run.id, q.id), { concurrency: 32, discard: true }),
          otherProcess(filename, 300)
        ], { concurrency: 2 })
        assert.strictEqual(code, 0)
        assert.deepStrictEqual(yield* store.itemCounts(run.id), {
          total: 120,
          pending: 0,
          running: 0,
          done: 120,
          failed: 0
        })
        const totals = yield* (yield* Journal).totals(run.id)
        assert.strictEqual(totals.length, 120)
        assert.isTrue(totals.every((t) => t.calls === 2 && t.llmCalls === 1))
        assert.strictEqual(
          (yield* (yield* Sweeps).list({ limit: 1000 })).filter((s) => s.label === "other").length,
          300
        )
      }).pipe(Effect.provide(Store.layer({ url: filename })))
    }))
})
