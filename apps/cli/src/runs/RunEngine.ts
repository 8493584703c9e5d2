import type { RunConfig } from "@deepnote/core"
import { Collections } from "@deepnote/retrieval"
import { retrieverLayer } from "@deepnote/runs"
import { Layer, type Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { rolesLayer } from "../engine/EngineLayers.js"
import type { LlmOptionValues } from "../engine/LlmOptions.js"

/** The retriever over the run's collection and the roles of its engine, built once per execution. */
export const runEngineLayer = (
  config: RunConfig,
  collection: string,
  llm: LlmOptionValues,
  llmFromFile: unknown,
  home: Option.Option<string>
) =>
  Layer.mergeAll(rolesLayer(config, llm, llmFromFile), retrieverLayer(config, collection)).pipe(
    Layer.provide(Collections.layer),
    Layer.provide(homeLayer(home))
  )
