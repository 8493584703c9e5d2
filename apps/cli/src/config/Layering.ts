/** A partial, encoded RunConfig built up from one source (defaults < environment < file < flags). */
export type ConfigLayer = { [key: string]: unknown }

const isRecord = (value: unknown): value is ConfigLayer =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Sets a nested value, creating objects along the path. */
export const setPath = (target: ConfigLayer, path: ReadonlyArray<string>, value: unknown): void => {
  let node = target
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    if (!isRecord(next)) node[key] = {}
    node = node[key] as ConfigLayer
  }
  node[path[path.length - 1]!] = value
}

/** Deep-merges layers left to right: later layers win, nested objects merge. */
export const mergeLayers = (...layers: ReadonlyArray<ConfigLayer>): ConfigLayer => {
  const out: ConfigLayer = {}
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      const current = out[key]
      out[key] = isRecord(current) && isRecord(value) ? mergeLayers(current, value) : value
    }
  }
  return out
}
