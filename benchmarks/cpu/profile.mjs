// Summarises a `node --cpu-prof` profile: shares of samples by self time per function and per code area.

/** The code area a script URL belongs to (a workspace package, a dependency, or node's internals). */
const areaOf = (url, name) => {
  if (url === "") return name.startsWith("(") ? name : "(native)"
  const ws = /\/(packages|apps)\/([^/]+)\/dist\//u.exec(url)
  if (ws) return `@deepnote-rag/${ws[2]}`
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//u.exec(url)
  if (dep) return dep[1]
  if (url.startsWith("node:")) return "node:internal"
  return "other"
}

/** `{ functions, areas, samples }`: the `top` functions by self samples, and every area's share. */
export const summarizeProfile = (profile, top = 20) => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + 1)
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").reduce((s, n) => s + (self.get(n.id) ?? 0), 0)
  const busy = profile.samples.length - idle
  const functions = new Map()
  const areas = new Map()
  for (const [id, count] of self) {
    const { functionName, lineNumber, url } = byId.get(id).callFrame
    if (functionName === "(idle)") continue
    const file = url.replace(/^.*\/(packages|apps|node_modules)\//u, "$1/")
    const key = `${functionName || "(anonymous)"} ${file}${url ? `:${lineNumber + 1}` : ""}`
    functions.set(key, (functions.get(key) ?? 0) + count)
    const area = areaOf(url, functionName)
    areas.set(area, (areas.get(area) ?? 0) + count)
  }
  const share = (n) => Math.round((1000 * n) / busy) / 10
  return {
    busySamples: busy,
    functions: [...functions].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, n]) => ({ name, share: share(n) })),
    areas: [...areas].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, n]) => ({ name, share: share(n) }))
  }
}
