import type { Effect } from "effect"
import type { Answer } from "../Domain/Answer.js"
import type { CallContext } from "../Domain/CallContext.js"
import type { PipelineError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { Profile } from "../Domain/Profile.js"
import type { RoleFormats } from "../Domain/RoleFormats.js"
import type { RunConfig } from "../Domain/RunConfig.js"
import type { StopReason } from "../Domain/StopReason.js"
import type { Recorder } from "../Pipeline/Recorder.js"
import type { Answerer } from "../Services/Answerer.js"
import type { Judge } from "../Services/Judge.js"
import type { NoteWriter } from "../Services/NoteWriter.js"
import type { QueryPlanner } from "../Services/QueryPlanner.js"
import type { Retriever } from "../Services/Retriever.js"

/** The roles a profile may call. */
export type ProfileRoles = Retriever | NoteWriter | QueryPlanner | Judge | Answerer

/** What one question's run of a profile produced (the answer, the best note if it kept one, why it stopped). */
export interface ProfileOutcome {
  readonly answer: Answer
  readonly best: Note | undefined
  readonly reason: StopReason
}

/** Runs one question: events and counters go to the recorder, every call gets `base` with its step. */
export type ProfileRun = (
  question: string,
  recorder: Recorder,
  base: Omit<CallContext, "step">
) => Effect.Effect<ProfileOutcome, PipelineError, ProfileRoles>

/** What a stop policy sees after the first note and after every step of a note loop. */
export interface LoopState {
  /** Steps run (0 right after the first note). */
  readonly step: number
  /** Cumulative rejected notes (invalid updates). */
  readonly failures: number
  /** Unique passages read so far. */
  readonly uniquePassages: number
  readonly config: RunConfig
}

/** When a note loop ends: a reason to stop, or `undefined` to run another step. Every policy bounds the steps. */
export type StopPolicy = (state: LoopState) => StopReason | undefined

/** A profile's defaults for the knobs it reads beyond the shared ones (see `ProfileDefinition.defaults`). */
export type ProfileDefaults = Partial<Record<keyof RunConfig, number>>

/**
 * The passage budget of a run: `maxUniquePassages` when set, else the profile's default; `undefined` = unbounded.
 * The recorder cuts every retrieval to it, and every loop's stop policy stops once it is spent (`passage-cap`).
 */
export const passageBudget = (config: RunConfig, defaults: ProfileDefaults): number | undefined =>
  config.maxUniquePassages ?? defaults.maxUniquePassages

/** Whether the passages read have reached the budget (≥: the budget is exact, nothing more can be read). */
export const budgetSpent = (state: LoopState, defaults: ProfileDefaults): boolean => {
  const budget = passageBudget(state.config, defaults)
  return budget !== undefined && state.uniquePassages >= budget
}

/**
 * The note loop's stop rule, shared by `deepnote` and `paper` (they differ only in their passage budget): cumulative
 * rejected notes reach `maxFailure`, else every one of `maxStep` steps ran, else the budget is spent.
 */
export const noteLoopStop = (defaults: ProfileDefaults): StopPolicy => (state) =>
  state.failures >= state.config.maxFailure
    ? "max-failure"
    : state.step >= state.config.maxStep
    ? "max-step"
    : budgetSpent(state, defaults)
    ? "passage-cap"
    : undefined

/**
 * How the LLM roles' prompts are laid out, for a server's prefix cache:
 * - `role-first`: each role's instructions as its system message, then the question, the note(s) and the inputs
 *   (the reference implementation's order: `paper` keeps it for parity);
 * - `shared-prefix`: one system message for every role, then the question and the current best note under one
 *   heading, then the role's instructions, then its inputs, so the calls of different roles on one question share
 *   their prefix up to the instructions, at the price of instructions no longer shared across questions
 *   (benchmarks/llm/prefix-layout.md, HotpotQA dev-200: hit rate 34.3% → 43.2%, uncached prompt tokens −3.6%; with
 *   the synthetic workload's one-sentence notes +42%: it pays when notes are longer than the instructions).
 */
export type PromptLayoutName = "role-first" | "shared-prefix"

/**
 * One algorithm, as a value: how it runs a question, when its loop stops, what it asks of each role and which knobs
 * it reads with which defaults. The registry (`profiles`) holds one per `Profile`.
 */
export interface ProfileDefinition {
  readonly name: Profile
  /** One line for help texts and model lists. */
  readonly summary: string
  /** Whether it reads a collection (`no-retrieval` does not: callers skip opening one). */
  readonly retrieves: boolean
  readonly formats: RoleFormats
  /** How an LLM engine lays out the roles' prompts (see `PromptLayoutName`). */
  readonly promptLayout: PromptLayoutName
  /** The loop's stop rule (`undefined` for the baselines, which run no loop). */
  readonly stop: StopPolicy | undefined
  /**
   * Knobs this profile reads beyond the shared ones, with the defaults it uses when they are unset; its passage
   * budget (`maxUniquePassages`) when it has one by default.
   */
  readonly defaults: ProfileDefaults
  readonly run: ProfileRun
}
