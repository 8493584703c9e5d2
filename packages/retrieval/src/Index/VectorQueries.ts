import { type SqlClient, SqlSchema } from "@effect/sql"
import { Schema } from "effect"

/** A passage still to embed: its rowid (the key of its vector) and what is embedded. */
export const PendingRow = Schema.Struct({ rowid: Schema.Number, title: Schema.String, text: Schema.String })

/** A stored vector: little-endian float32 bytes. */
export const VectorRow = Schema.Struct({ rowid: Schema.Number, vector: Schema.Uint8ArrayFromSelf })

const Rowids = Schema.Array(Schema.Number)

/** The statements of the `vectors` table (migration 3) and the embedding facts in `meta`. */
export const makeVectorQueries = (sql: SqlClient.SqlClient) => ({
  /** The next passages without a vector, in rowid order: embedding resumes where it stopped. */
  pending: SqlSchema.findAll({
    Request: Schema.Struct({ afterRowid: Schema.Number, limit: Schema.Number }),
    Result: PendingRow,
    execute: ({ afterRowid, limit }) =>
      sql`SELECT d.rowid AS rowid, d.title AS title, d.text AS text FROM documents AS d
        WHERE d.rowid > ${afterRowid} AND NOT EXISTS (SELECT 1 FROM vectors AS v WHERE v.rowid = d.rowid)
        ORDER BY d.rowid LIMIT ${limit}`
  }),
  countPending: SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: () =>
      sql`SELECT count(*) AS n FROM documents AS d WHERE NOT EXISTS (SELECT 1 FROM vectors AS v WHERE v.rowid = d.rowid)`
  }),
  /** Whether any vector is stored (one index probe, unlike a count). */
  anyVector: SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ found: Schema.Number }),
    execute: () => sql`SELECT EXISTS (SELECT 1 FROM vectors) AS found`
  }),
  countVectors: SqlSchema.single({
    Request: Schema.Void,
    Result: Schema.Struct({ n: Schema.Number }),
    execute: () => sql`SELECT count(*) AS n FROM vectors`
  }),
  /**
   * Stores vectors; a passage that already has one keeps it (`DO NOTHING`: a batch re-sent after a crash between
   * the reply and the commit cannot overwrite a newer one).
   */
  insert: SqlSchema.void({
    Request: Schema.Array(VectorRow),
    execute: (rows) => sql`INSERT INTO vectors ${sql.insert(rows)} ON CONFLICT (rowid) DO NOTHING`
  }),
  /** One page of vectors in rowid order (the ANN file is built from them). */
  page: SqlSchema.findAll({
    Request: Schema.Struct({ afterRowid: Schema.Number, limit: Schema.Number }),
    Result: VectorRow,
    execute: ({ afterRowid, limit }) =>
      sql`SELECT rowid, vector FROM vectors WHERE rowid > ${afterRowid} ORDER BY rowid LIMIT ${limit}`
  }),
  documentsByRowid: SqlSchema.findAll({
    Request: Rowids,
    Result: Schema.Struct({ rowid: Schema.Number, id: Schema.String, title: Schema.String, text: Schema.String }),
    execute: (rowids) => sql`SELECT rowid, id, title, text FROM documents WHERE rowid IN ${sql.in(rowids)}`
  })
})

export type VectorQueries = ReturnType<typeof makeVectorQueries>
