import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { helpText, usageOf } from "../src/Cli.js"
import { choiceFlags, optionWithoutValue, usageErrorLine } from "../src/render/UsageErrorLine.js"

const help = helpText()
const known = choiceFlags(help)

describe("@effect/cli's parse errors as one line naming the flag", () => {
  it.effect("the help's usage lists the flags that take one of several values", () =>
    Effect.sync(() => {
      const engine = known.filter((k) => k.flag === "--engine")
      assert.isAbove(engine.length, 0)
      assert.deepStrictEqual(engine[0]!.choices, ["extractive", "llm"])
      // one flag name, different lists in different commands (index's input formats, eval's report formats)
      const formats = known.filter((k) => k.flag === "--format").map((k) => k.choices.join("|"))
      assert.include(formats, "table|json|csv")
    }))

  it.effect("a line that ends in an option without its value: that option named, before @effect/cli misreads it", () =>
    Effect.sync(() => {
      const line = (args: ReadonlyArray<string>) => optionWithoutValue(args, usageOf)
      // @effect/cli took these for the run id ("unknown run id \"--home\"") or the question
      assert.strictEqual(
        line(["status", "--home"]),
        "--home needs a value (`deepnote status --help` lists what it takes)"
      )
      assert.strictEqual(line(["ask", "-c"]), "-c needs a value (`deepnote ask --help` lists what it takes)")
      assert.strictEqual(
        line(["run", "--dataset", "q.jsonl", "--limit"]),
        "--limit needs a value (`deepnote run --help` lists what it takes)"
      )
      assert.strictEqual(
        line(["keys", "create", "--tenant"]),
        "--tenant needs a value (`deepnote keys create --help` lists what it takes)"
      )
      // a plain command whose argument is its own name is no group (@effect/cli lists a plain command under itself)
      assert.strictEqual(
        line(["status", "status", "--limit"]),
        "--limit needs a value (`deepnote status --help` lists what it takes)"
      )
      // a choice flag, and one whose usage wraps onto the next line of the help
      assert.strictEqual(
        line(["eval", "r-1", "--format"]),
        "--format needs a value (`deepnote eval --help` lists what it takes)"
      )
      assert.strictEqual(
        line(["run", "--dataset", "q.jsonl", "--label"]),
        "--label needs a value (`deepnote run --help` lists what it takes)"
      )
      // flags that take no value, given values, built-in options and unknown commands pass through
      assert.isUndefined(line(["status", "--json"]))
      assert.isUndefined(line(["status", "--home", "h"]))
      assert.isUndefined(line(["status", "--home=h"]))
      assert.isUndefined(line(["run", "--help"]))
      assert.isUndefined(line(["--version"]))
      assert.isUndefined(line(["nope", "--home"]))
      assert.isUndefined(line(["status", "--bogus"]))
    }))

  it.effect("an unknown command or subcommand, a missing subcommand, an option before the command: which, and what to write", () =>
    Effect.sync(() => {
      // @effect/cli says the same of all of these
      const commands = ["index", "ask", "run", "resume", "status", "ui", "keys"]
      const invalid = `Invalid subcommand for deepnote - use one of ${commands.map((c) => `'${c}'`).join(", ")}`
      const line = (args: ReadonlyArray<string>) => usageErrorLine(invalid, args, help)
      const list = commands.join(", ")
      assert.strictEqual(line(["bogus"]), `deepnote: unknown command 'bogus': one of ${list}`)
      assert.strictEqual(line(["runn"]), `deepnote: unknown command 'runn' (did you mean 'run'?): one of ${list}`)
      // nearer to one than to any other, or no suggestion
      assert.strictEqual(line(["ru"]), `deepnote: unknown command 'ru' (did you mean 'run'?): one of ${list}`)
      assert.strictEqual(line(["rxxxxx"]), `deepnote: unknown command 'rxxxxx': one of ${list}`)
      assert.strictEqual(
        line(["keys", "--tenant", "t1"]),
        "deepnote: keys needs a subcommand first: one of create, list, revoke (`deepnote keys --help`)"
      )
      assert.strictEqual(
        line(["keys", "lst"]),
        "deepnote: unknown keys subcommand 'lst' (did you mean 'list'?): one of create, list, revoke"
      )
      assert.strictEqual(
        line(["--bogus", "status"]),
        "deepnote: '--bogus' cannot come before the command (only --home, --store, --config, --json can): put it after 'status'"
      )
      assert.strictEqual(line(["--bogus"]), `deepnote: name a command first: one of ${list}`)
    }))

  it.effect("a value of the wrong type: the flag it was given to, in either spelling", () =>
    Effect.sync(() => {
      assert.strictEqual(
        usageErrorLine("'many' is not a integer", ["run", "--dataset", "q.jsonl", "--limit", "many"], help),
        "deepnote: --limit: 'many' is not an integer"
      )
      assert.strictEqual(
        usageErrorLine("'hot' is not a float", ["run", "--temperature=hot"], help),
        "deepnote: --temperature: 'hot' is not a float"
      )
      // the same value after two flags: which one failed is not known, so none is named
      assert.strictEqual(
        usageErrorLine("'x' is not a integer", ["run", "--limit", "x", "--top-k", "x"], help),
        "deepnote: 'x' is not an integer"
      )
    }))

  it.effect("a value outside a flag's choices: the flag, its choices and the value", () =>
    Effect.sync(() => {
      assert.strictEqual(
        usageErrorLine(
          "Expected one of the following cases: extractive, llm",
          ["run", "--dataset", "q.jsonl", "--engine", "nope"],
          help
        ),
        "deepnote: --engine must be one of extractive, llm (got 'nope')"
      )
      assert.strictEqual(
        usageErrorLine("Expected one of the following cases: table, json, csv", ["eval", "r-1", "--format=xml"], help),
        "deepnote: --format must be one of table, json, csv (got 'xml')"
      )
      // no flag of the command line takes these choices: the list alone
      assert.strictEqual(
        usageErrorLine("Expected one of the following cases: a, b", ["run", "--dataset", "q.jsonl"], help),
        "deepnote: expected one of: a, b"
      )
    }))

  it.effect("several problems (one paragraph each) on one line; colour codes dropped", () =>
    Effect.sync(() => {
      const text = "\u001b[0mExpected to find option: '--dataset'\u001b[0m\n\n'abc' is not a integer\n"
      assert.strictEqual(
        usageErrorLine(text, ["run", "--limit", "abc"], help),
        "deepnote: run needs --dataset; --limit: 'abc' is not an integer"
      )
    }))

  it.effect("an unknown argument: the command that refused it (a shared option moved after a command without it)", () =>
    Effect.sync(() => {
      assert.strictEqual(
        usageErrorLine("Received unknown argument: '--home'", ["inspect", "r.json", "--home", "h"], help),
        "deepnote: inspect does not take '--home' (`deepnote inspect --help` lists what it takes)"
      )
      assert.strictEqual(
        usageErrorLine("Received unknown argument: 'extra'", ["keys", "list", "extra"], help),
        "deepnote: keys list does not take 'extra' (`deepnote keys list --help` lists what it takes)"
      )
      assert.strictEqual(
        usageErrorLine("Received unknown argument: 'b'", ["status", "a", "b"], help),
        "deepnote: status does not take 'b' (`deepnote status --help` lists what it takes)"
      )
      // an unknown option read as the positional run id, then the command's own --home refused: the unknown one named
      assert.strictEqual(
        usageErrorLine("Received unknown argument: '--home'", ["status", "--bogus", "--home", "h"], help),
        "deepnote: status does not take '--bogus' (`deepnote status --help` lists what it takes)"
      )
      assert.strictEqual(
        usageErrorLine("Received unknown argument: '--home'", ["status", "--home", "h", "--home", "h"], help),
        "deepnote: status could not read its arguments at '--home' (`deepnote status --help` lists what it takes)"
      )
      assert.strictEqual(
        usageErrorLine("Received unknown argument: '--x'", ["--x"], help),
        "deepnote: unknown argument '--x'"
      )
      assert.strictEqual(
        usageErrorLine("Missing argument <file>", ["inspect"], help),
        "deepnote: inspect needs <file>"
      )
      assert.strictEqual(
        usageErrorLine("Expected to find option: '--tenant'", ["keys", "create"], help),
        "deepnote: keys create needs --tenant"
      )
    }))
})
