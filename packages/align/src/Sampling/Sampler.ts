import type { AnswererService, NoteWriterService, QueryPlannerService } from "@deepnote-rag/core"
import type { SampleSlot } from "./Slots.js"

/** The roles a sample is drawn from. */
export interface SampledRoles {
  readonly noteWriter: NoteWriterService
  readonly queryPlanner: QueryPlannerService
  readonly answerer: AnswererService
}

/**
 * Where a role's samples come from: the roles to call for one slot of the grid. An LLM engine answers every slot
 * with the same roles (the slot's sampling travels in the call context: `contextAt`); the extractive engine stands
 * in with roles whose options vary by slot (`ExtractiveSampler`).
 */
export interface Sampler {
  readonly at: (slot: SampleSlot) => SampledRoles
}

/** The engine's own roles at every slot (LLM: the sampling of the call context makes the samples differ). */
export const fromRoles = (roles: SampledRoles): Sampler => ({ at: () => roles })
