/**
 * How an item's events are numbered, in both append paths (`EventLog`'s over `@effect/sql`, which Postgres takes, and
 * `directAppend`'s on SQLite): the run's next numbers are reserved for all of them under the run row's lock (Postgres:
 * the row lock, held to commit; SQLite: the write lock). When the events come with their position in the item's
 * sequence, the item's events already logged are its positions 0 … n-1, so a replayed event (a resumed question, or
 * two workers racing on one question) is skipped and each event of a question is logged once; the numbers of skipped
 * events are given back at once, still under the lock, so the run's numbers have no gaps.
 */
export const notYetLogged = <A>(all: ReadonlyArray<A>, position: number, logged: number): ReadonlyArray<A> =>
  all.slice(Math.max(0, logged - position))

/** The numbers given to `count` events whose reservation ends (exclusive) at `end`. */
export const eventNumbers = (end: number, count: number): ReadonlyArray<number> =>
  Array.from({ length: count }, (_, i) => end - count + i)
