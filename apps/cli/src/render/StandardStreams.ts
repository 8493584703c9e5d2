import { NodeSink } from "@effect/platform-node"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Layer, Sink } from "effect"

/**
 * The command's stdout and stderr beyond `Console`: whether each is a terminal, stderr written as it is (progress bars,
 * live tokens, log lines — no newline added), and stdout as a sink that waits for its reader (`deepnote export`). What a
 * command prints as its result goes through `Console`. One place, so that a command line can run inside another
 * process with both captured (the CLI's tests, apps/cli/test/RunCli.ts).
 */
export interface StandardStreamsService {
  readonly stdoutIsTty: boolean
  /** The terminal's width, when stdout is one. */
  readonly stdoutColumns: number | undefined
  readonly stderrIsTty: boolean
  /** Writes `text` to stderr as it is. */
  readonly writeStderr: (text: string) => void
  /** stdout, at its reader's pace. */
  readonly stdoutSink: Sink.Sink<void, string | Uint8Array, never, PlatformError>
}

export class StandardStreams extends Context.Tag("@deepnote-rag/cli/StandardStreams")<
  StandardStreams,
  StandardStreamsService
>() {
  /** The process's own streams. */
  static readonly make: Effect.Effect<StandardStreamsService> = Effect.sync(() =>
    StandardStreams.of({
      stdoutIsTty: process.stdout.isTTY === true,
      stdoutColumns: process.stdout.isTTY === true ? process.stdout.columns : undefined,
      stderrIsTty: process.stderr.isTTY === true,
      writeStderr: (text) => void process.stderr.write(text),
      stdoutSink: NodeSink.stdout
    })
  )

  static readonly layer: Layer.Layer<StandardStreams> = Layer.effect(StandardStreams, StandardStreams.make)

  /** Streams that are not terminals, stderr and stdout going where `impl` says (nowhere by default). */
  static readonly layerTest = (impl: Partial<StandardStreamsService>): Layer.Layer<StandardStreams> =>
    Layer.succeed(
      StandardStreams,
      StandardStreams.of({
        stdoutIsTty: false,
        stdoutColumns: undefined,
        stderrIsTty: false,
        writeStderr: () => undefined,
        stdoutSink: Sink.drain,
        ...impl
      })
    )
}
