import { gridOf, paperGrid } from "@deepnote-rag/align"
import { type AlignMix, type AlignRole, alignRoles, type MixQuotas } from "@deepnote-rag/core"
import { Array as Arr, Effect, HashMap, Option } from "effect"
import * as Path from "node:path"
import { UsageError } from "../Errors.js"

const fail = (message: string) => Effect.fail(new UsageError({ message }))

const allRoles: Arr.NonEmptyReadonlyArray<AlignRole> = ["init", "plan", "update", "answer"]

/** `--roles init,plan`: known roles, each once, at least one (default: all four). */
export const parseRoles = (text: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(text)) return allRoles
    const names = text.value.split(",").map((r) => r.trim()).filter((r) => r.length > 0)
    const roles: Array<AlignRole> = []
    for (const name of names) {
      const role = alignRoles.find((r) => r === name)
      if (role === undefined) {
        return yield* fail(`--roles: unknown role "${name}" (choose from ${alignRoles.join(", ")})`)
      }
      if (roles.includes(role)) return yield* fail(`--roles: "${name}" is given twice`)
      roles.push(role)
    }
    // in the recipe's order, whatever the order given
    const ordered = alignRoles.filter((r) => roles.includes(r))
    return Arr.isNonEmptyReadonlyArray(ordered)
      ? ordered
      : yield* fail(`--roles: name at least one of ${alignRoles.join(", ")}`)
  })

const numbers = (flag: string, key: string, text: string, min: number, max: number, minExclusive = false) =>
  Effect.gen(function*() {
    const values: Array<number> = []
    for (const part of text.split(",").map((p) => p.trim())) {
      const value = Number(part)
      const low = minExclusive ? value > min : value >= min
      if (part.length === 0 || !Number.isFinite(value) || !low || value > max) {
        return yield* fail(
          `${flag} ${key}=${text}: "${part}" is not a number in ${minExclusive ? "(" : "["}${min}, ${max}]`
        )
      }
      if (!values.includes(value)) values.push(value)
    }
    return Arr.isNonEmptyReadonlyArray(values) ? values : yield* fail(`${flag} ${key}=: give at least one value`)
  })

/**
 * `--sampling-grid temperature=0.1,0.5,0.9 top_p=0.1,0.5,0.9`: every combination of the values (the paper's grid by
 * default; a key left out keeps the paper's values).
 */
export const parseGrid = (grid: Option.Option<HashMap.HashMap<string, string>>) =>
  Effect.gen(function*() {
    if (Option.isNone(grid)) return paperGrid
    let temperatures: Arr.NonEmptyReadonlyArray<number> = [0.1, 0.5, 0.9]
    let topPs: Arr.NonEmptyReadonlyArray<number> = [0.1, 0.5, 0.9]
    for (const [key, text] of grid.value) {
      if (key === "temperature") temperatures = yield* numbers("--sampling-grid", key, text, 0, 2)
      else if (key === "top_p" || key === "top-p" || key === "topP") {
        topPs = yield* numbers("--sampling-grid", key, text, 0, 1, true)
      } else {
        return yield* fail(`--sampling-grid: unknown key "${key}" (use temperature=… and top_p=…)`)
      }
    }
    return gridOf(temperatures, topPs)
  })

/** `--top-k-range 3..9` (or one number); without it, the `--top-k` given, else the reference's 3..9. */
export const parseTopKRange = (text: Option.Option<string>, topK: Option.Option<number>) =>
  Effect.gen(function*() {
    if (Option.isNone(text)) {
      return Option.match(topK, { onNone: () => ({ min: 3, max: 9 }), onSome: (k) => ({ min: k, max: k }) })
    }
    const m = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/u.exec(text.value)
    const min = Number(m?.[1])
    const max = m?.[2] === undefined ? min : Number(m[2])
    if (m === null || min < 1 || max > 100 || min > max) {
      return yield* fail(`--top-k-range ${text.value}: expected MIN..MAX with 1 ≤ MIN ≤ MAX ≤ 100 (e.g. 3..9)`)
    }
    return { min, max }
  })

/** `--mix all|paper|init=1900,plan=1900,update=1900,answer=300`. */
export const parseMix = (text: string) =>
  Effect.gen(function*() {
    if (text === "all" || text === "paper") return text satisfies AlignMix
    const quotas: { -readonly [K in keyof MixQuotas]: MixQuotas[K] } = {}
    for (const part of text.split(",").map((p) => p.trim())) {
      const m = /^(\w+)=(\d+)$/u.exec(part)
      const role = alignRoles.find((r) => r === m?.[1])
      if (m === null || role === undefined) {
        return yield* fail(
          `--mix ${text}: expected all, paper or ROLE=COUNT,… with ROLE one of ${alignRoles.join(", ")}`
        )
      }
      quotas[role] = Number(m[2])
    }
    return quotas satisfies AlignMix
  })

/** The dataset card beside the pairs: `pairs.jsonl` → `pairs.card.md`. */
export const defaultCardPath = (output: string): string =>
  Path.join(Path.dirname(output), `${Path.basename(output).replace(/\.jsonl$/u, "")}.card.md`)
