export * from "./CacheKey.js"
export * from "./CallUsage.js"
export { AdaptiveLimit, controller as adaptiveController, type LimitChange } from "./Client/AdaptiveLimit.js"
export * from "./Client/Backoff.js"
export * from "./Client/Capacity.js"
export {
  choose,
  type EndpointCondition,
  type EndpointHealth,
  EndpointState,
  type EndpointStatus,
  preferredFor,
  type Route,
  type StructuredSupport
} from "./Client/Endpoint.js"
export {
  type Acquired,
  EndpointPool,
  type EndpointPoolService,
  type Outcome,
  withHeadroom
} from "./Client/EndpointPool.js"
export type { ModelPlacement } from "./Client/ModelCheck.js"
export type { LlmHealth, PoolState } from "./Client/PoolHealth.js"
export { RetryThrottle } from "./Client/RetryThrottle.js"
export { parseServerLoad, type ServerLoad } from "./Client/ServerLoad.js"
export { structuredFields } from "./Client/Structured.js"
export * from "./Domain/Chat.js"
export * from "./Domain/LlmError.js"
export * from "./Domain/OpenAiReplies.js"
export * from "./Embeddings/EmbeddingsSettings.js"
export * as HttpEmbedder from "./Embeddings/HttpEmbedder.js"
export * from "./LlmCache.js"
export * as LlmCallPolicy from "./LlmCallPolicy.js"
export * from "./LlmClient.js"
export * as LlmEngine from "./LlmEngine.js"
export * from "./LlmHttp.js"
export * from "./LlmMetrics.js"
export * from "./LlmSettings.js"
export * from "./Prompts/AlignPrompts.js"
export * from "./Prompts/DeepRagPrompts.js"
export * from "./Prompts/Instructions.js"
export * from "./Prompts/Layout.js"
export * from "./Prompts/Prompts.js"
export * from "./Prompts/RenactPrompts.js"
export * from "./Prompts/Sections.js"
export * as LlmAnswerer from "./Roles/LlmAnswerer.js"
export * as LlmJudge from "./Roles/LlmJudge.js"
export * as LlmNoteWriter from "./Roles/LlmNoteWriter.js"
export * as LlmQueryPlanner from "./Roles/LlmQueryPlanner.js"
export * as Parse from "./Roles/Parse.js"
export * from "./Tokens.js"
export * from "./UsageLedger.js"
