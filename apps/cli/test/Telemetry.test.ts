import { captureProxy, start } from "@deepnote-rag/llm-sim"
import { type ReceivedSpan, startOtlpReceiver } from "@deepnote-rag/telemetry/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { spawnCliScoped } from "./CrashHarness.js"
import { indexedHome, llmArgs, llmUrlArgs, resumeArgs, runCli, sampleAskArgs, sampleRunArgs } from "./RunCli.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
const parentOf = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan) =>
  spans.find((s) => s.spanId === span.parentSpanId)
const ancestors = (spans: ReadonlyArray<ReceivedSpan>, span: ReceivedSpan): Array<string> => {
  const parent = parentOf(spans, span)
  return parent === undefined ? [] : [parent.name, ...ancestors(spans, parent)]
}
const fileSpans = (file: string) =>
  readFileSync(file, "utf8").trim().split("\n").map((line) =>
    JSON.parse(line) as { spanId: string; parentSpanId?: string; name: string; attributes: Record<string, unknown> }
  )

const until = (condition: () => boolean, timeoutMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!condition() && Date.now() < deadline) yield* Effect.sleep("20 millis")
    return condition()
  })

describe("observability of the deepnote CLI (simulator, in-process OTLP receiver)", () => {
  it.scopedLive("ask: one span tree from the question to each LLM attempt over OTLP and in --trace-file, traceparent sent, metrics exported", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const sim = yield* start({})
      const proxy = yield* captureProxy(sim.url)
      const receiver = yield* startOtlpReceiver
      sim.faults.failNext(["503"])
      const traceFile = Path.join(home, "ask.jsonl")
      const out = yield* runCli(
        sampleAskArgs(
          question,
          home,
          ...llmArgs(`${proxy.url}/v1`, { cache: false }),
          "--max-step",
          "1",
          "--max-failure",
          "1",
          "--trace-file",
          traceFile
        ),
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "deepnote-test" }
      )
      assert.strictEqual(out.code, 0, out.stderr)
      const spans = receiver.spans()
      const names = new Set(spans.map((s) => s.name))
      for (
        const name of [
          "deepnote.question",
          "deepnote.step",
          "Retriever.search",
          "NoteWriter.init",
          "NoteWriter.update",
          "QueryPlanner.plan",
          "Judge.compare",
          "Answerer.answer",
          "LlmClient.chat",
          "LlmClient.attempt"
        ]
      ) {
        assert.isTrue(names.has(name), `span ${name} exported`)
      }
      const [root, ...others] = spans.filter((s) => s.name === "deepnote.question")
      assert.strictEqual(others.length, 0)
      assert.isUndefined(root!.parentSpanId)
      assert.isTrue(spans.every((s) => s.traceId === root!.traceId), "one trace per question")
      for (const s of spans.filter((x) => x.name === "deepnote.step")) {
        assert.strictEqual(parentOf(spans, s)?.name, "deepnote.question")
      }
      for (
        const s of spans.filter((x) =>
          ["Retriever.search", "NoteWriter.init", "NoteWriter.update", "QueryPlanner.plan", "Judge.compare"].includes(
            x.name
          )
        )
      ) {
        assert.strictEqual(parentOf(spans, s)?.name, "deepnote.step", `${s.name} under a step`)
      }
      // the answer call streams its tokens to the terminal (`ask` without --json): its span is LlmClient.chatStream
      for (const s of spans.filter((x) => x.name === "LlmClient.attempt")) {
        assert.include(["LlmClient.chat", "LlmClient.chatStream"], parentOf(spans, s)?.name)
      }
      assert.strictEqual(
        spans.find((s) => s.name === "LlmClient.chatStream")?.attributes["deepnote.role"],
        "answer",
        "the streamed call is the answer's"
      )
      assert.strictEqual(parentOf(spans, spans.find((s) => s.name === "Answerer.answer")!)?.name, "deepnote.question")

      // the injected 503: the first init call has two attempts, the first one says why and how long it backed off
      const initCall = spans.find((s) => s.name === "LlmClient.chat" && s.attributes["deepnote.role"] === "init")!
      const attempts = spans.filter((s) => s.parentSpanId === initCall.spanId).sort((a, b) =>
        Number(a.attributes["deepnote.llm.attempt"]) - Number(b.attributes["deepnote.llm.attempt"])
      )
      assert.deepStrictEqual(attempts.map((a) => a.attributes["http.response.status_code"]), [503, 200])
      assert.strictEqual(attempts[0]!.attributes["deepnote.llm.retry.reason"], "status 503")
      // OpenTelemetry's HTTP and GenAI conventions: the failed attempt is an ERROR with error.type; the call that
      // succeeded on its retry stays OK (status unset or 1), as does the attempt that succeeded
      assert.strictEqual(attempts[0]!.status.code, 2, "the 503 attempt has status ERROR")
      assert.strictEqual(attempts[0]!.attributes["error.type"], "503")
      assert.notStrictEqual(attempts[1]!.status.code, 2)
      assert.notStrictEqual(initCall.status.code, 2, "a retried-then-successful call is OK")
      // storage and journal internals make no spans unless DEEPNOTE_TRACE_INTERNALS=true
      assert.isEmpty(spans.filter((s) => /^(?:sql\.|RunStore\.|Journal\.|EventLog\.)/.test(s.name)).map((s) => s.name))
      assert.isAbove(Number(attempts[0]!.attributes["deepnote.llm.retry.backoff_ms"]), 0)
      assert.strictEqual(attempts[0]!.attributes["server.address"], proxy.url)
      assert.strictEqual(attempts[0]!.kind, 3, "client span")
      assert.strictEqual(initCall.attributes["gen_ai.request.model"], "deepnote-sim")
      assert.strictEqual(initCall.attributes["gen_ai.operation.name"], "chat")
      assert.strictEqual(initCall.attributes["gen_ai.system"], "openai")
      assert.isAbove(Number(initCall.attributes["gen_ai.usage.input_tokens"]), 0)
      assert.isAbove(Number(initCall.attributes["gen_ai.usage.output_tokens"]), 0)
      assert.strictEqual(initCall.attributes["deepnote.llm.attempts"], 2)
      assert.isUndefined(initCall.attributes["gen_ai.input.messages"], "no prompt text unless --trace-content")
      assert.isDefined(root!.attributes["deepnote.stop_reason"])
      assert.isDefined(
        spans.find((s) => s.name === "deepnote.step" && s.attributes["deepnote.step"] === 1)
          ?.attributes["deepnote.verdict"]
      )

      // traceparent: every generation request carries the trace id and the id of its attempt span
      const generation = proxy.completions().map((r) => ({ traceparent: r.headers["traceparent"] }))
      const attemptIds = new Set(spans.filter((s) => s.name === "LlmClient.attempt").map((s) => s.spanId))
      assert.strictEqual(generation.length, attemptIds.size)
      for (const r of generation) {
        const [, traceId, spanId] = (r.traceparent ?? "").split("-")
        assert.strictEqual(traceId, root!.traceId)
        assert.isTrue(attemptIds.has(spanId ?? ""), `traceparent ${r.traceparent} names an attempt span`)
      }

      const metrics = receiver.metrics()
      for (
        const name of [
          "deepnote_llm_calls_total",
          "deepnote_llm_attempts_total",
          "deepnote_llm_attempt_failures_total",
          "deepnote_llm_call_duration_ms",
          "deepnote_llm_attempt_duration_ms",
          "deepnote_llm_tokens_total",
          "deepnote_llm_in_flight",
          "deepnote_questions_total",
          "deepnote_question_duration_ms",
          "deepnote_steps_total",
          "deepnote_stop_reasons_total",
          "deepnote_retrieval_duration_ms",
          "deepnote_verdicts_total"
        ]
      ) {
        assert.isTrue(metrics.has(name), `metric ${name} exported`)
      }
      const failures = metrics.get("deepnote_llm_attempt_failures_total")!.points
      assert.deepStrictEqual(failures.map((p) => [p.attributes["class"], p.value]), [["http_overload", 1]])
      const questions = metrics.get("deepnote_questions_total")!.points
      assert.deepStrictEqual(questions.map((p) => [p.attributes["outcome"], p.value]), [["done", 1]])
      const tokens = metrics.get("deepnote_llm_tokens_total")!.points
      assert.isTrue(
        tokens.some((p) =>
          p.attributes["role"] === "answer" && p.attributes["model"] === "deepnote-sim" &&
          p.attributes["type"] === "output" && p.value > 0
        )
      )
      assert.strictEqual(
        metrics.get("deepnote_llm_in_flight")!.points.reduce((n, p) => n + p.value, 0),
        0,
        "nothing left in flight"
      )

      // the trace file holds the same spans; `deepnote trace FILE` renders the timeline
      const recorded = fileSpans(traceFile)
      assert.deepStrictEqual(recorded.map((s) => s.spanId).sort(), spans.map((s) => s.spanId).sort())
      const rendered = yield* runCli(["trace", traceFile])
      assert.strictEqual(rendered.code, 0, rendered.stderr)
      const lines = rendered.stdout.split("\n")
      assert.match(lines[0]!, /^question ask-[0-9a-f]{12} · ok · /)
      assert.isTrue(
        lines.some((l) =>
          /LlmClient\.attempt {2}attempt=1 endpoint=\S+ status=503 error=LlmHttpError retry=status 503 backoff_ms=\d+/
            .test(l)
        )
      )
      assert.isTrue(
        lines.some((l) =>
          /^\s+\+\S+ m?s\s+\S+ m?s {2}[█·]+\s{4}deepnote\.step {2}step=1 verdict=(better|not-better)$/.test(l)
        )
      )
      assert.isTrue(lines.some((l) => /Answerer\.answer/.test(l)))

      // prompt and completion text only with the switch (here from the environment)
      const contentFile = Path.join(home, "content.jsonl")
      const withContent = yield* runCli(
        sampleAskArgs(
          "Who directed Jaws?",
          home,
          ...llmArgs(`${sim.url}/v1`, { cache: false }),
          "--profile",
          "vanilla",
          "--trace-file",
          contentFile
        ),
        { DEEPNOTE_TRACE_CONTENT: "true" }
      )
      assert.strictEqual(withContent.code, 0, withContent.stderr)
      const answerCall = fileSpans(contentFile).find((s) => s.name === "LlmClient.chatStream")!
      assert.include(String(answerCall.attributes["gen_ai.input.messages"]), "Who directed Jaws?")
      assert.include(String(answerCall.attributes["gen_ai.output.messages"]), "assistant")

      // a cut line (e.g. a crash mid-write) is reported as file:line and skipped
      appendFileSync(traceFile, "{\"traceId\":\"abc")
      const again = yield* runCli(["trace", traceFile])
      assert.strictEqual(again.code, 0)
      assert.include(again.stderr, `deepnote: skipped ${traceFile}:${recorded.length + 1}: `)
      assert.strictEqual(again.stdout, rendered.stdout)
    }))

  it.scopedLive(
    "run: SIGINT mid-run still flushes the spans (OTLP and --trace-file); `deepnote trace RUN_ID` finds and renders them",
    () =>
      Effect.gen(function*() {
        const home = yield* indexedHome
        const sim = yield* start({ stepBaseMs: 6, tokensPerStep: 4 })
        const receiver = yield* startOtlpReceiver
        const traceFile = Path.join(home, "run-trace.jsonl")
        const cli = yield* spawnCliScoped(
          sampleRunArgs(
            home,
            ...llmArgs(`${sim.url}/v1`, { cache: false }),
            "--concurrency",
            "2",
            "--limit",
            "12",
            "--quiet",
            "--trace-file",
            traceFile
          ),
          { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
        )
        assert.isTrue(
          yield* until(() => sim.metrics.requests >= 12, 40_000),
          `the run made LLM calls; stderr: ${cli.stderr()}`
        )
        cli.process.kill("SIGINT")
        const code = yield* Effect.promise(() => cli.exited)
        assert.strictEqual(code, 130, cli.stderr())
        const runId = /run (\S+): 12 questions/.exec(cli.stdout())?.[1]
        assert.isDefined(runId, cli.stdout())

        const spans = receiver.spans()
        const runs = spans.filter((s) => s.name === "deepnote.run")
        assert.strictEqual(runs.length, 1, "the run span is exported on SIGINT")
        assert.isUndefined(runs[0]!.parentSpanId)
        assert.strictEqual(runs[0]!.attributes["deepnote.run.id"], runId)
        const questions = spans.filter((s) => s.name === "deepnote.question")
        assert.isAtLeast(questions.length, 2)
        // a run writes its store and journal all along, yet their internals make no spans by default
        assert.isEmpty(
          spans.filter((s) => /^(?:sql\.|RunStore\.|Journal\.|EventLog\.|WorkQueue\.)/.test(s.name)).map((s) => s.name)
        )
        for (const q of questions) {
          assert.include(ancestors(spans, q), "deepnote.run")
          assert.strictEqual(q.attributes["deepnote.run.id"], runId)
        }
        const inFlight = receiver.metrics().get("deepnote_run_items_in_flight")
        assert.strictEqual(
          inFlight?.points.reduce((n, p) => n + p.value, 0),
          0,
          `items left in flight; statuses ${JSON.stringify(questions.map((q) => q.status))}`
        )

        const recorded = fileSpans(traceFile)
        // the file holds every span of the execution (the whole run trace); OTLP also gets the command's other spans
        const inFile = new Set(recorded.map((s) => s.spanId))
        const exported = new Set(spans.map((s) => s.spanId))
        assert.isTrue(
          spans.filter((s) => s.traceId === runs[0]!.traceId).every((s) => inFile.has(s.spanId)),
          "the run's trace is in the file"
        )
        assert.isTrue(recorded.every((s) => exported.has(s.spanId)), "the file and OTLP agree")
        assert.isTrue(existsSync(Path.join(home, "traces", `${runId}.files`)), "the run lists its trace file")

        const summary = yield* runCli(["trace", runId!, "--home", home])
        assert.strictEqual(summary.code, 0, summary.stderr)
        assert.match(summary.stdout, new RegExp(`^run ${runId} execution · (ok|interrupted) · `))
        assert.match(summary.stdout, /item\s+status\s+duration/)
        const firstItem = String(questions[0]!.attributes["deepnote.item.id"])
        const one = yield* runCli(["trace", runId!, "--home", home, "--item", firstItem])
        assert.strictEqual(one.code, 0, one.stderr)
        assert.match(one.stdout, new RegExp(`^question ${firstItem} · run ${runId} · `))
        assert.include(one.stdout, "LlmClient.attempt")

        // resume with --trace: the rest of the run goes to <home>/traces/<run-id>.jsonl; `trace RUN_ID` reads both files
        const resumed = yield* runCli(
          resumeArgs(
            runId!,
            home,
            ...llmUrlArgs(`${sim.url}/v1`, { cache: false }),
            "--concurrency",
            "4",
            "--quiet",
            "--trace"
          )
        )
        assert.strictEqual(resumed.code, 0, resumed.stderr)
        assert.isTrue(existsSync(Path.join(home, "traces", `${runId}.jsonl`)))
        const both = yield* runCli(["trace", runId!, "--home", home])
        assert.strictEqual(both.code, 0, both.stderr)
        assert.strictEqual(both.stdout.split("\n").filter((l) => l.startsWith(`run ${runId} execution`)).length, 2)

        const unknown = yield* runCli(["trace", "no-such-run", "--home", home])
        assert.strictEqual(unknown.code, 1)
        assert.include(unknown.stderr, "is neither a trace file nor a run with recorded traces")
      }),
    { timeout: 180_000 }
  )
})
