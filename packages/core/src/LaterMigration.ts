import { Effect } from "effect"

/**
 * A schema migration of a file or database that builds of several releases share (the run store from its migration 15
 * on, collection files from 6 on): its body, and whether builds that do not know it may keep opening what it was
 * applied to — replicas and workers of the previous release during a rolling upgrade. Each owner's registry records
 * the answer beside the schema version (`laterMigrationEntry`), so no migration can forget either.
 */
export interface LaterMigration<Client, E> {
  /** Its number: the one after the previous migration's. */
  readonly id: number
  /** Its name in the migrations table (`<id>_<name>`). */
  readonly name: string
  /**
   * Whether builds that do not know this migration may keep opening what it was applied to: `true` for an index or a
   * table only newer builds use; `false` for a column they would leave empty, a table or kept value they would not
   * keep up to date, or data in a form they cannot read. Required: every migration says.
   */
  readonly olderBuildsMayOpen: boolean
  /** The schema change. */
  readonly run: (client: Client) => Effect.Effect<void, E>
}

/** What an owner keeps of its later migrations: each is given the migration's id. */
export interface LaterMigrationRecords<E, R> {
  /** Sets the lowest schema a build must know to open what the migration was applied to. */
  readonly oldestSchema: (id: number) => Effect.Effect<unknown, E, R>
  /** Sets the schema version. */
  readonly schemaVersion: (id: number) => Effect.Effect<unknown, E, R>
}

/**
 * The migrator's entry (`Migrator.fromRecord`) for a later migration: its key, and its body followed — in the
 * migrator's transaction, so atomically with the schema they describe — by the lowest schema a build must know when
 * older builds may not open it (`olderBuildsMayOpen: false`), and the schema version, as its owner keeps them.
 */
export const laterMigrationEntry = <Client, E, R>(
  client: Client,
  migration: LaterMigration<Client, E>,
  records: LaterMigrationRecords<E, R>
) =>
  [
    `${migration.id}_${migration.name}`,
    Effect.gen(function*() {
      yield* migration.run(client)
      if (!migration.olderBuildsMayOpen) yield* records.oldestSchema(migration.id)
      yield* records.schemaVersion(migration.id)
    })
  ] as const
