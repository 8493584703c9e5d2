import { Command } from "@effect/cli"
import { askCommand } from "./commands/Ask.js"
import { configCommand } from "./commands/ConfigCommand.js"
import { demoCommand } from "./commands/Demo.js"
import { indexCommand } from "./commands/Index.js"
import { inspectCommand } from "./commands/Inspect.js"

export const version = "0.1.0"

/** The `deepnote` command and its subcommands. */
export const deepnote = Command.make("deepnote").pipe(
  Command.withDescription("DeepNote: note-centric adaptive retrieval-augmented generation for complex questions."),
  Command.withSubcommands([indexCommand, askCommand, inspectCommand, configCommand, demoCommand])
)

export const runCli = Command.run(deepnote, { name: "deepnote", version })
