// The load both server benchmarks put on `POST /v1/ask`: autocannon sending `amount` requests over `connections`
// connections, each asking the next of `questions` (round-robin) of the collection `sample` with API key `key`.
import autocannon from "autocannon"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cliIn, root, tempDir } from "../lib/bench.mjs"

/**
 * A scratch home (the caller removes it) holding the sample HotpotQA collection as tenant `bench`'s `sample`, an API
 * key of that tenant, and the sample questions: what `askLoad` asks.
 */
export const sampleAskHome = () => {
  const home = tempDir()
  const deepnote = cliIn(home)
  deepnote("index", Path.join(root, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"), "--collection", "bench__sample")
  const { key } = JSON.parse(deepnote("keys", "create", "--tenant", "bench", "--json"))
  const questions = Fs.readFileSync(Path.join(root, "examples/sample/questions/hotpotqa.jsonl"), "utf8")
    .split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l).question)
  return { home, key, questions }
}

export const askLoad = ({ url, key, questions, connections, amount }) => {
  let next = 0
  return autocannon({
    url: `${url}/v1/ask`,
    method: "POST",
    connections,
    amount,
    timeout: 60,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    requests: [{
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({ question: questions[next++ % questions.length], collection: "sample" })
      })
    }]
  })
}
