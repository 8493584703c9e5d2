import {
  type AlignRole,
  type AlignSpec,
  type CallContext,
  Passage,
  type Question,
  type RetrievalError,
  type RetrievalRequest,
  Retriever,
  type RoleError,
  samplingFor
} from "@deepnote-rag/core"
import { Effect, Schema } from "effect"
import type { SampledRoles, Sampler } from "../Sampling/Sampler.js"
import { contextAt, type SampleSlot } from "../Sampling/Slots.js"
import type { AlignCalls } from "./AlignCalls.js"
import type { Sample } from "./Groups.js"

/** What every stage of one question reads. */
export interface QuestionEnv {
  readonly question: Question
  /** The call context of the first retrieval and the init and answer samples (step 0). */
  readonly base: CallContext
  readonly spec: AlignSpec
  readonly slots: ReadonlyArray<SampleSlot>
  readonly topK: number
  readonly sampler: Sampler
  readonly calls: AlignCalls
  /** The judge as the pairs' metadata names it: the judge model, or `extractive`. */
  readonly judgeLabel: string
}

/** The context of a later step (knowledge accumulation reads step 1, as the loop's first refinement). */
export const atStep = (context: CallContext, step: number): CallContext => ({ ...context, step })

const Passages = Schema.Array(Passage)

/** A retrieval through the journal. */
export const retrieve = (env: QuestionEnv, request: RetrievalRequest) =>
  Effect.flatMap(Retriever, (retriever) => env.calls.call("retrieve", request, Passages, retriever.search(request)))

/**
 * Samples a role once per slot, in slot order, each call through the journal with its slot in the request hash: the
 * slot's sampling replaces the role's in the call context (`contextAt`), and the sampler gives the roles to call.
 */
export const sampleAll = <A, I, R extends { readonly context: CallContext }>(
  env: QuestionEnv,
  role: AlignRole,
  context: CallContext,
  schema: Schema.Schema<A, I>,
  request: (context: CallContext) => R,
  call: (roles: SampledRoles, request: R) => Effect.Effect<A, RoleError>,
  text: (value: A) => string
): Effect.Effect<Array<Sample<A>>, RoleError | RetrievalError> =>
  Effect.forEach(env.slots, (slot) => {
    const input = request(contextAt(context, role, slot))
    return env.calls.call(role, { ...input, slot }, schema, call(env.sampler.at(slot), input)).pipe(
      Effect.map((value) => ({ slot, value, text: text(value) }))
    )
  })

/** One call of a role at the run's own sampling (a stage the run does not make pairs for, but a later one needs). */
export const sampleOnce = <A, I, R extends { readonly context: CallContext }>(
  env: QuestionEnv,
  role: AlignRole,
  context: CallContext,
  schema: Schema.Schema<A, I>,
  request: R,
  call: (roles: SampledRoles, request: R) => Effect.Effect<A, RoleError>
): Effect.Effect<A, RoleError | RetrievalError> => {
  const own = samplingFor(context.config, role)
  const slot: SampleSlot = { sample: 0, temperature: own.temperature, topP: own.topP, seed: own.seed }
  return env.calls.call(role, { ...request, once: true }, schema, call(env.sampler.at(slot), request))
}
