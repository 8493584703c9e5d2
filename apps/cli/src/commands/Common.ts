import { Home } from "@deepnote-rag/core"
import { Options } from "@effect/cli"
import { Option, Schema } from "effect"

/** `--home DIR`: the data directory (else DEEPNOTE_HOME, else ./.deepnote). */
export const homeOption = Options.text("home").pipe(
  Options.withDescription(
    "data directory for collections, runs and caches (default: $DEEPNOTE_HOME, else ./.deepnote)"
  ),
  Options.optional
)

export const homeLayer = (home: Option.Option<string>) =>
  Option.match(home, { onNone: () => Home.layerConfig, onSome: Home.layer })

/**
 * An integer flag within [min, max] (no upper bound: `Number.MAX_SAFE_INTEGER`); anything else is a usage error (exit
 * 2) that names the flag and the range.
 */
export const boundedInteger = (name: string, min: number, max: number) => {
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `between ${min} and ${max}`
  return Options.integer(name).pipe(
    Options.withSchema(Schema.Int.pipe(Schema.between(min, max, { message: () => `--${name} must be ${range}` })))
  )
}

/** The most questions one process keeps in flight (each a fiber; the LLM endpoints' limits apply below this). */
export const maxConcurrency = 4096

/** `--store URL`: the run store (else DEEPNOTE_STORE, else the SQLite file in the home). */
export const storeOption = Options.text("store").pipe(
  Options.withDescription(
    "run store: sqlite:PATH or postgres://user:pass@host:5432/db (default: $DEEPNOTE_STORE, else <home>/deepnote.sqlite)"
  ),
  Options.optional
)

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

/** `--label`: a label stored in a run's manifest (shown by `status`, `eval` and the inspector). */
export const runLabelOption = Options.text("label").pipe(
  Options.optional,
  Options.withDescription("a label stored in the run manifest")
)

/** `--skip-bad-lines`: a dataset's invalid records are reported and skipped instead of refusing the dataset. */
export const skipBadLinesOption = Options.boolean("skip-bad-lines").pipe(
  Options.withDescription("skip invalid dataset records (reported) instead of refusing the dataset")
)

/** `--format`: the dataset's format (`run`, `align-data`), detected from its records by default. */
export const datasetFormatOption = Options.choice(
  "format",
  ["auto", "ircot", "hotpotqa", "musique", "2wiki", "cmrc2018", "plain"]
).pipe(
  Options.withDefault("auto" as const),
  Options.withDescription("dataset format (default: detected)")
)

/** `--limit`: only the dataset's first N questions (`run`, `align-data`). */
export const questionLimitOption = boundedInteger("limit", 1, Number.MAX_SAFE_INTEGER).pipe(
  Options.optional,
  Options.withDescription("only the first N questions")
)
