import { type SweepState, sweepState } from "@deepnote-rag/runs"
import { type Run, RunStore, type StoreError, Sweeps } from "@deepnote-rag/store"
import { Effect } from "effect"
import { CommandFailed } from "../Errors.js"

/** What an id on the command line names: a run, or a sweep with its cells. */
export type RunOrSweep =
  | { readonly _tag: "run"; readonly run: Run }
  | { readonly _tag: "sweep"; readonly state: SweepState }

/** The message every command gives for an id that is neither a run nor a sweep. */
export const unknownId = (id: string) =>
  new CommandFailed({
    message: `unknown ${
      id.startsWith("s-") ? "sweep" : "run"
    } id "${id}" (no run or sweep has it; see \`deepnote status\`)`
  })

/** Looks an id up as a run, else as a sweep; neither is one clear line (exit 1). */
export const runOrSweep = (id: string): Effect.Effect<RunOrSweep, CommandFailed | StoreError, RunStore | Sweeps> =>
  Effect.gen(function*() {
    const store = yield* RunStore
    return yield* store.getRun(id).pipe(
      Effect.map((run): RunOrSweep => ({ _tag: "run", run })),
      Effect.catchTag("RunNotFound", () =>
        sweepState(id).pipe(
          Effect.map((state): RunOrSweep => ({ _tag: "sweep", state })),
          Effect.catchTag("SweepNotFound", () => Effect.fail(unknownId(id)))
        ))
    )
  })
