import { AnswerRecord } from "@deepnote-rag/core"
import { meiliErrors, meiliReplay } from "@deepnote-rag/retrieval/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { writeFileSync } from "node:fs"
import * as Path from "node:path"
import { runCli, sampleCorpus, sampleQuestions, tempHome } from "./RunCli.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"

/** One line on stderr, starting with "deepnote:", no stack trace. */
const oneLine = (stderr: string) => {
  assert.notMatch(stderr, /^\s+at /m, "stderr must not contain a stack trace")
  assert.match(stderr.trim(), /^deepnote: [^\n]+$/)
}

const indexArgs = (url: string, ...more: ReadonlyArray<string>) => [
  "index",
  ...sampleCorpus,
  "--backend",
  "meilisearch",
  "--meili-url",
  url,
  "--meili-index",
  "sample",
  ...more
]

describe("deepnote with Meilisearch (against a replay of Meilisearch v1's recorded replies)", () => {
  it.scopedLive("index --backend meilisearch, re-run (same ids replace), then ask and run --retriever meilisearch", () =>
    Effect.gen(function*() {
      const meili = yield* meiliReplay({ masterKey: "master-key-0123456789" })
      const env = { DEEPNOTE_MEILI_API_KEY: "master-key-0123456789" }
      const first = yield* runCli(indexArgs(meili.url), env)
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(
        first.stdout,
        `meilisearch index sample at ${meili.url}: 338 passages sent, 338 indexed, 0 invalid records, 338 in the index`
      )
      assert.include(first.stderr, "index [2/2] cmrc2018-paragraphs.jsonl: 100%")
      assert.strictEqual(meili.indexes.get("sample")!.primaryKey, "key")
      const again = yield* runCli(indexArgs(meili.url, "--json"), env)
      assert.strictEqual(again.code, 0, again.stderr)
      const summary = JSON.parse(again.stdout) as { sent: number; documents: number; language: string }
      assert.deepStrictEqual([summary.sent, summary.documents, summary.language], [338, 338, "en"])

      const home = yield* tempHome
      const asked = yield* runCli(
        ["ask", question, "--retriever", "meilisearch", "--meili-url", meili.url, "--meili-index", "sample"]
          .concat(["--home", home, "--json"]),
        env
      )
      assert.strictEqual(asked.code, 0, asked.stderr)
      const record = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(asked.stdout)
      assert.strictEqual(record.collection, "meilisearch:sample")
      assert.strictEqual(record.config.retriever, "meilisearch")
      assert.isAbove(record.result.trace.passages.length, 0)
      assert.isTrue(record.result.trace.passages.every((e) => e.passage.source === "meilisearch:sample"))
      assert.isAbove(record.result.answer.text.length, 0)

      // a run records the backend: the server without the key, the index and the version /version answered
      const ran = yield* runCli(
        ["run", "--dataset", sampleQuestions, "--limit", "2", "--retriever", "meilisearch", "--home", home, "-q"],
        { ...env, DEEPNOTE_MEILI_HOST: meili.url, DEEPNOTE_MEILI_INDEX: "sample" }
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      const runId = /^run (\S+):/m.exec(ran.stdout)![1]!
      const status = yield* runCli(["status", runId, "--json", "--home", home])
      const shown = JSON.parse(status.stdout) as {
        manifest: { indexId: string; servers: Array<{ endpoint: string; kind: string; version?: string }> }
      }
      assert.strictEqual(shown.manifest.indexId, `meilisearch:sample@${meili.url}`)
      assert.deepStrictEqual(shown.manifest.servers, [{ endpoint: meili.url, kind: "meilisearch", version: "1.50.0" }])
      assert.notInclude(status.stdout, "master-key")
    }))

  it.scopedLive("settings: --meili-url > the config file's meili section > DEEPNOTE_MEILI_* ; bad values exit 2", () =>
    Effect.gen(function*() {
      const meili = yield* meiliReplay()
      const home = yield* tempHome
      const config = Path.join(home, "deepnote.yaml")
      writeFileSync(config, `meili:\n  host: ${meili.url}\n  index: fromfile\n`)
      const env = { DEEPNOTE_MEILI_HOST: "http://127.0.0.1:9", DEEPNOTE_MEILI_INDEX: "fromenv" }
      const fromFile = yield* runCli(["index", sampleCorpus[1]!, "--backend", "meilisearch", "--config", config], env)
      assert.strictEqual(fromFile.code, 0, fromFile.stderr)
      assert.include(fromFile.stdout, "meilisearch index fromfile")
      assert.include(fromFile.stdout, "(zh settings")
      assert.deepStrictEqual(meili.indexes.get("fromfile")!.settings.localizedAttributes, [
        { attributePatterns: ["title", "text"], locales: ["cmn"] }
      ])
      const flagged = yield* runCli(
        ["index", sampleCorpus[1]!, "--backend", "meilisearch", "--config", config, "--meili-index", "fromflag"],
        env
      )
      assert.strictEqual(flagged.code, 0, flagged.stderr)
      assert.isTrue(meili.indexes.has("fromflag"))

      writeFileSync(config, "meili:\n  host: ftp://nowhere\n")
      const badFile = yield* runCli(["index", sampleCorpus[1]!, "--backend", "meilisearch", "--config", config])
      assert.strictEqual(badFile.code, 2)
      assert.include(badFile.stderr, `meili.host in ${config}: expected an http(s) URL`)
      writeFileSync(config, "meili:\n  hots: http://127.0.0.1:7700\n")
      const unknownKey = yield* runCli(["index", sampleCorpus[1]!, "--backend", "meilisearch", "--config", config])
      assert.strictEqual(unknownKey.code, 2)
      assert.include(unknownKey.stderr, "meili.hots")
      const badIndex = yield* runCli([
        "index",
        ...sampleCorpus,
        "--backend",
        "meilisearch",
        "--meili-url",
        meili.url,
        "--meili-index",
        "no spaces"
      ])
      assert.strictEqual(badIndex.code, 2, badIndex.stderr)
      assert.include(badIndex.stderr, "--meili-index: an index uid has only letters, digits, - and _")
      const usage = [
        ["index", ...sampleCorpus, "--backend", "meilisearch", "-c", "sample"],
        ["index", ...sampleCorpus],
        ["index", ...sampleCorpus, "-c", "x", "--language", "zh"],
        ["ask", question, "--meili-url", meili.url],
        // the HTTP server offers meilisearch only when the operator names a server
        ["serve", "--retriever", "meilisearch", "--port", "0"]
      ]
      for (const args of usage) {
        const out = yield* runCli([...args, "--home", home])
        assert.strictEqual(out.code, 2, `${args.join(" ")}: ${out.stderr}`)
        oneLine(out.stderr)
      }
    }))

  it.scopedLive("a failed task, an unreachable server and a missing or wrong key: exit 1 with one clear line", () =>
    Effect.gen(function*() {
      const failing = yield* meiliReplay({
        failTask: (type) => type === "documentAdditionOrUpdate" ? meiliErrors.noSpaceLeftOnDevice : undefined
      })
      const failed = yield* runCli(indexArgs(failing.url))
      assert.strictEqual(failed.code, 1)
      oneLine(failed.stderr.split("\n").filter((l) => !l.startsWith("index ")).join("\n"))
      assert.include(
        failed.stderr,
        "(documentAdditionOrUpdate on index sample) failed: No space left on device. (no_space_left_on_device)"
      )

      const down = yield* runCli(indexArgs("http://127.0.0.1:9"))
      assert.strictEqual(down.code, 1)
      oneLine(down.stderr)
      assert.include(down.stderr, "cannot reach Meilisearch at http://127.0.0.1:9 (ECONNREFUSED)")

      const keyed = yield* meiliReplay({ masterKey: "the-right-key" })
      const missing = yield* runCli(indexArgs(keyed.url))
      assert.strictEqual(missing.code, 1)
      oneLine(missing.stderr)
      assert.include(missing.stderr, "HTTP 401 missing_authorization_header")
      const wrong = yield* runCli([...indexArgs(keyed.url), "--meili-api-key", "a-wrong-key"])
      assert.strictEqual(wrong.code, 1)
      oneLine(wrong.stderr)
      assert.include(wrong.stderr, "(HTTP 403 invalid_api_key): The provided API key is invalid.")
      assert.notInclude(wrong.stderr, "a-wrong-key")

      const home = yield* tempHome
      const askDown = yield* runCli(
        ["ask", question, "--retriever", "meilisearch", "--meili-url", "http://127.0.0.1:9", "--home", home]
      )
      assert.strictEqual(askDown.code, 1)
      assert.include(askDown.stderr, "cannot reach Meilisearch at http://127.0.0.1:9")
    }))
})
