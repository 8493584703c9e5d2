import { serverStoreLayer } from "@deepnote-rag/server"
import { ApiKeyRecord, ApiKeys } from "@deepnote-rag/store"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option, Redacted, Schema } from "effect"
import { CommandFailed, UsageError } from "../Errors.js"
import { storeFailed } from "../runs/RunServices.js"
import { homeLayer, homeOption, jsonOption, storeOption } from "./Common.js"

const keysLayer = (home: Option.Option<string>, store: Option.Option<string>) =>
  serverStoreLayer(Option.getOrUndefined(store)).pipe(
    Layer.provide(homeLayer(home)),
    Layer.mapError((e) =>
      e._tag === "InvalidStoreUrl" ? new UsageError({ message: e.message }) : new CommandFailed({ message: e.message })
    )
  )

const positive = (name: string) => Options.integer(name).pipe(Options.optional)

/** `deepnote keys create --tenant T`: prints the key once (only its keyed hash is stored). */
const createCommand = Command.make(
  "create",
  {
    tenant: Options.text("tenant").pipe(
      Options.withDescription("tenant id: lower-case letters, digits and dashes (created if new)")
    ),
    label: Options.text("label").pipe(Options.optional, Options.withDescription("a note stored with the key")),
    rpm: positive("requests-per-minute").pipe(
      Options.withDescription("the tenant's request limit (default: the server's)")
    ),
    maxRuns: positive("max-concurrent-runs").pipe(
      Options.withDescription("the tenant's concurrent runs (default: the server's)")
    ),
    json: jsonOption,
    home: homeOption,
    store: storeOption
  },
  (opts) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const quota = {
        ...(Option.isSome(opts.rpm) ? { requestsPerMinute: opts.rpm.value } : {}),
        ...(Option.isSome(opts.maxRuns) ? { maxConcurrentRuns: opts.maxRuns.value } : {})
      }
      if (Object.values(quota).some((n) => n < 1)) {
        return yield* new UsageError({ message: "limits must be positive integers" })
      }
      yield* keys.ensureTenant(opts.tenant, Object.keys(quota).length > 0 ? { quota } : {})
      const created = yield* keys.create({ tenantId: opts.tenant, label: Option.getOrUndefined(opts.label) })
      if (opts.json) {
        return yield* Console.log(
          JSON.stringify({ id: created.record.id, tenant: opts.tenant, key: Redacted.value(created.key) })
        )
      }
      yield* Console.log(Redacted.value(created.key))
      yield* Console.error(
        `key ${created.record.id} for tenant ${opts.tenant}: store it now, it is not shown again (revoke with \`deepnote keys revoke ${created.record.id}\`)`
      )
    }).pipe(
      Effect.catchTags({
        InvalidTenant: (e) => new UsageError({ message: e.message }),
        StoreError: storeFailed
      }),
      Effect.provide(keysLayer(opts.home, opts.store))
    )
).pipe(Command.withDescription("Create an API key for a tenant and print it once."))

const listCommand = Command.make(
  "list",
  { tenant: Options.text("tenant").pipe(Options.optional), json: jsonOption, home: homeOption, store: storeOption },
  (opts) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const list = yield* keys.list(Option.isSome(opts.tenant) ? { tenantId: opts.tenant.value } : {})
      if (opts.json) {
        return yield* Console.log(JSON.stringify(list.map((k) => Schema.encodeSync(ApiKeyRecord)(k)), null, 2))
      }
      if (list.length === 0) {
        return yield* Console.log("no API keys (create one with `deepnote keys create --tenant T`)")
      }
      for (const key of list) {
        yield* Console.log(
          `${key.id}  ${key.tenantId.padEnd(16)} ${
            key.revokedAt === undefined ? "active " : "revoked"
          }  created ${key.createdAt.toISOString()}${key.label === undefined ? "" : `  ${key.label}`}`
        )
      }
    }).pipe(
      Effect.catchTags({ StoreError: storeFailed }),
      Effect.provide(keysLayer(opts.home, opts.store))
    )
).pipe(Command.withDescription("List API keys (ids, tenants, status; never the keys)."))

const revokeCommand = Command.make(
  "revoke",
  { id: Args.text({ name: "key-id" }), home: homeOption, store: storeOption },
  (opts) =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const key = yield* keys.revoke(opts.id)
      yield* Console.log(`revoked key ${key.id} of tenant ${key.tenantId}`)
    }).pipe(
      Effect.catchTags({
        KeyNotFound: (e) => new UsageError({ message: e.message }),
        StoreError: storeFailed
      }),
      Effect.provide(keysLayer(opts.home, opts.store))
    )
).pipe(Command.withDescription("Revoke an API key by id (requests with it get 401 at once)."))

/** `deepnote keys create|list|revoke`: API keys of the HTTP app, per tenant. */
export const keysCommand = Command.make("keys").pipe(
  Command.withDescription("Manage the HTTP app's API keys (hashed at rest, per tenant)."),
  Command.withSubcommands([createCommand, listCommand, revokeCommand])
)
