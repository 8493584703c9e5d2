import type { IngestJob } from "@deepnote-rag/api"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"
import { baseUrl, clientWith, homeWithTenant, raw, settings, testServer } from "./Harness.js"

type Client = Effect.Effect.Success<ReturnType<typeof clientWith>>

const finished = (client: Client, name: string, jobId: string) =>
  Effect.gen(function*() {
    let job: IngestJob = yield* client.collections.job({ path: { name, jobId } })
    while (job.status === "queued" || job.status === "running") {
      yield* Effect.sleep("20 millis")
      job = yield* client.collections.job({ path: { name, jobId } })
    }
    return job
  })

/** 300 plain questions, one per line. */
const dataset = Array.from(
  { length: 300 },
  (_, i) => JSON.stringify({ id: `q${i + 1}`, question: `Who directed film number ${i + 1}?`, answers: ["x"] })
).join("\n") + "\n"
const sha256 = createHash("sha256").update(dataset).digest("hex")

const uploadDataset = (key: string, query = "") =>
  raw(
    HttpClientRequest.post(`/v1/runs?collection=wiki${query}`).pipe(
      HttpClientRequest.bodyText(dataset, "application/x-ndjson")
    ),
    key
  )

/** Leftover temporary files under the tenant's uploads. */
const partFiles = (home: string) =>
  Fs.readdirSync(Path.join(home, "uploads"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".part"))

/** A chunked body (no Content-Length) of `bytes` bytes, sent with Node's client: status and body text. */
const chunkedPost = (url: string, key: string, bytes: number) =>
  Effect.async<{ readonly status: number; readonly text: string }, Error>((resume) => {
    const request = Http.request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" }
    }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
    })
    request.on("error", (e) => resume(Effect.fail(e)))
    const line = Buffer.from(`${JSON.stringify({ title: "t", text: "x".repeat(1000) })}\n`)
    let sent = 0
    const write = () => {
      while (sent < bytes) {
        sent += line.length
        if (!request.write(line)) return void request.once("drain", write)
      }
      request.end()
    }
    write()
  })

