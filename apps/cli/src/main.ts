#!/usr/bin/env node
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Exit, Layer } from "effect"
import { commandLine, exitCodeOf } from "./Program.js"
import { StandardStreams } from "./render/StandardStreams.js"

commandLine(process.argv.slice(2), process.argv.slice(0, 2)).pipe(
  Effect.provide(Layer.merge(StandardStreams.layer, NodeContext.layer)),
  // `disablePrettyLogger`: runMain would otherwise swap Effect's default logger for its pretty one on stdout, and the
  // telemetry's logger (stderr) would be added beside it — every log line twice, once in stdout's data.
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    // the command line's exit code; 130 when a signal interrupted it
    teardown: (exit, onExit) =>
      onExit(Exit.isSuccess(exit) && typeof exit.value === "number" ? exit.value : exitCodeOf(exit))
  })
)
