/** The hash routes of the pages. */
export type Route =
  /** `pageSize`: runs per page of the list (`#/runs?limit=N`, 1–1,000; default 100). */
  | { readonly page: "runs"; readonly pageSize: number }
  | { readonly page: "run"; readonly runId: string }
  | { readonly page: "question"; readonly runId: string; readonly itemId: string }
  | { readonly page: "pair"; readonly base: string; readonly candidate: string; readonly itemId: string }
  | { readonly page: "compare"; readonly base: string; readonly candidate: string }
  | { readonly page: "sweep"; readonly sweepId: string }
  | { readonly page: "unknown"; readonly hash: string }

/** Runs per page of the runs list unless `#/runs?limit=N` says. */
export const runsPageSize = 100

const e = encodeURIComponent

export const href = {
  runs: () => "#/runs",
  run: (runId: string) => `#/runs/${e(runId)}`,
  question: (runId: string, itemId: string) => `#/runs/${e(runId)}/items/${e(itemId)}`,
  compare: (base: string, candidate: string) => `#/compare?base=${e(base)}&candidate=${e(candidate)}`,
  pair: (base: string, candidate: string, itemId: string) =>
    `#/compare/items/${e(itemId)}?base=${e(base)}&candidate=${e(candidate)}`,
  sweep: (sweepId: string) => `#/sweeps/${e(sweepId)}`
}

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Reads a hash (`#/runs/abc`) as a route. */
export const parseRoute = (hash: string): Route => {
  const raw = hash.replace(/^#\/?/u, "")
  const [path = "", query = ""] = raw.split("?", 2)
  const params = new URLSearchParams(query)
  const parts = path.split("/").filter((p) => p !== "").map(decode)
  if (parts.length === 0 || (parts.length === 1 && parts[0] === "runs")) {
    const limit = Number(params.get("limit") ?? Number.NaN)
    return { page: "runs", pageSize: Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? limit : runsPageSize }
  }
  if (parts[0] === "runs" && parts.length === 2) return { page: "run", runId: parts[1]! }
  if (parts[0] === "runs" && parts.length === 4 && parts[2] === "items") {
    return { page: "question", runId: parts[1]!, itemId: parts[3]! }
  }
  if (parts[0] === "sweeps" && parts.length === 2) return { page: "sweep", sweepId: parts[1]! }
  const base = params.get("base")
  const candidate = params.get("candidate")
  if (parts[0] === "compare" && base !== null && candidate !== null) {
    if (parts.length === 1) return { page: "compare", base, candidate }
    if (parts.length === 3 && parts[1] === "items") return { page: "pair", base, candidate, itemId: parts[2]! }
  }
  return { page: "unknown", hash }
}
