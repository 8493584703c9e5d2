#!/usr/bin/env node
// The floor a run's LLM calls cost a client: the requests one `deepnote run` sent (captured by `run.mjs` through the
// simulator's `captureProxy`), sent again with nothing else — no prompts built, no retrieval, no store, no Effect —
// over undici (the package the LLM client sends through) with the same number in flight, each reply read whole and its
// JSON decoded (a streamed reply: its SSE events). Run by `run.mjs` under /usr/bin/time, beside each repetition, as the
// same-run reference for the machine's speed.
//
//   node benchmarks/cpu/bare-client.mjs REQUESTS.jsonl SIM_URL CONCURRENCY
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { root } from "../lib/bench.mjs"

const [file, url, inFlight] = process.argv.slice(2)
// the undici @effect/platform-node sends the LLM client's requests through, not Node's own copy behind fetch
const platformNode = createRequire(Path.join(root, "packages/llm/package.json")).resolve("@effect/platform-node/package.json")
const { Pool } = createRequire(platformNode)("undici")
const requests = Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
const pool = new Pool(url, { connections: Number(inFlight) })
const headers = { "content-type": "application/json" }

const send = async ({ path, body }) => {
  const reply = await pool.request({ path, method: "POST", headers, body })
  const text = await reply.body.text()
  if (reply.statusCode !== 200) throw new Error(`${path}: status ${reply.statusCode}: ${text.slice(0, 200)}`)
  if (text.startsWith("data:")) {
    for (const event of text.split("\n\n")) {
      const data = event.slice(5).trim()
      if (data !== "" && data !== "[DONE]") JSON.parse(data)
    }
  } else if (!Array.isArray(JSON.parse(text).choices)) throw new Error(`${path}: a reply without choices`)
}

let next = 0
const worker = async () => {
  while (next < requests.length) await send(requests[next++])
}
await Promise.all(Array.from({ length: Number(inFlight) }, worker))
await pool.close()
console.log(JSON.stringify({ requests: requests.length }))
