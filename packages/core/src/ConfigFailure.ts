import type { ConfigError } from "effect"

/**
 * One line for settings that could not be read: each setting's name (its path, e.g. `DEEPNOTE_SERVER_DRAIN_TIMEOUT`)
 * and what is wrong with it — Effect's own message names neither the variable nor, for a combined error, each part.
 */
export const describeConfigFailure = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported":
      return error.path.length > 0 ? `${error.path.join(".")}: ${error.message}` : error.message
    case "And":
      return `${describeConfigFailure(error.left)}; ${describeConfigFailure(error.right)}`
    case "Or":
      return describeConfigFailure(error.left)
  }
}
