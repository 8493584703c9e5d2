// The load both server benchmarks put on `POST /v1/ask`: autocannon sending `amount` requests over `connections`
// connections, each asking the next of `questions` (round-robin) of the collection `sample` with API key `key`.
import autocannon from "autocannon"

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
