import { Profile, profiles, QueryComposition, RetrieverKind } from "@deepnote-rag/core"
import { Options } from "@effect/cli"
import { Option } from "effect"

/** How a knob's text value (flag, environment variable) becomes a config value. */
type Kind = "int" | "float" | "text" | { readonly choices: ReadonlyArray<string> }

export interface Knob {
  /** Path in the (encoded) RunConfig, e.g. ["sampling", "topP"]. */
  readonly path: ReadonlyArray<string>
  readonly flag: string
  readonly kind: Kind
  readonly description: string
}

/** Every RunConfig knob, with its flag (`--top-k`) and environment variable (`DEEPNOTE_TOP_K`). */
export const knobs: ReadonlyArray<Knob> = [
  {
    path: ["profile"],
    flag: "profile",
    kind: { choices: Profile.literals },
    description: `algorithm (default deepnote): ${
      Profile.literals.map((p) => `${p}: ${profiles[p].summary}`).join("; ")
    }`
  },
  {
    path: ["engine"],
    flag: "engine",
    kind: { choices: ["extractive", "llm"] },
    description: "extractive (offline baseline, default) or llm (an OpenAI-compatible server such as vLLM)"
  },
  {
    path: ["task"],
    flag: "task",
    kind: { choices: ["multihop", "longform", "yesno"] },
    description: "answer style (default multihop)"
  },
  {
    path: ["language"],
    flag: "language",
    kind: { choices: ["auto", "en", "zh"] },
    description: "prompt/tokeniser language (default auto: detected from the question)"
  },
  { path: ["topK"], flag: "top-k", kind: "int", description: "passages kept per retrieval (default 5)" },
  {
    path: ["recallK"],
    flag: "recall-k",
    kind: "int",
    description: "candidates recalled per query before fusion and rerank (default 50)"
  },
  { path: ["numQueries"], flag: "num-queries", kind: "int", description: "new queries planned per step (default 2)" },
  {
    path: ["queryComposition"],
    flag: "query-composition",
    kind: { choices: QueryComposition.literals },
    description:
      "deepnote, adaptive-note: each planned query retrieved with the question (q0+qt), alone (qt) or both, fused (default both)"
  },
  {
    path: ["maxStep"],
    flag: "max-step",
    kind: "int",
    description: "maximum refinement steps (adaptive-note: T_CI; default 3)"
  },
  {
    path: ["maxFailure"],
    flag: "max-failure",
    kind: "int",
    description: "stop after this many rejected notes, cumulative (default 2)"
  },
  {
    path: ["maxUniquePassages"],
    flag: "max-unique-passages",
    kind: "int",
    description:
      "passage budget: unique passages a question may read, exact (the last retrieval is cut, then the loop stops); default: paper and adaptive-note 15 (T_RP), others unbounded"
  },
  {
    path: ["maxInvalidUpdates"],
    flag: "max-invalid-updates",
    kind: "int",
    description: "adaptive-note: invalid updates (rejected notes) that stop the loop, T_IU (default 1)"
  },
  {
    path: ["maxIterations"],
    flag: "max-iterations",
    kind: "int",
    description: "renact: actions before the loop stops, T; deeprag: cap on subqueries (default 5)"
  },
  {
    path: ["retriever"],
    flag: "retriever",
    kind: { choices: RetrieverKind.literals },
    description: "candidate recall (default bm25): bm25, dense (the collection's vectors, see `deepnote embed`; " +
      "embeddings server from DEEPNOTE_EMBEDDINGS_URL), hybrid (reciprocal-rank fusion of both) or meilisearch " +
      "(the index of --meili-url/--meili-index)"
  },
  {
    path: ["reranker"],
    flag: "reranker",
    kind: { choices: ["none", "http"] },
    description: "cross-encoder rerank of the candidates (default none)"
  },
  {
    path: ["rerankerApi"],
    flag: "reranker-api",
    kind: { choices: ["vllm-rerank", "vllm-score", "tei", "cohere"] },
    description: "rerank API flavour (default vllm-rerank)"
  },
  { path: ["rerankerUrl"], flag: "reranker-url", kind: "text", description: "rerank server base URL" },
  { path: ["rerankerModel"], flag: "reranker-model", kind: "text", description: "rerank model name" },
  {
    path: ["titleWeight"],
    flag: "title-weight",
    kind: "float",
    description: "BM25 weight of the title column (default 5, tuned on HotpotQA: benchmarks/retrieval)"
  },
  {
    path: ["textWeight"],
    flag: "text-weight",
    kind: "float",
    description: "BM25 weight of the text column (default 1)"
  },
  {
    path: ["sampling", "model"],
    flag: "model",
    kind: "text",
    description: "model of every role (default: the server's first model)"
  },
  {
    path: ["sampling", "temperature"],
    flag: "temperature",
    kind: "float",
    description: "sampling temperature of every role (default 0.1)"
  },
  {
    path: ["sampling", "topP"],
    flag: "top-p",
    kind: "float",
    description: "nucleus sampling of every role (default 0.9)"
  },
  {
    path: ["sampling", "maxTokens"],
    flag: "max-tokens",
    kind: "int",
    description: "completion token limit of every role (default 1280)"
  },
  { path: ["sampling", "seed"], flag: "seed", kind: "int", description: "sampling seed of every role (default 66)" }
]

/** `--top-k` → `DEEPNOTE_TOP_K`. */
export const envName = (knob: Knob): string => `DEEPNOTE_${knob.flag.replace(/-/g, "_").toUpperCase()}`

const optionFor = (knob: Knob): Options.Options<Option.Option<string | number>> => {
  const base = typeof knob.kind === "object"
    ? Options.choice(knob.flag, knob.kind.choices)
    : knob.kind === "int"
    ? Options.integer(knob.flag)
    : knob.kind === "float"
    ? Options.float(knob.flag)
    : Options.text(knob.flag)
  return (base as Options.Options<string | number>).pipe(Options.withDescription(knob.description), Options.optional)
}

/** Options for every knob, plus `--role ROLE.FIELD=VALUE` for per-role sampling. */
export const knobOptions = {
  values: Options.all(Object.fromEntries(knobs.map((k) => [k.flag, optionFor(k)]))),
  roles: Options.keyValueMap("role").pipe(
    Options.withDescription(
      "per-role sampling, e.g. --role judge.temperature=0 --role answer.model=qwen (roles: init, plan, update, judge, answer; fields: model, temperature, topP, maxTokens, seed)"
    ),
    Options.optional
  )
}

/** Parses a knob's text (from the environment or a per-role flag) into its value. */
export const parseKnobText = (kind: Kind, text: string): string | number =>
  kind === "int" || kind === "float" ? (text.trim() === "" || Number.isNaN(Number(text)) ? text : Number(text)) : text
