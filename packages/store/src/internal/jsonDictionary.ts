/**
 * The preset dictionary of stored JSON values, format 1 (`storedJson.ts`): the keys and shapes that stored events,
 * results, journal responses and questions repeat, so that even a 200-byte event compresses. Deflate reads it as text
 * that "came before" each value; the most frequent parts are last (nearest).
 *
 * Never edit it: every value stored with format 1 needs these exact bytes to be read. A better dictionary is a new
 * format byte with its own constant, and readers keep this one.
 */
export const jsonDictionaryV1 = Buffer.from(
  [
    `{"id":"","text":"","answers":[""],"task":"multihop","language":"en","goldTitles":["",""],"goldPassages":[{"title":"","text":""}]}`,
    `{"questionId":"","question":"","profile":"deepnote","answer":{"text":""},"bestNote":{"text":""},"stopReason":"max-step",`,
    `"trace":{"queries":[{"step":1,"query":""}],"passages":[{"step":0,"passage":{"$passage":"","score":0}}],`,
    `"notes":[{"step":0,"note":{"text":{"$text":""}},"best":true},{"step":1,"note":{"text":{"$text":""}},`,
    `"verdict":{"better":false,"parsed":"structured","raw":"False"},"best":false}]},`,
    `"counters":{"llm":{"init":1,"plan":3,"update":3,"judge":3,"answer":1,"total":11},"retrievals":4,"steps":3,"failures":0,`,
    `"uniquePassages":20,"subqueries":{"retrieved":0,"parametric":0}},"elapsedMs":0,"traceId":""}`,
    `{"_tag":"Failed","questionId":"","step":0,"elapsedMs":0,"message":""}`,
    `{"_tag":"Stopped","questionId":"","step":3,"elapsedMs":0,"reason":"max-failure","failures":2}`,
    `{"_tag":"Answered","questionId":"","step":3,"elapsedMs":0,"answer":{"text":""},"durationMs":0}`,
    `{"_tag":"QueriesPlanned","questionId":"","step":1,"elapsedMs":0,"queries":["",""],"dropped":[],"durationMs":0}`,
    `{"_tag":"Judged","questionId":"","step":1,"elapsedMs":0,"verdict":{"better":true,"parsed":"structured","raw":"True"},`,
    `"failures":0,"durationMs":0}`,
    `{"_tag":"NoteUpdated","questionId":"","step":1,"elapsedMs":0,"note":{"text":{"$text":""}},"durationMs":0}`,
    `{"_tag":"NoteInitialised","questionId":"","step":0,"elapsedMs":0,"note":{"text":{"$text":""}},"durationMs":0}`,
    `{"_tag":"Retrieved","questionId":"","step":0,"elapsedMs":0,"queries":[""],"passages":[`,
    `{"$passage":"","score":0.03},{"$passage":"","score":0.03},{"$passage":"","score":0.03},`,
    `{"$passage":"","score":0.03},{"$passage":"","score":0.03}],"durationMs":0}`,
    `[{"$passage":"","score":0.03},{"$passage":"","score":0.03},{"$passage":"","score":0.03},{"$passage":"","score":0.03}]`
  ].join("")
)
