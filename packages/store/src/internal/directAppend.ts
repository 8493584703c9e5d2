import { Either, Schema } from "effect"
import { type JournalMismatch, StoreError } from "../Domain/Errors.js"
import { type Dehydrated, dehydrateValues } from "./dehydrateValues.js"
import { eventNumbers, notYetLogged } from "./eventNumbering.js"
import { EventRow } from "./eventRows.js"
import { type JournalAppend, journalMismatch, NewEntry, newJournalRows } from "./journalRows.js"
import type { SqliteDirectDatabase } from "./sqliteDirect.js"

/** What one append writes: an item's events (already encoded) at a position, and journal entries. */
export interface DirectAppend {
  readonly runId: string
  readonly itemId: string
  readonly events: ReadonlyArray<unknown>
  readonly position: number | undefined
  readonly journal: ReadonlyArray<JournalAppend>
  readonly createdAt: Date
}

const encodeEntry = Schema.encodeSync(NewEntry)
const encodeEvent = Schema.encodeSync(EventRow)

const insertPassage =
  "INSERT INTO passages (run_id, hash, id, source, title, text) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
const insertText = "INSERT INTO texts (run_id, hash, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
const insertEntry = `INSERT INTO journal (run_id, item_id, seq, kind, request_hash, response, usage, prompt_tokens,
  completion_tokens, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (run_id, item_id, seq) DO NOTHING`
const storedEntry = "SELECT kind, request_hash FROM journal WHERE run_id = ? AND item_id = ? AND seq = ?"
const reserve = "UPDATE runs SET next_event_seq = next_event_seq + ? WHERE id = ? RETURNING next_event_seq"
const countEvents = "SELECT count(*) AS n FROM events WHERE run_id = ? AND item_id = ?"
const insertEvent = "INSERT INTO events (run_id, seq, item_id, event, created_at) VALUES (?, ?, ?, ?, ?)"

const StoredKey = Schema.Struct({ kind: Schema.String, request_hash: Schema.String })
const Reserved = Schema.Struct({ next_event_seq: Schema.Int })
const Count = Schema.Struct({ n: Schema.Int })
const decodeStored = Schema.decodeUnknownEither(StoredKey)
const decodeReserved = Schema.decodeUnknownEither(Reserved)
const decodeCount = Schema.decodeUnknownEither(Count)

const notDecoded = (table: string, action = "appending events") => () =>
  new StoreError({ message: `a stored ${table} row does not decode (${action})` })

export const writeRefs = (db: SqliteDirectDatabase, refs: Omit<Dehydrated, "stored">) => {
  for (const p of refs.passages) db.statement(insertPassage).run(p.run_id, p.hash, p.id, p.source, p.title, p.text)
  for (const t of refs.texts) db.statement(insertText).run(t.run_id, t.hash, t.text)
}

/**
 * Journal entries inserted unless journaled (a different kind or request hash at a position is a `JournalMismatch`),
 * their passages and long texts first: `Journal.appendAll`'s statements, inside the caller's direct transaction.
 */
export const writeJournalDirect = (
  db: SqliteDirectDatabase,
  journal: ReadonlyArray<JournalAppend>,
  createdAt: Date,
  action: string
): Either.Either<void, JournalMismatch | StoreError> => {
  if (journal.length === 0) return Either.void
  const { refs, rows } = newJournalRows(journal, createdAt)
  writeRefs(db, refs)
  for (const row of rows) {
    const e = encodeEntry(row)
    const inserted = db.statement(insertEntry).run(
      e.run_id,
      e.item_id,
      e.seq,
      e.kind,
      e.request_hash,
      e.response,
      e.usage,
      e.prompt_tokens,
      e.completion_tokens,
      e.latency_ms,
      e.created_at
    )
    if (inserted.changes > 0) continue
    const found = decodeStored(db.statement(storedEntry).get(e.run_id, e.item_id, e.seq))
    if (Either.isLeft(found)) return Either.left(notDecoded("journal", action)())
    if (found.right.kind !== row.kind || found.right.request_hash !== row.request_hash) {
      return Either.left(journalMismatch(row, found.right))
    }
  }
  return Either.void
}

/**
 * `EventLog.append` as one synchronous SQLite transaction (`SqliteDirect`): the same statements and the same stored
 * bytes as the `@effect/sql` path, which Postgres takes — journal entries inserted unless journaled (a different kind
 * or request hash at a position is a `JournalMismatch`), then the events numbered as `eventNumbering` says. Answers
 * the new events' numbers.
 */
export const appendDirect = (
  db: SqliteDirectDatabase,
  append: DirectAppend
): Either.Either<ReadonlyArray<number>, JournalMismatch | StoreError> => {
  const { createdAt, itemId, journal, position, runId } = append
  const journaled = writeJournalDirect(db, journal, createdAt, "appending events")
  if (Either.isLeft(journaled)) return Either.left(journaled.left)
  const all = append.events
  if (all.length === 0) return Either.right([])
  const take = (count: number) => decodeReserved(db.statement(reserve).get(count, runId))
  const reserved = take(all.length)
  if (Either.isLeft(reserved)) {
    return Either.left(new StoreError({ message: `appending events failed: run ${runId} not found` }))
  }
  let events = all
  let end = reserved.right.next_event_seq
  if (position !== undefined) {
    const logged = decodeCount(db.statement(countEvents).get(runId, itemId))
    if (Either.isLeft(logged)) return Either.left(notDecoded("events")())
    events = notYetLogged(all, position, logged.right.n)
    if (events.length < all.length) {
      const given = take(events.length - all.length)
      if (Either.isRight(given)) end = given.right.next_event_seq
    }
    if (events.length === 0) return Either.right([])
  }
  const seqs = eventNumbers(end, events.length)
  const dehydrated = dehydrateValues(runId, events)
  writeRefs(db, dehydrated)
  dehydrated.stored.forEach((event, i) => {
    const row = encodeEvent({ run_id: runId, seq: seqs[i]!, item_id: itemId, event, created_at: createdAt })
    db.statement(insertEvent).run(row.run_id, row.seq, row.item_id, row.event, row.created_at)
  })
  return Either.right(seqs)
}
