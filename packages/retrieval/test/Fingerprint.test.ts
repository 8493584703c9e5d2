import { Home } from "@deepnote-rag/core"
import { assert, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { Collections, type CorpusDocument } from "../src/index.js"
import { TempCollections, writeFile } from "./support/TempHome.js"

/** The fingerprint as its definition says: every passage's id, title and text in id order, hashed. */
const expected = (documents: ReadonlyArray<CorpusDocument>) => {
  const hash = createHash("sha256")
  for (const d of [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    hash.update(`${d.id}\u0000${d.title}\u0000${d.text}\u0001`)
  }
  return `sha256:${hash.digest("hex")}`
}

const lyon = { id: "lyon", title: "Lyon", text: "Lyon is known for its cuisine." }
const arles = { id: "arles", title: "Arles", text: "Arles has a Roman amphitheatre." }
const nimes = { id: "nimes", title: "Nîmes", text: "Nîmes has a Roman arena." }

/** Overwrites the kept fingerprint from another connection, as a stand-in that only a kept value can answer. */
const overwriteKept = (file: string, value: string) => {
  const db = new Database(file)
  try {
    db.prepare("UPDATE meta SET value = ? WHERE key = 'content_fingerprint'").run(value)
  } finally {
    db.close()
  }
}

it.layer(TempCollections)("a collection's content fingerprint", (it) => {
  it.effect("is computed once, kept in the collection, and forgotten by every write that changes the passages", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      yield* collections.add("towns", [lyon, arles])
      const first = yield* collections.fingerprint("towns")
      assert.strictEqual(first, expected([lyon, arles]))
      const info = yield* collections.info("towns")
      assert.strictEqual(info.meta["content_fingerprint"], first)

      // kept: a later call reads it instead of hashing the passages again
      overwriteKept(info.file, "sha256:kept")
      assert.strictEqual(yield* collections.fingerprint("towns"), "sha256:kept")

      // a passage added (the ingest fast path) forgets it
      yield* collections.add("towns", [nimes])
      assert.strictEqual(yield* collections.fingerprint("towns"), expected([lyon, arles, nimes]))

      // a passage replaced: the same count, another content
      overwriteKept(info.file, "sha256:kept")
      const lyonRewritten = { ...lyon, text: "Lyon sits where the Rhône meets the Saône." }
      yield* collections.add("towns", [lyonRewritten], { onDuplicate: "replace" })
      assert.strictEqual((yield* collections.info("towns")).documents, 3)
      assert.strictEqual(yield* collections.fingerprint("towns"), expected([lyonRewritten, arles, nimes]))

      // a passage deleted
      overwriteKept(info.file, "sha256:kept")
      assert.strictEqual(yield* collections.remove("towns", ["arles"]), 1)
      assert.strictEqual(yield* collections.fingerprint("towns"), expected([lyonRewritten, nimes]))

      // a write that changes nothing keeps it: an id already there, skipped; a delete of an unknown id
      overwriteKept(info.file, "sha256:kept")
      yield* collections.add("towns", [nimes])
      assert.strictEqual(yield* collections.remove("towns", ["paris"]), 0)
      assert.strictEqual(yield* collections.fingerprint("towns"), "sha256:kept")
    }))

  it.effect("is computed when an ingest of files finishes, not at the next run's start", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const file = writeFile((yield* Home).root, "towns.jsonl", [lyon, arles].map((d) => JSON.stringify(d)).join("\n"))
      yield* collections.index("indexed", [file])
      assert.strictEqual((yield* collections.info("indexed")).meta["content_fingerprint"], expected([lyon, arles]))
    }))

  it.effect("is refused, naming the passage, when a stored passage holds a value that is not text", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      yield* collections.add("damaged", [lyon, arles])
      const { file } = yield* collections.info("damaged")
      const db = new Database(file)
      try {
        db.prepare("UPDATE documents SET text = x'00ff' WHERE id = 'arles'").run()
        db.prepare("DELETE FROM meta WHERE key = 'content_fingerprint'").run()
      } finally {
        db.close()
      }
      const error = yield* Effect.flip(collections.fingerprint("damaged"))
      assert.strictEqual(error._tag, "IndexError")
      assert.include(error.message, "passage arles holds a value that is not text")
      assert.include(error.message, file)
    }))

  it.effect("is the same for the same passages however the collection was built", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      yield* collections.add("one-batch", [lyon, arles, nimes])
      yield* collections.add("two-batches", [nimes])
      yield* collections.add("two-batches", [arles, lyon])
      const a = yield* collections.fingerprint("one-batch")
      assert.strictEqual(a, yield* collections.fingerprint("two-batches"))
      assert.strictEqual(a, expected([lyon, arles, nimes]))
    }))
})
