import type { RunManifest } from "@deepnote-rag/store"

/**
 * The models and servers a run's manifest records, in one line for reports: `model m on http://a (max_model_len
 * 32768)`, or per role when they differ (`models init=a, judge=b, …`). Undefined when it records none.
 */
export const describeEngine = (manifest: RunManifest): string | undefined => {
  const entries = Object.entries(manifest.models)
  if (entries.length === 0 && manifest.servers.length === 0) return undefined
  const distinct = [...new Set(entries.map(([, m]) => m))]
  const models = distinct.length === 1
    ? `model ${distinct[0]}`
    : entries.length > 0
    ? `models ${entries.map(([role, m]) => `${role}=${m}`).join(", ")}`
    : undefined
  const servers = manifest.servers.map((s) =>
    s.kind === "meilisearch"
      ? `${s.endpoint} (meilisearch${s.version === undefined ? "" : ` ${s.version}`})`
      : `${s.endpoint}${s.maxModelLen === undefined ? "" : ` (max_model_len ${s.maxModelLen})`}`
  )
  return [models, servers.length > 0 ? `on ${servers.join(", ")}` : undefined].filter((x) => x !== undefined).join(" ")
}

/** The same facts as data, for JSON exports. */
export const engineOf = (manifest: RunManifest) =>
  Object.keys(manifest.models).length === 0 && manifest.servers.length === 0
    ? undefined
    : { models: manifest.models, servers: manifest.servers }
