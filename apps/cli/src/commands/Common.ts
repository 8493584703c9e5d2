import { Home } from "@deepnote/core"
import { Options } from "@effect/cli"
import { Option } from "effect"

/** `--home DIR`: the data directory (else DEEPNOTE_HOME, else ./.deepnote). */
export const homeOption = Options.text("home").pipe(
  Options.withDescription(
    "data directory for collections, runs and caches (default: $DEEPNOTE_HOME, else ./.deepnote)"
  ),
  Options.optional
)

export const homeLayer = (home: Option.Option<string>) =>
  Option.match(home, { onNone: () => Home.layerConfig, onSome: Home.layer })

export const jsonOption = Options.boolean("json").pipe(
  Options.withDescription("print one JSON document instead of text")
)

export const configFileOption = Options.file("config", { exists: "either" }).pipe(
  Options.withDescription("JSON or YAML file of settings (flags > config file > environment > defaults)"),
  Options.optional
)

export const collectionOption = Options.text("collection").pipe(
  Options.withAlias("c"),
  Options.withDescription(
    "collection to retrieve from (see `deepnote index`; default: $DEEPNOTE_COLLECTION, else \"default\")"
  ),
  Options.optional
)
