import { Home, RunConfig } from "@deepnote/core"
import { Command } from "@effect/cli"
import { Config, Console, Effect, Schema } from "effect"
import { envName, knobs } from "../config/Knobs.js"
import { knobOptions } from "../config/Knobs.js"
import { resolveRunConfig } from "../config/ResolveConfig.js"
import { collectionName } from "./AskSupport.js"
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
      const { config, file } = yield* resolveRunConfig({
        values: opts.knobs.values,
        roles: opts.knobs.roles,
        configFile: opts.configFile
      })
      const home = yield* Home
      const envCollection = yield* Config.option(Config.string("DEEPNOTE_COLLECTION")).pipe(Effect.orDie)
      const effective = {
        home: home.root,
        collection: collectionName(opts.collection, file?.collection, envCollection),
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
