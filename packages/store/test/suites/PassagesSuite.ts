import { Note, Passage, type PipelineEvent, PipelineResult } from "@deepnote-rag/core"
import { SqlClient } from "@effect/sql"
import { assert, describe } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { EventLog, Journal, RunStore } from "../../src/index.js"
import { StoredJsonValue } from "../../src/internal/storedJson.js"
import { manifest, question, result } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

const passage = (id: string, text = `the text of ${id}, long enough to matter`, score = 1) =>
  new Passage({ id, title: `Title ${id}`, text, source: "hotpot", score })

const retrieved = (questionId: string, passages: ReadonlyArray<Passage>): PipelineEvent => ({
  _tag: "Retrieved",
  questionId,
  step: 0,
  elapsedMs: 1,
  queries: ["q"],
  passages,
  durationMs: 1
})

const initialised = (questionId: string, note: Note): PipelineEvent => ({
  _tag: "NoteInitialised",
  questionId,
  step: 0,
  elapsedMs: 2,
  note,
  durationMs: 1
})

const note = new Note({ text: "a note long enough to be stored once. ".repeat(10) })

const encodePassages = Schema.encodeSync(Schema.Array(Passage))
const decodeStored = Schema.decodeUnknownSync(StoredJsonValue)

export const passagesSuite = (it: SuiteIt) =>
  describe("passages stored once per run", () => {
    it.effect("journal, events and result refer to one stored copy; every read returns the passages unchanged", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const journal = yield* Journal
        const log = yield* EventLog
        const sql = yield* SqlClient.SqlClient
        const run = yield* store.createRun({ manifest: manifest() })
        const q = question("q1")
        yield* store.addItems(run.id, [q])
        const [a, b] = [passage("a", "alpha text", 3.5), passage("b", "beta text", 2)]
        const response = encodePassages([a, b])
        const entry = { runId: run.id, itemId: "q1", kind: "retrieve", requestHash: "h", latencyMs: 1 }
        yield* journal.append({ ...entry, seq: 0, response })
        // the same passages with other scores, written with the event in one transaction
        const rescored = [new Passage({ ...a, score: 0.5 }), b]
        yield* log.append(run.id, "q1", [retrieved("q1", rescored)], {
          position: 0,
          journal: [{ ...entry, seq: 1, response: encodePassages(rescored) }]
        })
        yield* log.append(run.id, "q1", [initialised("q1", note)], {
          position: 1,
          journal: [{ ...entry, seq: 2, kind: "init", response: { text: note.text } }]
        })
        const done = new PipelineResult({
          ...result(q),
          bestNote: note,
          trace: {
            queries: [{ step: 0, query: "q" }],
            passages: [{ step: 0, passage: a }, { step: 0, passage: b }],
            notes: [{ step: 0, note, best: true }]
          }
        })
        yield* store.completeItem({ runId: run.id, itemId: "q1", result: done })

        const stored = yield* sql<{ id: string }>`SELECT id FROM passages WHERE run_id = ${run.id} ORDER BY id`
        assert.deepStrictEqual(stored.map((r) => r.id), ["a", "b"])
        // the note (a long text) is stored once for the three places that hold it
        const texts = yield* sql<{ text: unknown }>`SELECT text FROM texts WHERE run_id = ${run.id}`
        assert.deepStrictEqual(texts.map((r) => decodeStored(r.text)), [note.text])
        const raw = yield* sql<{ value: unknown }>`SELECT response AS value FROM journal WHERE run_id = ${run.id}
          UNION ALL SELECT event AS value FROM events WHERE run_id = ${run.id}
          UNION ALL SELECT result AS value FROM items WHERE run_id = ${run.id}`
        assert.strictEqual(raw.length, 6)
        for (const row of raw) {
          const text = JSON.stringify(decodeStored(row.value))
          assert.notInclude(text, "alpha text")
          assert.notInclude(text, note.text)
        }

        const entries = yield* journal.entries(run.id, "q1")
        assert.deepStrictEqual(entries.map((e) => e.response), [response, encodePassages(rescored), {
          text: note.text
        }])
        const events = yield* log.since(run.id)
        assert.deepStrictEqual(events.map((e) => e.event), [retrieved("q1", rescored), initialised("q1", note)])
        assert.deepStrictEqual((yield* store.getItem(run.id, "q1")).result, done)
        const [page] = yield* store.resultsPage(run.id)
        assert.deepStrictEqual(page!.result, done)
      }))

    it.effect("rows written before passages were stored apart read as they are; an id stored with another text is another passage", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const journal = yield* Journal
        const sql = yield* SqlClient.SqlClient
        const run = yield* store.createRun({ manifest: manifest() })
        yield* store.addItems(run.id, [question("q1")])
        const old = encodePassages([passage("a", "old inline text")])
        yield* sql`INSERT INTO journal ${
          sql.insert({
            run_id: run.id,
            item_id: "q1",
            seq: 0,
            kind: "retrieve",
            request_hash: "h",
            // as version 11 wrote it: JSON text (Postgres: its UTF-8 bytes, as migration 12 converted it)
            response: sql.onDialectOrElse({
              pg: () => Buffer.from(JSON.stringify(old), "utf8"),
              orElse: () => JSON.stringify(old)
            }),
            usage: null,
            latency_ms: 1,
            created_at: new Date(0).toISOString()
          })
        }`
        const entry = { runId: run.id, itemId: "q1", kind: "retrieve", requestHash: "h", latencyMs: 1 }
        const first = encodePassages([passage("a", "first text")])
        const changed = encodePassages([passage("a", "changed text")])
        yield* journal.appendAll([{ ...entry, seq: 1, response: first }, { ...entry, seq: 2, response: changed }])
        const entries = yield* journal.entries(run.id, "q1")
        assert.deepStrictEqual(entries.map((e) => e.response), [old, first, changed])
      }))

    it.effect("a passage that several questions of a run read is stored once for the run", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const journal = yield* Journal
        const sql = yield* SqlClient.SqlClient
        const run = yield* store.createRun({ manifest: manifest() })
        yield* store.addItems(run.id, [question("q1"), question("q2")])
        const shared = encodePassages([passage("shared", "read by both questions")])
        const entry = { runId: run.id, kind: "retrieve", requestHash: "h", latencyMs: 1, seq: 0, response: shared }
        yield* journal.append({ ...entry, itemId: "q1" })
        yield* journal.append({ ...entry, itemId: "q2" })
        const rows = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM passages WHERE run_id = ${run.id}`
        assert.strictEqual(Number(rows[0]!.n), 1)
        for (const itemId of ["q1", "q2"]) {
          assert.deepStrictEqual((yield* journal.entries(run.id, itemId)).map((e) => e.response), [shared])
        }
      }))
  })
