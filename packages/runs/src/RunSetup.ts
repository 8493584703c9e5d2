import {
  type AlignSpec,
  type Role,
  type RunConfig,
  RunConfig as RunConfigSchema,
  samplingFor,
  sha256Hex,
  stableHash
} from "@deepnote-rag/core"
import { type DatasetFormat, loadDataset } from "@deepnote-rag/eval"
import { capacityOf, type LlmCallError, type LlmCapacity, LlmClient, maxQuestionsInFlight } from "@deepnote-rag/llm"
import { type Run, RunManifest, RunStore, type ServerInfo, type SweepCell } from "@deepnote-rag/store"
import { FileSystem } from "@effect/platform"
import { Chunk, Data, Effect, Option, Schema, Stream } from "effect"

/** The code version recorded in every manifest. */
export const codeVersion = "deepnote@0.1.0"

/** The hash every journal request of a run includes: a changed config never replays another config's calls. */
export const configHash = (config: RunConfig): string => stableHash(Schema.encodeSync(RunConfigSchema)(config))

export interface NewRun {
  readonly dataset: string
  readonly format?: DatasetFormat | undefined
  readonly limit?: number | undefined
  readonly onBadLine?: "skip" | "fail" | undefined
  readonly config: RunConfig
  readonly collection: string
  /** Hash of the engine's prompts (LLM engine) or its name and version (extractive). */
  readonly promptSetHash: string
  readonly label?: string | undefined
  readonly sweep?: SweepCell | undefined
  /** Questions in flight at once; recorded so that a resume keeps it. */
  readonly concurrency?: number | undefined
  /** Why `concurrency` is what it is, recorded beside it (not part of the config hash). */
  readonly concurrencyReason?: string | undefined
  /** The collection's content hash (`Collections.fingerprint`), when the profile retrieves. */
  readonly collectionFingerprint?: string | undefined
  /** `local` (default): one process executes it; `queue`: its questions are jobs for queue workers. */
  readonly execution?: "local" | "queue" | undefined
  /** What the LLM engine's startup check found (`engineFacts`): recorded in the manifest. */
  readonly llm?: EngineFacts | undefined
  /** Dense and hybrid runs: the collection's embeddings model and vector length (`embeddingFacts`). */
  readonly embeddings?: { readonly model: string; readonly dimensions: number } | undefined
  /** An align run's recipe (`deepnote align-data`): its questions make preference pairs. */
  readonly align?: AlignSpec | undefined
  /** `retriever: meilisearch`: the index searched instead of `collection` (recorded in the manifest's `indexId`). */
  readonly meilisearch?: MeiliTarget | undefined
}

/** A Meilisearch index as a manifest records it: the server without credentials, the index uid, its version. */
export interface MeiliTarget {
  readonly host: string
  readonly index: string
  readonly version?: string | undefined
}

/** `meilisearch:INDEX@HOST`: the `indexId` of a run over a Meilisearch index (index uids never contain `@`). */
export const meiliIndexId = (target: MeiliTarget): string => `meilisearch:${target.index}@${target.host}`

/** The LLM servers a run's manifest records (not its search servers): where `resume` goes when told nowhere else. */
export const recordedLlmServers = (run: Run): ReadonlyArray<string> =>
  run.manifest.servers.filter((server) => server.kind !== "meilisearch").map((server) => server.endpoint)

/** The Meilisearch index a run searches, from its manifest's `indexId`; none for a run over a collection. */
export const meiliTargetOf = (run: Run): Option.Option<MeiliTarget> => {
  const match = /^meilisearch:([^@]+)@(.+)$/.exec(run.manifest.indexId ?? "")
  return match === null ? Option.none() : Option.some({ index: match[1]!, host: match[2]! })
}

/** The models an LLM run uses per role and the servers that serve them, as the servers said before it started. */
export interface EngineFacts {
  readonly models: Readonly<Record<string, string>>
  readonly servers: ReadonlyArray<ServerInfo>
  /** The sequences the endpoints run at once and the questions in flight that fill them (not recorded as is). */
  readonly capacity: LlmCapacity
}

const roles: ReadonlyArray<Role> = ["init", "update", "plan", "judge", "answer"]

/**
 * The LLM engine's startup check for a configuration: each role's model (configured, else discovered) must be served
 * by some endpoint (else one clear error naming the model and the endpoints tried); returns the facts the manifest
 * records: the model id per role and each endpoint with its models and `max_model_len`.
 */
export const engineFacts = (config: RunConfig): Effect.Effect<EngineFacts, LlmCallError, LlmClient> =>
  Effect.gen(function*() {
    const client = yield* LlmClient
    const requested = roles.map((role) => samplingFor(config, role).model)
    const placements = yield* client.checkModels(requested)
    const placementOf = (model: string | undefined) => placements.find((p) => p.requested === model)
    const models = Object.fromEntries(roles.map((role, i) => [role, placementOf(requested[i])?.model ?? "unknown"]))
    const servers = new Map<string, { models: Set<string>; maxModelLen: number | undefined }>()
    for (const p of placements) {
      for (const e of p.endpoints) {
        const server = servers.get(e.url) ?? { models: new Set<string>(), maxModelLen: e.maxModelLen }
        server.models.add(p.model)
        servers.set(e.url, server)
      }
    }
    const capacity = capacityOf(yield* client.endpoints, maxQuestionsInFlight)
    return {
      models,
      capacity,
      servers: [...servers].map(([endpoint, s]) => ({
        endpoint,
        kind: "openai-compatible",
        models: [...s.models],
        ...(s.maxModelLen === undefined ? {} : { maxModelLen: s.maxModelLen })
      }))
    }
  })