describe("uploads", () => {
  it.scopedLive(
    "a dataset upload is stored under its SHA-256 with a receipt; a torn stored copy is rewritten",
    () =>
      Effect.gen(function*() {
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const data = settings({ limits: { maxConcurrentRuns: 10 } })
        return yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          const stopped = (id: string) =>
            Effect.gen(function*() {
              let view = yield* client.runs.cancel({ path: { id } })
              while (view.active) {
                yield* Effect.sleep("20 millis")
                view = yield* client.runs.get({ path: { id } })
              }
            })
          const first = yield* uploadDataset(key)
          assert.strictEqual(first.status, 202, first.text)
          assert.strictEqual(JSON.parse(first.text).counts.total, 300)
          yield* stopped(JSON.parse(first.text).id)

          const file = Path.join(home, "uploads", "acme", `${sha256}.jsonl`)
          assert.strictEqual(Fs.readFileSync(file, "utf8"), dataset)
          const receipt = JSON.parse(Fs.readFileSync(`${file}.receipt.json`, "utf8"))
          assert.strictEqual(receipt.sha256, sha256)
          assert.strictEqual(receipt.bytes, Buffer.byteLength(dataset))
          assert.isString(receipt.receivedAt)
          assert.deepStrictEqual(partFiles(home), [])

          // a write cut off in the middle of line 108 (as a crash did before uploads were renamed into place)
          const line108 = dataset.split("\n").slice(0, 107).join("\n").length + 20
          Fs.truncateSync(file, line108)
          const again = yield* uploadDataset(key, "&skipBadLines=true")
          assert.strictEqual(again.status, 202, again.text)
          assert.strictEqual(JSON.parse(again.text).counts.total, 300, "the full dataset, not the 107 lines left")
          yield* stopped(JSON.parse(again.text).id)
          assert.strictEqual(Fs.readFileSync(file, "utf8"), dataset)

          // the same without a receipt (a copy stored by an older server), cut inside a line
          Fs.rmSync(`${file}.receipt.json`)
          Fs.truncateSync(file, line108)
          const third = yield* uploadDataset(key)
          assert.strictEqual(third.status, 202, third.text)
          assert.strictEqual(JSON.parse(third.text).counts.total, 300)
          yield* stopped(JSON.parse(third.text).id)
          assert.strictEqual(JSON.parse(Fs.readFileSync(`${file}.receipt.json`, "utf8")).sha256, sha256)

          // an intact copy is reused as it is
          const before = Fs.statSync(file).ino
          const fourth = yield* uploadDataset(key)
          assert.strictEqual(JSON.parse(fourth.text).counts.total, 300)
          yield* stopped(JSON.parse(fourth.text).id)
          assert.strictEqual(Fs.statSync(file).ino, before)
          assert.deepStrictEqual(partFiles(home), [])
        }).pipe(Effect.provide(testServer(home, data)))
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "documents: counts at 202, bad records named by line in the job, binary and empty bodies refused",
    () =>
      Effect.gen(function*() {
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        // what a stop in the middle of uploads leaves: a body being received, a document upload whose job was cut off
        const spool = Path.join(home, "uploads", "acme", "documents")
        Fs.mkdirSync(spool, { recursive: true })
        Fs.writeFileSync(Path.join(home, "uploads", "acme", ".upload.0123.part"), `{"question":`)
        Fs.writeFileSync(Path.join(spool, "d-0123.jsonl"), `{"text":"cut off"}\n`)
        // left by a stop two hours ago (files of a live replica's uploads in progress are recent and stay)
        const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
        Fs.utimesSync(Path.join(home, "uploads", "acme", ".upload.0123.part"), twoHoursAgo, twoHoursAgo)
        Fs.utimesSync(Path.join(spool, "d-0123.jsonl"), twoHoursAgo, twoHoursAgo)
        Fs.writeFileSync(Path.join(home, "uploads", "acme", ".upload.4567.part"), `{"question":`)
        return yield* Effect.gen(function*() {
          assert.deepStrictEqual(partFiles(home), ["acme/.upload.4567.part"], "abandoned ones swept at startup")
          Fs.rmSync(Path.join(home, "uploads", "acme", ".upload.4567.part"))
          assert.isFalse(Fs.existsSync(Path.join(spool, "d-0123.jsonl")))
          const client = yield* clientWith(key)
          yield* client.collections.create({ payload: { name: "docs" } })
          const post = (body: string | Uint8Array, contentType = "application/x-ndjson") =>
            raw(
              HttpClientRequest.post("/v1/collections/docs/documents").pipe(
                typeof body === "string"
                  ? HttpClientRequest.bodyText(body, contentType)
                  : HttpClientRequest.bodyUint8Array(body, contentType)
              ),
              key
            )

          const lines = [
            `{"id":"a","title":"Ada","text":"Ada Lovelace wrote the first program."}`,
            `{"id":"b","text":`,
            `{"id":"c","text":"   "}`,
            ``,
            `{"id":"${"d".repeat(300)}","text":"too long an id"}`,
            `{"id":"e","text":"fine"}`
          ]
          const bad = yield* post(lines.join("\n"))
          assert.strictEqual(bad.status, 202, bad.text)
          assert.strictEqual(JSON.parse(bad.text).received, 5, "blank lines are not records")
          const refused = yield* finished(client, "docs", JSON.parse(bad.text).id)
          assert.strictEqual(refused.status, "failed")
          const message = refused.message ?? ""
          assert.include(message, "3 invalid records, nothing was added")
          assert.include(message, "line 2: invalid JSON")
          assert.include(message, "line 3: text: text is empty")
          assert.include(message, "line 5: id: ")
          assert.strictEqual(refused.added, 0)
          assert.strictEqual((yield* client.collections.get({ path: { name: "docs" } })).documents, 0)

          const array = yield* post(
            JSON.stringify([{ text: "one" }, { title: "x", text: "" }, "three"]),
            "application/json"
          )
          assert.strictEqual(JSON.parse(array.text).received, 3)
          const arrayJob = yield* finished(client, "docs", JSON.parse(array.text).id)
          assert.include(arrayJob.message ?? "", "documents[1]: text: text is empty")
          assert.include(arrayJob.message ?? "", "documents[2]: ")

          const binary = yield* post(new Uint8Array([123, 34, 116, 0, 1, 2, 255, 254, 10]))
          assert.strictEqual(binary.status, 400, binary.text)
          assert.strictEqual(JSON.parse(binary.text).error.code, "validation_error")
          assert.include(JSON.parse(binary.text).error.message, "not UTF-8 text (NUL byte at offset 3)")
          const latin1 = yield* post(Buffer.from(`{"text":"caf\xe9"}\n`, "latin1"))
          assert.strictEqual(latin1.status, 400, latin1.text)
          assert.include(JSON.parse(latin1.text).error.message, "not UTF-8 text")
          assert.strictEqual((yield* post("\n \n")).status, 400)
          assert.strictEqual((yield* post("[]", "application/json")).status, 400)

          const good = yield* post(`${lines[0]}\n\r\n${lines[5]}\r\n`)
          assert.strictEqual(JSON.parse(good.text).received, 2)
          const done = yield* finished(client, "docs", JSON.parse(good.text).id)
          assert.deepStrictEqual([done.status, done.added, done.skipped], ["done", 2, 0])
          const repeated = yield* finished(client, "docs", JSON.parse((yield* post(lines[0]!)).text).id)
          assert.deepStrictEqual([repeated.status, repeated.added, repeated.skipped], ["done", 0, 1])
          const hits = yield* client.collections.search({ path: { name: "docs" }, urlParams: { q: "Lovelace" } })
          assert.strictEqual(hits.hits[0]?.id, "a")
          // every stored upload is gone once its job ended, and a refused one was never kept
          assert.deepStrictEqual(Fs.readdirSync(Path.join(home, "uploads", "acme", "documents")), [])
          assert.deepStrictEqual(partFiles(home), [])
        }).pipe(Effect.provide(testServer(home)))
      }),
    { timeout: 60_000 }
  )

  it.scopedLive("over-limit chunked uploads get a readable 413 and leave nothing behind", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      const data = settings({ limits: { maxUploadBytes: 256 * 1024 } })
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        yield* client.collections.create({ payload: { name: "docs" } })
        const url = yield* baseUrl
        for (const path of ["/v1/collections/docs/documents", "/v1/runs?collection=wiki"]) {
          const response = yield* chunkedPost(`${url}${path}`, key, 2 * 1024 * 1024)
          assert.strictEqual(response.status, 413, path)
          assert.strictEqual(JSON.parse(response.text).error.code, "payload_too_large")
        }
        assert.deepStrictEqual(partFiles(home), [])
        const small = yield* chunkedPost(`${url}/v1/collections/docs/documents`, key, 100 * 1024)
        assert.strictEqual(small.status, 202, small.text)
        const job = yield* finished(client, "docs", JSON.parse(small.text).id)
        assert.strictEqual(job.status, "done")
        assert.strictEqual(job.added, 1, "the same document a hundred times")
      }).pipe(Effect.provide(testServer(home, data)))
    }), { timeout: 60_000 })
})
