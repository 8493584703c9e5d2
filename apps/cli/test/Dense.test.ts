import { AnswerRecord } from "@deepnote-rag/core"
import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Path from "node:path"
import { spawnCli } from "./CrashHarness.js"
import { repoRoot, runCli, tempHome } from "./RunCli.js"

const corpus = Path.join(repoRoot, "examples/sample/corpus/hotpotqa-paragraphs.jsonl")
const question = "Who directed Big Stone Gap?"

const EmbedSummary = Schema.Struct({ embedded: Schema.Number, vectors: Schema.Number, documents: Schema.Number })
const IndexWithEmbedding = Schema.Struct({
  documents: Schema.Number,
  embedding: Schema.Struct({ ...EmbedSummary.fields, model: Schema.String, dimensions: Schema.Number })
})

/** Waits (polling, no fixed sleep) until `condition` holds, for at most `timeoutMs`. */
const waitFor = (condition: () => boolean, timeoutMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error("condition not met in time"))
      yield* Effect.sleep("20 millis")
    }
  })

describe("deepnote index --embed, embed, ask --retriever (the simulator's /v1/embeddings)", () => {
  it.scopedLive("index --embed, then ask --retriever hybrid and dense; without an embeddings server, one line", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const home = yield* tempHome
      const env = { DEEPNOTE_EMBEDDINGS_URL: sim.url, DEEPNOTE_EMBEDDINGS_BATCH_SIZE: "32" }
      const indexed = yield* runCli(["index", corpus, "-c", "wiki", "--home", home, "--embed", "--json"], env)
      assert.strictEqual(indexed.code, 0, indexed.stderr)
      const summary = Schema.decodeUnknownSync(Schema.parseJson(IndexWithEmbedding))(indexed.stdout)
      assert.deepStrictEqual(
        [summary.embedding.embedded, summary.embedding.vectors, summary.embedding.model, summary.embedding.dimensions],
        [summary.documents, summary.documents, "deepnote-sim", 384]
      )
      assert.strictEqual(sim.metrics.poolingRequests, 1 + Math.ceil(summary.documents / 32), "the probe, then batches")

      for (const retriever of ["hybrid", "dense"]) {
        const before = sim.metrics.poolingRequests
        const asked = yield* runCli(
          ["ask", question, "-c", "wiki", "--home", home, "--retriever", retriever, "--json"],
          env
        )
        assert.strictEqual(asked.code, 0, asked.stderr)
        const record = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(asked.stdout)
        assert.strictEqual(record.config.retriever, retriever)
        assert.include(record.result.trace.passages.map((p) => p.passage.title).join(" | "), "Big Stone Gap")
        assert.isAbove(sim.metrics.poolingRequests, before)
      }

      const offline = yield* runCli(["ask", question, "-c", "wiki", "--home", home, "--retriever", "dense"])
      assert.strictEqual(offline.code, 1)
      assert.match(offline.stderr.trim(), /^deepnote: .*set DEEPNOTE_EMBEDDINGS_URL/)
      assert.strictEqual(offline.stderr.trim().split("\n").length, 1)
      const plain = yield* runCli(["index", corpus, "-c", "plain", "--home", home])
      assert.strictEqual(plain.code, 0, plain.stderr)
      const unembedded = yield* runCli(["ask", question, "-c", "plain", "--home", home, "--retriever", "hybrid"], env)
      assert.strictEqual(unembedded.code, 1)
      assert.match(
        unembedded.stderr.trim(),
        /^deepnote: collection "plain" has no vectors: embed it with `deepnote embed plain`/
      )
      assert.strictEqual(unembedded.stderr.trim().split("\n").length, 1)
    }))

  it.scopedLive("embed killed with SIGKILL mid-way resumes without sending a committed batch again", () =>
    Effect.gen(function*() {
      // ≥ 100 ms per request (a round of 4 in flight), so the kill lands well before the 33 requests are done
      const sim = yield* start({ content: "lite", stepBaseMs: 100 })
      const home = yield* tempHome
      const indexed = yield* runCli(["index", corpus, "-c", "wiki", "--home", home])
      assert.strictEqual(indexed.code, 0, indexed.stderr)
      const env = {
        DEEPNOTE_EMBEDDINGS_URL: sim.url,
        DEEPNOTE_EMBEDDINGS_BATCH_SIZE: "10",
        // no probe request: every request counted below is a batch
        DEEPNOTE_EMBEDDINGS_DIMENSIONS: "384"
      }
      const first = spawnCli(["embed", "wiki", "--home", home], env)
      yield* waitFor(() => sim.metrics.poolingRequests >= 6, 60_000)
      first.process.kill("SIGKILL")
      yield* Effect.promise(() => first.exited)
      const sentBefore = sim.metrics.poolingRequests

      const resumed = yield* runCli(["embed", "wiki", "--home", home, "--json"], env)
      assert.strictEqual(resumed.code, 0, resumed.stderr)
      const summary = Schema.decodeUnknownSync(Schema.parseJson(EmbedSummary))(resumed.stdout)
      const committedBefore = summary.documents - summary.embedded
      assert.strictEqual(summary.vectors, summary.documents, "every passage has its vector")
      assert.isAbove(committedBefore, 0, "the killed run had committed batches")
      assert.isBelow(committedBefore, summary.documents, "and was killed before the end")
      const sentAfter = sim.metrics.poolingRequests - sentBefore
      assert.strictEqual(sentAfter, Math.ceil(summary.embedded / 10), "only the passages left were sent")
      // DEEPNOTE_EMBEDDINGS_CONCURRENCY (4) requests in flight: at most those were lost with the process
      assert.isAtMost(sentBefore - committedBefore / 10, 4, "at most the batches in flight at the kill were lost")

      const again = yield* runCli(["embed", "wiki", "--home", home, "--json"], env)
      assert.strictEqual(Schema.decodeUnknownSync(Schema.parseJson(EmbedSummary))(again.stdout).embedded, 0)
      assert.strictEqual(sim.metrics.poolingRequests - sentBefore, sentAfter, "a finished collection sends nothing")
    }))
})