/** A resume would mix incompatible settings (the prompts or the code changed). */
export class ResumeRefused extends Data.TaggedError("ResumeRefused")<{ readonly message: string }> {}

/** Loads the dataset, writes the manifest and the items (one transaction). Bad dataset lines fail or are skipped. */
/** The manifest fields a configuration decides: the config and its hash, the prompt set, models and servers. */
export const configFacts = (input: {
  readonly config: RunConfig
  readonly promptSetHash: string
  readonly llm?: EngineFacts | undefined
}) => ({
  config: input.config,
  configHash: configHash(input.config),
  promptSetHash: input.promptSetHash,
  models: input.llm?.models ?? (input.config.sampling.model === undefined ? {} : { "*": input.config.sampling.model }),
  servers: input.llm?.servers ?? []
})

export const createRun = (input: NewRun) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const store = yield* RunStore
    const dataset = yield* loadDataset(input.dataset, {
      format: input.format,
      limit: input.limit,
      onBadLine: input.onBadLine ?? "fail"
    })
    const bytes = yield* fs.readFile(input.dataset).pipe(Effect.orDie)
    const facts = configFacts(input)
    const meili = input.meilisearch
    const manifest = new RunManifest({
      ...facts,
      indexId: meili === undefined ? `collection:${input.collection}` : meiliIndexId(meili),
      // the search server beside the model servers, so a report says which Meilisearch (and version) answered
      servers: meili === undefined ? facts.servers : [
        ...facts.servers,
        {
          endpoint: meili.host,
          kind: "meilisearch",
          ...(meili.version === undefined ? {} : { version: meili.version })
        }
      ],
      ...(input.collectionFingerprint === undefined ? {} : { collectionFingerprint: input.collectionFingerprint }),
      ...(input.embeddings === undefined ? {} : { embeddings: input.embeddings }),
      codeVersion,
      dataset: { path: input.dataset, hash: sha256Hex(bytes), format: dataset.format, count: dataset.questions.length },
      ...(input.sweep === undefined ? {} : { sweep: input.sweep }),
      ...(input.label === undefined ? {} : { label: input.label }),
      ...(input.concurrency === undefined ? {} : { concurrency: input.concurrency }),
      ...(input.concurrencyReason === undefined ? {} : { concurrencyReason: input.concurrencyReason }),
      ...(input.align === undefined ? {} : { align: input.align })
    })
    // the run and its questions in one transaction: a store that fails on the way keeps no empty run
    const run = yield* store.createRun({ manifest, execution: input.execution, questions: dataset.questions })
    return { run, badLines: dataset.badLines }
  })

/** The concurrency a resume uses: the one asked for, else the run's own (recorded at creation), else `fallback`. */
export const resumeConcurrency = (run: Run, requested: number | undefined, fallback: number): number =>
  requested ?? run.manifest.concurrency ?? fallback

/** The collection a run retrieves from (recorded as `collection:NAME` in its manifest; a Meilisearch run's `indexId`). */
export const collectionOf = (run: Run): string => run.manifest.indexId?.replace(/^collection:/, "") ?? "default"

/** Refuses to resume a run whose prompts or code differ from this build's, unless a new run is forced. */
export const checkResumable = (run: Run, current: { readonly promptSetHash: string }) =>
  Effect.gen(function*() {
    if (run.manifest.promptSetHash !== undefined && run.manifest.promptSetHash !== current.promptSetHash) {
      return yield* new ResumeRefused({
        message: `run ${run.id} was made with prompt set ${run.manifest.promptSetHash.slice(0, 12)}, this build has ${
          current.promptSetHash.slice(0, 12)
        }: resuming would mix answers from different prompts. Use --force-new-run to start a new run with the same settings and questions.`
      })
    }
    if (run.manifest.configHash !== configHash(run.manifest.config)) {
      return yield* new ResumeRefused({
        message:
          `run ${run.id}: its stored configuration no longer hashes the same (the config schema changed). Use --force-new-run.`
      })
    }
  })

/** A new run with another run's manifest (this build's prompt hash) and questions: `resume --force-new-run`. */
export const createRunFromRun = (run: Run, current: { readonly promptSetHash: string }) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const manifest = new RunManifest({
      ...run.manifest,
      promptSetHash: current.promptSetHash,
      configHash: configHash(run.manifest.config),
      label: `from ${run.id}`
    })
    const fresh = yield* store.createRun({ manifest })
    const questions = yield* Stream.runCollect(
      store.results(run.id, { statuses: ["done", "failed", "pending", "running"] })
    )
    yield* store.addItems(fresh.id, Chunk.toReadonlyArray(questions).map((record) => record.question))
    return yield* store.getRun(fresh.id)
  })
