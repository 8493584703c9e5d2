import { Effect, type Scope } from "effect"
import type * as Http from "node:http"
import { localServer, type Recorded, type Reply } from "./LocalServer.js"
import {
  indexObject,
  type MeiliErrorBody,
  meiliErrors,
  summarizedTask,
  taskObject,
  versionObject
} from "./MeiliShapes.js"

export interface MeiliReplayOptions {
  /** Requests other than `/health` need `Authorization: Bearer <masterKey>` (401 without a key, 403 with another). */
  readonly masterKey?: string | undefined
  /** The error a task of this type fails with (e.g. `documentAdditionOrUpdate` → `meiliErrors.noSpaceLeftOnDevice`). */
  readonly failTask?: ((type: string) => MeiliErrorBody | undefined) | undefined
  /** Polls of a task that answer `enqueued`, then `processing`, before its final state. Default 1 and 1. */
  readonly pollsPerState?: number | undefined
  /** A task that never finishes (for deadline tests). */
  readonly stuckTask?: ((type: string) => boolean) | undefined
  readonly version?: string | undefined
}

interface Index {
  primaryKey: string | null
  settings: Record<string, unknown>
  readonly documents: Map<string, Record<string, unknown>>
}

interface Task {
  readonly uid: number
  readonly indexUid: string
  readonly type: string
  details: Record<string, unknown> | null
  error: MeiliErrorBody | null
  polls: number
  readonly apply: () => { readonly details: Record<string, unknown> | null; readonly error: MeiliErrorBody | null }
}

export interface MeiliReplay {
  readonly url: string
  readonly requests: Array<Recorded>
  readonly indexes: ReadonlyMap<string, Index>
  readonly server: Http.Server
}

const validId = (id: unknown): boolean =>
  (typeof id === "number" && Number.isInteger(id) && id >= 0) ||
  (typeof id === "string" && /^[A-Za-z0-9_-]{1,511}$/.test(id))

const words = (text: string): Array<string> =>
  text.toLowerCase().split(/[^\p{L}\p{N}]+/u).flatMap((w) =>
    /\p{Script=Han}/u.test(w) ? [...w] : w.length > 0 ? [w] : []
  )

/** A route the replay does not know (a bug in the caller or the replay; not a Meilisearch shape). */
const unexpected = (r: Recorded): MeiliErrorBody => ({
  message: `the replay does not know ${r.method} ${r.path}`,
  code: "replay_unknown_route",
  type: "invalid_request",
  link: ""
})

/**
 * A stand-in Meilisearch v1 server on 127.0.0.1 for the scope: the routes DeepNote uses, answering with the recorded
 * shapes of `MeiliShapes.ts` — indexes with a primary key, settings, document uploads validated as Meilisearch does
 * (an invalid id fails the whole task), tasks that go enqueued → processing → succeeded/failed as they are polled,
 * search with `_rankingScore` (a word-overlap score: the shape is real, the ranking is not Meilisearch's), stats,
 * health, version and API-key checks. Every request is recorded.
 */
