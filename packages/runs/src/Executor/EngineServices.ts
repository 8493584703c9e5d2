export type { EngineServices } from "@deepnote-rag/engine"
