import { Either } from "effect"
import * as Yaml from "yaml"

/**
 * YAML text parsed (a config or sweep file); a syntax error as one line — the parser's message with its line and
 * column ("… at line 2, column 1"), without the code frame it appends on the following lines.
 */
export const parseYaml = (text: string): Either.Either<unknown, string> =>
  Either.try({
    try: (): unknown => Yaml.parse(text),
    catch: (e) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.replace(/:$/, "")
  })
