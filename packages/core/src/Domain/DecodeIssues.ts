import { ParseResult } from "effect"

/**
 * The issues of a decode failure as `ParseResult.ArrayFormatter` lists them, without the ones that only say an optional
 * (or nullable) field could also have been absent (or null). `Schema.optional(X)` accepts `X | undefined`, so a bad
 * value there fails every member of the union: `{ topK: 0 }` gave "topK must be a positive integer", then "Expected
 * undefined, actual 0" for `topK` and "Expected undefined, actual {"topK":0}" for the object holding it; OpenAI's
 * `stream: "yes"` gave "Expected boolean", "Expected null" and "Expected undefined" — only the first describes the
 * user's mistake. Such an issue is dropped when another issue lies at its path or below it; alone, it is kept.
 */
export const decodeIssues = (error: ParseResult.ParseError): ReadonlyArray<ParseResult.ArrayFormatterIssue> =>
  withoutAbsentAlternatives(ParseResult.ArrayFormatter.formatErrorSync(error))

/**
 * A decode failure in one line: its first issue's path and message (`choices: is missing`), not the formatter's tree —
 * whose first line describes the expected schema's type, not what was received.
 */
export const firstDecodeIssue = (error: ParseResult.ParseError, root = "value"): string => {
  const [issue] = decodeIssues(error)
  return issue === undefined ? error.message : `${issue.path.join(".") || root}: ${issue.message}`
}

/** `decodeIssues` for issues already formatted (e.g. those of an `HttpApiDecodeError`). */
export const withoutAbsentAlternatives = (
  issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>
): ReadonlyArray<ParseResult.ArrayFormatterIssue> =>
  issues.filter((issue) =>
    !(isAbsentAlternative(issue) && issues.some((other) => other !== issue && isAtOrBelow(other.path, issue.path)))
  )

const isAbsentAlternative = (issue: ParseResult.ArrayFormatterIssue): boolean =>
  issue._tag === "Type" &&
  (issue.message.startsWith("Expected undefined, actual ") || issue.message.startsWith("Expected null, actual "))

const isAtOrBelow = (path: ReadonlyArray<PropertyKey>, prefix: ReadonlyArray<PropertyKey>): boolean =>
  path.length >= prefix.length && prefix.every((key, i) => path[i] === key)
