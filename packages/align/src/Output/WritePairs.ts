import {
  type AlignItemResult,
  type AlignMix,
  type AlignRole,
  alignRoles,
  PreferencePair,
  type RoleOutcome
} from "@deepnote-rag/core"
import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option, Schema, Stream } from "effect"
import { writeLinesAtomically } from "./AtomicFile.js"
import { keptPairs, mixCounts, type RoleCounts } from "./Mix.js"
import { addResult, type AlignSummary, emptySummary, pairCounts } from "./Summary.js"

export interface PairsOutput {
  /** The JSONL file; with `splitRoles`, one file per role beside it (`pairs.init.jsonl`, …). */
  readonly path: string
  readonly splitRoles: boolean
  readonly mix: AlignMix
  /** The seed the mix draws with. */
  readonly seed: number
  readonly roles: ReadonlyArray<AlignRole>
}

export interface WrittenFile {
  readonly path: string
  /** The role of a per-role file. */
  readonly role?: AlignRole | undefined
  readonly pairs: number
}

export interface Written {
  readonly summary: AlignSummary
  /** Pairs made, and pairs written after the mix. */
  readonly available: RoleCounts
  readonly kept: RoleCounts
  readonly files: ReadonlyArray<WrittenFile>
}

/** `pairs.jsonl` → `pairs.init.jsonl` (a name without `.jsonl` gets `.init.jsonl` appended). */
export const rolePath = (path: string, role: AlignRole): string =>
  path.endsWith(".jsonl") ? `${path.slice(0, -".jsonl".length)}.${role}.jsonl` : `${path}.${role}.jsonl`

const encode = Schema.encodeSync(PreferencePair)

const unnumbered: Record<AlignRole, number> = { init: 0, plan: 0, update: 0, answer: 0 }

/** The pairs of a stream of results, in order, each numbered within its role. */
const numberedPairs = <E, R>(results: Stream.Stream<AlignItemResult, E, R>) =>
  results.pipe(
    Stream.mapConcat((r) =>
      r.outcomes.filter((o): o is RoleOutcome & { pair: PreferencePair } => o.pair !== undefined)
    ),
    Stream.mapAccum(unnumbered, (seen, outcome) => {
      const index = seen[outcome.role]
      return [{ ...seen, [outcome.role]: index + 1 }, { role: outcome.role, index, pair: outcome.pair }]
    })
  )

/**
 * Writes a run's pairs as JSONL in TRL's conversational format (`{prompt, chosen, rejected, role, meta}`, each record
 * validated by its schema on the way out): one pass tallies the results (pairs per role, drops, agreement), the mix
 * decides how many of each role to keep and which (by seed), a second pass writes them in question order. `results`
 * is read once per pass (once per file with `splitRoles`), so nothing is held in memory but the tally.
 */
export const writePairs = <E, R>(
  results: () => Stream.Stream<AlignItemResult, E, R>,
  output: PairsOutput
): Effect.Effect<Written, E | PlatformError, FileSystem.FileSystem | R> =>
  Effect.gen(function*() {
    const summary = yield* Stream.runFold(results(), emptySummary(output.roles), addResult)
    const available = pairCounts(summary)
    const kept = mixCounts(available, output.mix)
    const keep: Record<AlignRole, ReadonlySet<number>> = {
      init: keptPairs("init", available.init, kept.init, output.seed),
      plan: keptPairs("plan", available.plan, kept.plan, output.seed),
      update: keptPairs("update", available.update, kept.update, output.seed),
      answer: keptPairs("answer", available.answer, kept.answer, output.seed)
    }
    const lines = (only: AlignRole | undefined) =>
      numberedPairs(results()).pipe(
        Stream.filterMap((p) =>
          (only === undefined || p.role === only) && keep[p.role].has(p.index)
            ? Option.some(JSON.stringify(encode(p.pair)))
            : Option.none()
        )
      )
    const targets: ReadonlyArray<{ readonly path: string; readonly role: AlignRole | undefined }> = output.splitRoles
      ? alignRoles.filter((r) => output.roles.includes(r)).map((role) => ({ path: rolePath(output.path, role), role }))
      : [{ path: output.path, role: undefined }]
    const files = yield* Effect.forEach(targets, (target) =>
      Effect.map(writeLinesAtomically(target.path, lines(target.role)), (pairs) => ({ ...target, pairs })))
    return { summary, available, kept, files }
  })
