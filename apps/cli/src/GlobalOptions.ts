/**
 * Options most commands share, accepted before the command too (`deepnote --home X status`, as git and docker do):
 * @effect/cli reads a command's options after its name only, so the entry point moves them to the end, where every
 * command accepts its options (after its arguments too). A command without such an option still refuses it by name.
 */
const withValue = new Set(["--home", "--store", "--config"])
const flags = new Set(["--json"])

/** The options accepted before the command, as messages name them. */
export const sharedOptions: ReadonlyArray<string> = [...withValue, ...flags]

/** `args` (without `node` and the script) with the shared options that come before the command moved after it. */
export const hoistGlobalOptions = (args: ReadonlyArray<string>): Array<string> => {
  const hoisted: Array<string> = []
  let i = 0
  while (i < args.length) {
    const arg = args[i]!
    const name = arg.split("=", 1)[0]!
    if (flags.has(arg) || (withValue.has(name) && arg.includes("="))) {
      hoisted.push(arg)
      i += 1
    } else if (withValue.has(arg) && i + 1 < args.length) {
      hoisted.push(arg, args[i + 1]!)
      i += 2
    } else {
      break
    }
  }
  const rest = args.slice(i)
  // nothing but shared options: leave the line as it is, so @effect/cli explains what is missing
  return hoisted.length === 0 || rest.length === 0 ? [...args] : [...rest, ...hoisted]
}
