import { Context, Effect, Layer } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { RoleError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import { annotateHotSpan, withHotSpan } from "../Observability/HotSpan.js"

export interface PlanInput {
  readonly question: string
  readonly bestNote: Note
  /** Every query asked so far for this question (the planner must not repeat them). */
  readonly queryLog: ReadonlyArray<string>
  /** How many new queries to propose. */
  readonly count: number
  readonly context: CallContext
}

export interface Plan {
  /** The proposed queries, parsed. */
  readonly queries: ReadonlyArray<string>
  /** The planner's output as produced (the `paper` profile retrieves with it verbatim). */
  readonly raw: string
}

export interface QueryPlannerService {
  readonly plan: (input: PlanInput) => Effect.Effect<Plan, RoleError>
}

/** Proposes new queries from the question, the best note and the query log (query refinement). */
export class QueryPlanner extends Context.Tag("@deepnote-rag/core/QueryPlanner")<QueryPlanner, QueryPlannerService>() {
  /** Wraps an implementation so every call is a `QueryPlanner.plan` span with the call's ids. */
  static readonly make = (impl: QueryPlannerService): QueryPlannerService => ({
    plan: Effect.fnUntraced(function*(input: PlanInput) {
      yield* annotateHotSpan({
        "deepnote.step": input.context.step,
        "deepnote.item.id": input.context.questionId,
        "deepnote.query_log": input.queryLog.length
      })
      return yield* impl.plan(input)
    }, withHotSpan("QueryPlanner.plan"))
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: QueryPlannerService) => Layer.succeed(QueryPlanner, QueryPlanner.make(impl))
}
