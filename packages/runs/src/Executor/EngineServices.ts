export type { EngineServices } from "@deepnote/engine"
