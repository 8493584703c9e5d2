import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { planQueries, writeInitialNote } from "../src/index.js"
import { corliss } from "./fixtures.js"

/** A bridge comparison (2WikiMultihopQA's shape): each film's director is a bridge to his own passage. */
const question = "Which film has the director died earlier, Payment On Demand or My Cousin From Warsaw?"
const filmA = "Payment on Demand is a 1951 drama film starring Bette Davis.\n" +
  "Payment on Demand: The film was directed by Curtis Bernhardt."
const filmB = "My Cousin from Warsaw is a 1931 comedy film directed by Carmine Gallone and produced by Jerry Wald."

const entityOf = (query: string) => query.split(" ").slice(0, 2).join(" ")

describe("planQueries honours numQueries", () => {
  it.effect("returns up to `count` queries: the best bridge, then the next-best candidates", () =>
    Effect.sync(() => {
      const note = `${filmB}\n${filmA}`
      const all = planQueries(question, note, [], 99)
      assert.isAtLeast(all.length, 4, all.join(" | "))
      for (const count of [0, 1, 2, 3]) {
        assert.deepStrictEqual(planQueries(question, note, [], count), all.slice(0, count))
      }
      assert.strictEqual(new Set(all).size, all.length)
      const corlissNote = writeInitialNote(corliss.question, [corliss.film, corliss.secretary])
      const [first, second] = planQueries(corliss.question, corlissNote, [], 2)
      assert.isTrue(first!.startsWith("Shirley Temple"), first)
      assert.isDefined(second)
    }))

  it.effect("the entity next to the question's relation word: the director, not the star", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(planQueries(question, filmA, [], 1).map(entityOf), ["Curtis Bernhardt"])
      // without the relation cue the star, named next to the film's title, wins
      assert.deepStrictEqual(planQueries(question, filmA, [], 1, { relationWeight: 0 }).map(entityOf), ["Bette Davis"])
    }))

  it.effect("a further query comes from another passage first: one director per film", () =>
    Effect.sync(() => {
      const queries = planQueries(question, `${filmB}\n${filmA}`, [], 2).map(entityOf)
      assert.sameMembers(queries, ["Carmine Gallone", "Curtis Bernhardt"])
      assert.notInclude(queries, "Jerry Wald")
    }))

  it.effect("then the question's entities whose passage the note does not show", () =>
    Effect.sync(() => {
      // only the first film was read: its director, then the second film the question names
      const queries = planQueries(question, filmA, [], 5)
      assert.strictEqual(entityOf(queries[0]!), "Curtis Bernhardt")
      const named = queries.findIndex((q) => q.startsWith("Cousin From Warsaw"))
      assert.isAbove(named, 0, queries.join(" | "))
      assert.isFalse(queries.some((q) => q.startsWith("Payment On Demand")), "the first film's passage is read")
      // both films read: no question entity is asked again
      assert.isFalse(planQueries(question, `${filmA}\n${filmB}`, [], 9).some((q) => q.startsWith("Cousin From")))
    }))

  it.effect("deterministic: the same input gives the same queries", () =>
    Effect.sync(() => {
      const note = `${filmB}\n${filmA}`
      assert.deepStrictEqual(planQueries(question, note, [], 3), planQueries(question, note, [], 3))
    }))
})
