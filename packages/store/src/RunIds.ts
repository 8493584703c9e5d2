import { Clock, Effect, Random } from "effect"

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
const pad = (n: number) => String(n).padStart(2, "0")

/**
 * A short id that sorts by creation time: `<prefix>-YYYYMMDD-HHMMSS-xxxx` (UTC, 4 random base-36 characters).
 * Time comes from `Clock` and randomness from `Random`, so tests can make ids deterministic.
 */
export const makeTimeId = (prefix: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const d = new Date(yield* Clock.currentTimeMillis)
    let suffix = ""
    for (let i = 0; i < 4; i++) suffix += alphabet[yield* Random.nextIntBetween(0, alphabet.length)]
    const date = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`
    const time = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
    return `${prefix}-${date}-${time}-${suffix}`
  })

/** A run id: `r-YYYYMMDD-HHMMSS-xxxx`. */
export const makeRunId = makeTimeId("r")

/** A sweep id: `s-YYYYMMDD-HHMMSS-xxxx`. */
export const makeSweepId = makeTimeId("s")
