import type { Answerer, Judge, NoteWriter, QueryPlanner, Retriever } from "@deepnote/core"

/** The services a run's questions are answered with: the retriever and the four roles of an engine. */
export type EngineServices = Retriever | NoteWriter | QueryPlanner | Judge | Answerer
