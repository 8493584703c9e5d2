import { Cause, Exit, Option, Schema, type Tracer } from "effect"

/** An attribute value as stored in a trace file: a JSON scalar or a list of them. */
export const AttributeValue = Schema.Union(
  Schema.String,
  Schema.Number,
  Schema.Boolean,
  Schema.Array(Schema.Union(Schema.String, Schema.Number, Schema.Boolean))
)
export type AttributeValue = typeof AttributeValue.Type

export const Attributes = Schema.Record({ key: Schema.String, value: AttributeValue })
export type Attributes = typeof Attributes.Type

export class SpanEventRecord extends Schema.Class<SpanEventRecord>("SpanEventRecord")({
  name: Schema.String,
  timeUnixNano: Schema.BigInt,
  attributes: Attributes
}) {}

export const SpanStatus = Schema.Literal("ok", "error", "interrupted")
export type SpanStatus = typeof SpanStatus.Type

/**
 * One finished span: one line of a trace file (`--trace-file`). Times are Unix epoch nanoseconds written as decimal
 * strings (as in OTLP/JSON); `durationMs` is there for people reading the file with `jq`.
 */
export class SpanRecord extends Schema.Class<SpanRecord>("SpanRecord")({
  traceId: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/)),
  spanId: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/)),
  parentSpanId: Schema.optional(Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/))),
  name: Schema.String,
  kind: Schema.Literal("internal", "server", "client", "producer", "consumer"),
  startTimeUnixNano: Schema.BigInt,
  endTimeUnixNano: Schema.BigInt,
  durationMs: Schema.Number,
  status: SpanStatus,
  statusMessage: Schema.optional(Schema.String),
  attributes: Attributes,
  events: Schema.Array(SpanEventRecord)
}) {}

const scalar = (value: unknown): string | number | boolean =>
  typeof value === "string" || typeof value === "boolean" ?
    value
    : typeof value === "number" ?
    (Number.isFinite(value) ? value : String(value))
    : typeof value === "bigint" ?
    value.toString()
    : value instanceof Date ?
    value.toISOString()
    : typeof value === "object" && value !== null ?
    safeJson(value)
    : String(value)

const safeJson = (value: object): string => {
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}

/** A span or event attribute, made JSON-safe (bigints and objects become strings, `undefined` is dropped). */
export const toAttributeValue = (value: unknown): AttributeValue | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(scalar) : scalar(value)

export const toAttributes = (entries: Iterable<readonly [string, unknown]>): Attributes => {
  const out: Record<string, AttributeValue> = {}
  for (const [key, value] of entries) {
    const converted = toAttributeValue(value)
    if (converted !== undefined) out[key] = converted
  }
  return out
}

const statusOf = (exit: Exit.Exit<unknown, unknown>): { status: SpanStatus; statusMessage?: string } => {
  if (Exit.isSuccess(exit)) return { status: "ok" }
  if (Cause.isInterruptedOnly(exit.cause)) return { status: "interrupted" }
  const first = Cause.prettyErrors(exit.cause)[0]
  return {
    status: "error",
    ...(first === undefined ? {} : { statusMessage: first.message.split("\n")[0] ?? first.message })
  }
}

/** The record of an ended span; `events` are the ones the span received (the Span interface does not expose them). */
export const spanRecordOf = (
  span: Tracer.Span,
  endTime: bigint,
  exit: Exit.Exit<unknown, unknown>,
  events: ReadonlyArray<SpanEventRecord>
): SpanRecord => {
  const startTime = span.status.startTime
  return new SpanRecord({
    traceId: span.traceId,
    spanId: span.spanId,
    ...Option.match(span.parent, { onNone: () => ({}), onSome: (parent) => ({ parentSpanId: parent.spanId }) }),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: startTime,
    endTimeUnixNano: endTime,
    durationMs: Number(endTime - startTime) / 1e6,
    ...statusOf(exit),
    attributes: toAttributes(span.attributes),
    events
  })
}

/** One line of a trace file (no trailing newline). */
export const encodeSpanLine = (record: SpanRecord): string => JSON.stringify(Schema.encodeSync(SpanRecord)(record))
