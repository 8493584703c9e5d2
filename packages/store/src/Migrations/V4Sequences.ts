import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Per-run sequences assigned under the run row's lock, so that concurrent writers (other processes, other machines
 * on Postgres) cannot race:
 * - `runs.next_item_seq`: the next item position (was `max(seq) + 1`, which two writers could both read);
 * - `runs.next_event_seq` and `events (run_id, seq)`: a gap-free, commit-ordered event number per run. A global serial
 *   is not: on Postgres a transaction can take number 11, commit after the one that took 12, and a reader following
 *   "seq > last seen" would skip it. Existing events keep their order: the global order is a valid per-run order, so
 *   each run's events are renumbered 1, 2, 3, … in it.
 */
export const v4 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`ALTER TABLE runs ADD COLUMN next_item_seq INTEGER NOT NULL DEFAULT 0`
    yield* sql`ALTER TABLE runs ADD COLUMN next_event_seq INTEGER NOT NULL DEFAULT 1`
    yield* sql`UPDATE runs SET next_item_seq = coalesce((SELECT max(seq) + 1 FROM items WHERE items.run_id = runs.id), 0)`
    yield* sql`CREATE TABLE run_events (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      item_id TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (run_id, seq))`
    yield* sql`INSERT INTO run_events (run_id, seq, item_id, event, created_at)
      SELECT run_id, ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY seq), item_id, event, created_at FROM events`
    yield* sql`DROP TABLE events`
    yield* sql`ALTER TABLE run_events RENAME TO events`
    yield* sql`CREATE INDEX events_item ON events(run_id, item_id)`
    yield* sql`UPDATE runs SET next_event_seq = coalesce((SELECT max(seq) + 1 FROM events WHERE events.run_id = runs.id), 1)`
    yield* userVersion(sql, 4)
  })
