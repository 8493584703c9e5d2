import { CliConfig, Command, CommandDescriptor, HelpDoc, Usage } from "@effect/cli"
import { HashMap, Option } from "effect"
import { alignDataCommand } from "./commands/AlignData.js"
import { askCommand } from "./commands/Ask.js"
import { compareCommand } from "./commands/Compare.js"
import { configCommand } from "./commands/ConfigCommand.js"
import { demoCommand } from "./commands/Demo.js"
import { embedCommand } from "./commands/Embed.js"
import { evalCommand } from "./commands/Eval.js"
import { exportCommand } from "./commands/Export.js"
import { indexCommand } from "./commands/Index.js"
import { inspectCommand } from "./commands/Inspect.js"
import { keysCommand } from "./commands/Keys.js"
import { resumeCommand } from "./commands/Resume.js"
import { runCommand } from "./commands/RunCommand.js"
import { serveCommand } from "./commands/Serve.js"
import { statusCommand } from "./commands/Status.js"
import { traceCommand } from "./commands/Trace.js"
import { uiCommand } from "./commands/Ui.js"
import { workerCommand } from "./commands/Worker.js"
import { asCommand } from "./render/UsageErrorLine.js"

export const version = "0.1.0"

/** The `deepnote` command and its subcommands. */
export const deepnote = Command.make("deepnote").pipe(
  Command.withDescription("DeepNote: note-centric adaptive retrieval-augmented generation for complex questions."),
  Command.withSubcommands([
    indexCommand,
    embedCommand,
    askCommand,
    inspectCommand,
    runCommand,
    resumeCommand,
    alignDataCommand,
    statusCommand,
    evalCommand,
    compareCommand,
    exportCommand,
    configCommand,
    demoCommand,
    traceCommand,
    serveCommand,
    uiCommand,
    workerCommand,
    keysCommand
  ]),
  // what the commands write is theirs; @effect/cli's own writes before them are parse errors (see UsageErrorLine)
  Command.transformHandler(asCommand)
)

/** The help of `deepnote` and its commands' usage, as plain text (`[--engine extractive | llm]` …). */
export const helpText = (): string => HelpDoc.toAnsiText(Command.getHelp(deepnote, CliConfig.defaultConfig))

/** The command a command line names and its usage (`status [--limit integer] … [<id>]`); undefined for none. */
export interface CommandUsage {
  /** `status`, `keys create`. */
  readonly command: string
  readonly usage: string
}

// each command's descriptor by name; for a command group (its commands come after its name: `keys create`), @effect/cli
// lists the group's own descriptor here, and its commands only under the group
const topDescriptors = Command.getSubcommands(deepnote)
const groups = HashMap.make(["keys", Command.getSubcommands(keysCommand)])

/**
 * The command named by a command line's leading words and its usage line. Only that command's usage is rendered: the
 * whole help (`helpText`) takes 0.2–0.5 s to render, too long for a check made before every command line.
 */
export const usageOf = (args: ReadonlyArray<string>): CommandUsage | undefined => {
  const [first = "", second = ""] = args
  const nested = Option.flatMap(HashMap.get(groups, first), (commands) => HashMap.get(commands, second))
  const named = Option.isSome(nested)
    ? Option.some({ command: `${first} ${second}`, descriptor: nested.value })
    : Option.map(HashMap.get(topDescriptors, first), (descriptor) => ({ command: first, descriptor }))
  return Option.match(named, {
    onNone: () => undefined,
    onSome: ({ command, descriptor }) => ({
      command,
      usage: HelpDoc.toAnsiText(Usage.getHelp(CommandDescriptor.getUsage(descriptor)))
    })
  })
}

export const runCli = Command.run(deepnote, { name: "deepnote", version })
