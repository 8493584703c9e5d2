import { decodeIssues, RunConfig } from "@deepnote-rag/core"
import { Data, Effect, Either, Schema } from "effect"
import { parseYaml } from "./YamlText.js"

/** A sweep file: `grid` maps config keys to the values to try; `base` holds settings shared by every cell. */
const SweepFile = Schema.Struct({
  grid: Schema.Record({ key: Schema.String, value: Schema.NonEmptyArray(Schema.Unknown) }),
  base: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  label: Schema.optional(Schema.String)
})

export class SweepError extends Data.TaggedError("SweepError")<{ readonly message: string }> {}

export interface SweepCellConfig {
  readonly index: number
  readonly cell: Record<string, unknown>
  readonly config: RunConfig
}

export interface ExpandedSweep {
  readonly label: string | undefined
  readonly grid: Record<string, ReadonlyArray<unknown>>
  readonly cells: ReadonlyArray<SweepCellConfig>
  /** Cells whose combination is invalid (e.g. maxFailure > maxStep), with the reason; they are not run. */
  readonly skipped: ReadonlyArray<{ readonly cell: Record<string, unknown>; readonly reason: string }>
}

const product = (grid: Record<string, ReadonlyArray<unknown>>): Array<Record<string, unknown>> =>
  Object.entries(grid).reduce<Array<Record<string, unknown>>>(
    (cells, [key, values]) => cells.flatMap((cell) => values.map((value) => ({ ...cell, [key]: value }))),
    [{}]
  )

/**
 * Expands a sweep file (YAML or JSON) over a base configuration (already merged from flags, file and environment):
 * every combination of the grid's values becomes a cell, validated as a RunConfig. e.g.
 * `grid: { maxStep: [1, 2, 3], maxFailure: [1, 2], profile: [deepnote, paper] }`.
 */
export const expandSweep = (text: string, file: string, base: Record<string, unknown>) =>
  Effect.gen(function*() {
    const parsed = yield* parseYaml(text).pipe(
      Either.mapLeft((problem) => new SweepError({ message: `${file}: not valid YAML/JSON (${problem})` }))
    )
    const sweep = yield* Schema.decodeUnknown(SweepFile)(parsed).pipe(
      Effect.mapError((e) =>
        new SweepError({
          message: `${file}: ${
            decodeIssues(e).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
              .join("; ")
          } (expected { grid: { key: [values…] }, base?: {…} })`
        })
      )
    )
    const cells: Array<SweepCellConfig> = []
    const skipped: Array<{ cell: Record<string, unknown>; reason: string }> = []
    for (const cell of product(sweep.grid)) {
      const decoded = Schema.decodeUnknownEither(RunConfig, { onExcessProperty: "error" })({
        ...base,
        ...sweep.base,
        ...cell
      })
      if (decoded._tag === "Right") cells.push({ index: cells.length, cell, config: decoded.right })
      else {skipped.push({
          cell,
          reason: decodeIssues(decoded.left).map((i) => i.message).join("; ")
        })}
    }
    if (cells.length === 0) {
      return yield* new SweepError({ message: `${file}: no valid cell (${skipped[0]?.reason ?? "empty grid"})` })
    }
    return { label: sweep.label, grid: sweep.grid, cells, skipped } satisfies ExpandedSweep
  })
