import { summaryLines } from "@deepnote-rag/align"
import type { AlignMix, AlignOutput } from "@deepnote-rag/core"
import { writeAlignOutput } from "@deepnote-rag/runs"
import { Console, Effect } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"

/**
 * Writes an align run's pairs and dataset card (`writeAlignOutput`), then prints what was made per role and where it
 * went: `init: 61 pairs of 84 questions (23 dropped: …)`, then `wrote N pairs to FILE (card: FILE)`.
 */
export const writeAndReport = (
  runId: string,
  override: { readonly output?: AlignOutput | undefined; readonly mix?: AlignMix | undefined } = {}
) =>
  writeAlignOutput(runId, override).pipe(
    Effect.tap(({ card, written }) =>
      Effect.gen(function*() {
        for (const line of summaryLines(written.summary)) yield* Console.log(`  ${line}`)
        for (const file of written.files) {
          yield* Console.log(`wrote ${file.pairs} pairs to ${file.path}`)
        }
        yield* Console.log(`dataset card: ${card}`)
      })
    ),
    Effect.catchTags({
      NotAlignRun: (e) => Effect.fail(new UsageError({ message: e.message })),
      BadArgument: (e) => Effect.fail(new CommandFailed({ message: `cannot write the pairs: ${e.message}` })),
      SystemError: (e) => Effect.fail(new CommandFailed({ message: `cannot write the pairs: ${e.message}` }))
    })
  )