export const meiliReplay = (options: MeiliReplayOptions = {}): Effect.Effect<MeiliReplay, never, Scope.Scope> => {
  const indexes = new Map<string, Index>()
  const tasks = new Map<number, Task>()
  const per = options.pollsPerState ?? 1
  const ok = (body: unknown, status = 200): Reply => ({ status, body })
  const refuse = (status: number, body: MeiliErrorBody): Reply => ({ status, body })
  const indexOf = (uid: string, primaryKey: string | null = null): Index => {
    const found = indexes.get(uid)
    if (found !== undefined) return found
    const created: Index = { primaryKey, settings: {}, documents: new Map() }
    indexes.set(uid, created)
    return created
  }
  const enqueue = (indexUid: string, type: string, apply: Task["apply"]): Reply => {
    const uid = tasks.size
    tasks.set(uid, { uid, indexUid, type, details: null, error: null, polls: 0, apply })
    return ok(summarizedTask(uid, indexUid, type), 202)
  }
  const poll = (task: Task) => {
    task.polls++
    const stuck = options.stuckTask?.(task.type) === true
    if (task.polls <= per || stuck) {
      return taskObject(task.uid, task.indexUid, task.type, task.polls <= per ? "enqueued" : "processing", null, null)
    }
    if (task.polls <= 2 * per) return taskObject(task.uid, task.indexUid, task.type, "processing", null, null)
    if (task.polls === 2 * per + 1) {
      const injected = options.failTask?.(task.type)
      const done = injected === undefined ? task.apply() : { details: null, error: injected }
      task.details = done.details
      task.error = done.error
    }
    const status = task.error === null ? "succeeded" : "failed"
    return taskObject(task.uid, task.indexUid, task.type, status, task.details, task.error)
  }

  const addDocuments = (uid: string, primaryKey: string | null, documents: Array<Record<string, unknown>>) => () => {
    const index = indexOf(uid, primaryKey)
    index.primaryKey ??= primaryKey
    const details = { receivedDocuments: documents.length, indexedDocuments: 0 }
    const key = index.primaryKey ?? "id"
    const bad = documents.find((d) => !validId(d[key]))
    if (bad !== undefined) return { details, error: meiliErrors.invalidDocumentId(bad[key]) }
    for (const d of documents) index.documents.set(String(d[key]), d)
    return { details: { ...details, indexedDocuments: documents.length }, error: null }
  }

  const search = (index: Index, body: Record<string, unknown>): Reply => {
    const q = typeof body.q === "string" ? body.q : ""
    const limit = typeof body.limit === "number" ? body.limit : 20
    const terms = [...new Set(words(q))]
    const scored = [...index.documents.values()].map((d) => {
      const title = new Set(words(String(d.title ?? "")))
      const text = new Set(words(String(d.text ?? "")))
      const matched = terms.filter((t) => title.has(t) || text.has(t)).length
      const inTitle = terms.filter((t) => title.has(t)).length
      return { d, score: terms.length === 0 ? 0 : (matched + 0.1 * inTitle) / (1.1 * terms.length) }
    }).filter((s) => s.score > 0).sort((a, b) => b.score - a.score)
    const fields = Array.isArray(body.attributesToRetrieve) ? body.attributesToRetrieve.map(String) : undefined
    const hits = scored.slice(0, limit).map(({ d, score }) => ({
      ...(fields === undefined ? d : Object.fromEntries(fields.filter((f) => f in d).map((f) => [f, d[f]]))),
      ...(body.showRankingScore === true ? { _rankingScore: score } : {})
    }))
    return ok({ hits, query: q, processingTimeMs: 1, limit, offset: 0, estimatedTotalHits: scored.length })
  }

  return localServer((r: Recorded): Reply => {
    const [path = "", query = ""] = r.path.split("?")
    const params = new URLSearchParams(query)
    if (r.method === "GET" && path === "/health") return ok({ status: "available" })
    if (options.masterKey !== undefined) {
      if (r.authorization === undefined) return refuse(401, meiliErrors.missingAuthorizationHeader)
      if (r.authorization !== `Bearer ${options.masterKey}`) return refuse(403, meiliErrors.invalidApiKey)
    }
    if (r.method === "GET" && path === "/version") return ok(versionObject(options.version ?? "1.50.0"))
    const body = r.body
    if (r.method === "GET" && path === "/indexes") {
      const results = [...indexes].map(([uid, i]) => indexObject(uid, i.primaryKey))
      return ok({ results, offset: 0, limit: 20, total: results.length })
    }
    if (r.method === "POST" && path === "/indexes") {
      const { primaryKey, uid } = body as { uid: string; primaryKey?: string }
      return enqueue(uid, "indexCreation", () => {
        if (indexes.has(uid)) {
          return { details: { primaryKey: primaryKey ?? null }, error: meiliErrors.indexAlreadyExists(uid) }
        }
        indexOf(uid, primaryKey ?? null)
        return { details: { primaryKey: primaryKey ?? null }, error: null }
      })
    }
    const taskRoute = /^\/tasks\/(\d+)$/.exec(path)
    if (r.method === "GET" && taskRoute !== null) {
      const task = tasks.get(Number(taskRoute[1]))
      return task === undefined ? refuse(404, meiliErrors.taskNotFound(Number(taskRoute[1]))) : ok(poll(task))
    }
    const route = /^\/indexes\/([^/]+)(\/.*)?$/.exec(path)
    if (route === null) return refuse(404, unexpected(r))
    const uid = decodeURIComponent(route[1]!)
    const rest = route[2] ?? ""
    const index = indexes.get(uid)
    if (r.method === "PATCH" && rest === "/settings") {
      return enqueue(uid, "settingsUpdate", () => {
        const i = indexOf(uid)
        i.settings = { ...i.settings, ...(body as Record<string, unknown>) }
        return { details: body as Record<string, unknown>, error: null }
      })
    }
    if (r.method === "POST" && rest === "/documents") {
      return enqueue(
        uid,
        "documentAdditionOrUpdate",
        addDocuments(uid, params.get("primaryKey"), body as Array<Record<string, unknown>>)
      )
    }
    if (r.method === "POST" && rest === "/documents/delete-batch") {
      const ids = (body as Array<unknown>).map(String)
      return enqueue(uid, "documentDeletion", () => {
        const deleted = ids.filter((id) => indexOf(uid).documents.delete(id)).length
        return { details: { providedIds: ids.length, deletedDocuments: deleted, originalFilter: null }, error: null }
      })
    }
    if (index === undefined) return refuse(404, meiliErrors.indexNotFound(uid))
    if (r.method === "GET" && rest === "") return ok(indexObject(uid, index.primaryKey))
    if (r.method === "GET" && rest === "/stats") {
      return ok({ numberOfDocuments: index.documents.size, isIndexing: false, fieldDistribution: {} })
    }
    if (r.method === "POST" && rest === "/search") return search(index, body as Record<string, unknown>)
    return refuse(404, unexpected(r))
  }).pipe(Effect.map((server): MeiliReplay => ({ ...server, indexes })))
}
