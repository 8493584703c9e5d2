import { errorCode, Home } from "@deepnote-rag/core"
import { Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The pepper file cannot be read or created (a misconfigured home: a defect at startup). */
class PepperUnavailable
  extends Data.TaggedError("PepperUnavailable")<{ readonly file: string; readonly cause: unknown }>
{
  override get message() {
    return `cannot read or create ${this.file}: ${String(this.cause)}`
  }
}

/**
 * The server-side secret API-key hashes are keyed with: `DEEPNOTE_API_KEY_PEPPER`, else `<home>/api-key-pepper`
 * (32 random bytes, created on first use with mode 0600). `deepnote keys` and `deepnote serve` must see the same one.
 */
export class KeyPepper extends Context.Tag("@deepnote-rag/server/KeyPepper")<KeyPepper, Redacted.Redacted<string>>() {
  static readonly layer = Layer.effect(
    KeyPepper,
    Effect.gen(function*() {
      const fromEnv = yield* Config.option(Config.redacted("DEEPNOTE_API_KEY_PEPPER")).pipe(Effect.orDie)
      if (Option.isSome(fromEnv)) return fromEnv.value
      const home = yield* Home
      const file = Path.join(home.root, "api-key-pepper")
      return yield* Effect.try({
        try: () => {
          if (!Fs.existsSync(file)) {
            Fs.mkdirSync(home.root, { recursive: true })
            // "wx": when two processes race, the second one reads the first one's pepper
            try {
              Fs.writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" })
            } catch (error) {
              if (errorCode(error) !== "EEXIST") throw error
            }
          }
          return Redacted.make(Fs.readFileSync(file, "utf8").trim())
        },
        catch: (cause) => new PepperUnavailable({ file, cause })
      }).pipe(Effect.orDie)
    })
  )
}
