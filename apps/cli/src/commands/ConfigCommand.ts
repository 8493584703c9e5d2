import { Home, RunConfig } from "@deepnote-rag/core"
import { Command } from "@effect/cli"
import { Console, Effect, Schema } from "effect"
import { envName, knobs } from "../config/Knobs.js"
import { knobOptions } from "../config/Knobs.js"
import { resolveConfigAndCollection } from "./AskSupport.js"
import { collectionOption, configFileOption, homeLayer, homeOption, jsonOption } from "./Common.js"

/** `deepnote config`: the effective configuration after flags > config file > environment > defaults. */
export const configCommand = Command.make(
  "config",
  {
    knobs: knobOptions,
    configFile: configFileOption,
    collection: collectionOption,
    json: jsonOption,
    home: homeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const { collection, config } = yield* resolveConfigAndCollection(opts)
      const home = yield* Home
      const effective = {
        home: home.root,
        collection,
        config: Schema.encodeSync(RunConfig)(config)
      }
      if (opts.json) return yield* Console.log(JSON.stringify(effective, null, 2))
      yield* Console.log(`home: ${effective.home}\ncollection: ${effective.collection}\n`)
      yield* Console.log(JSON.stringify(effective.config, null, 2))
      yield* Console.log(
        `\nprecedence: flags > --config file > environment (${knobs.slice(0, 2).map(envName).join(", ")}, …) > defaults`
      )
    }).pipe(Effect.provide(homeLayer(opts.home)))
).pipe(Command.withDescription("Print the effective configuration (flags > config file > environment > defaults)."))
