import type { Language } from "@deepnote-rag/core"
import { Option, Schema } from "effect"
import type { StructuredOutput } from "../Domain/Chat.js"
import {
  messages,
  type PromptCandidate,
  type PromptPassage,
  renderCandidates,
  renderPassages,
  renderQueries,
  section
} from "./Sections.js"

/**
 * DNAlign's two group judges, written for this project from the paper's criteria (the reference keeps them as
 * `score.init_note` and `score.gen_new_query`): the judge sees a group of sampled outputs for one prompt, each with an
 * `_id`, and names the best and the worst as JSON `{"best_id", "worst_id"}`. The same id twice means no usable pair.
 */
export interface RankInstructions {
  /** Initial notes: relevance, coherence, completeness, accuracy. */
  readonly notes: string
  /** Refined queries: relevance, specificity, keywords, non-redundancy. */
  readonly queries: string
}

const replyEn =
  `Pick the best candidate and the worst candidate. Reply with JSON only and no explanation: {"best_id": <id>, "worst_id": <id>}. If no candidate is better than another, give the same id for both.`

const replyZh =
  `请选出最好的候选和最差的候选。只输出 JSON，不要解释：{"best_id": <id>, "worst_id": <id>}。如果没有哪个候选比其他候选更好，两个字段给出同一个 id。`

export const rankInstructions: Record<Language, RankInstructions> = {
  en: {
    notes:
      `You are judging notes written to help answer a question. You are given the question, the passages the notes were written from, and candidate notes, each with an _id. Judge every candidate on four criteria:
1. relevance: it keeps the information that bears on the question and leaves out what does not;
2. coherence: it reads as one clear, well-organised paragraph;
3. completeness: it keeps every piece of information from the passages that could help answer the question;
4. accuracy: it states only what the passages say, faithfully, and invents nothing.
${replyEn}`,
    queries:
      `You are judging search queries proposed to find the evidence a note still lacks for answering a question. You are given the question, the note gathered so far, the queries already asked, and candidate sets of queries, each with an _id. Judge every candidate on four criteria:
1. relevance: it targets information needed to answer the question that the note does not hold yet;
2. specificity: it asks for something precise (a named entity, a date, a relation), not something vague;
3. keywords: it is short and carries the keywords a search engine needs;
4. non-redundancy: it does not repeat or merely rephrase the question, a query already asked, or itself.
${replyEn}`
  },
  zh: {
    notes:
      `你要评判为回答问题而写的笔记。你会看到问题、写笔记所依据的参考段落，以及若干候选笔记，每个候选带有 _id。请按四个标准评判每个候选：
1. 相关性：保留与问题有关的信息，舍去无关的内容；
2. 连贯性：是一段清晰、条理分明的文字；
3. 完整性：保留参考段落中所有可能有助于回答问题的信息；
4. 准确性：只忠实地陈述参考段落中的内容，不编造任何信息。
${replyZh}`,
    queries:
      `你要评判为补全笔记中缺失的证据而提出的检索查询。你会看到问题、目前收集的笔记、已经提出的查询，以及若干候选查询组，每个候选带有 _id。请按四个标准评判每个候选：
1. 相关性：针对回答问题所需、而笔记中尚未包含的信息；
2. 具体性：询问明确的内容（具名实体、时间、关系），而不是含糊的内容；
3. 关键词：简短，并包含检索引擎需要的关键词；
4. 非冗余：不重复、也不只是改写问题、已提出的查询或其自身。
${replyZh}`
  }
}

/** The group of initial notes for one question and its passages (T19). */
export const rankNotesPrompt = (
  language: Language,
  question: string,
  passages: ReadonlyArray<PromptPassage>,
  candidates: ReadonlyArray<PromptCandidate>
) =>
  messages(
    rankInstructions[language].notes,
    section(language, "question", question),
    section(language, "passages", renderPassages(language, passages)),
    section(language, "candidates", renderCandidates(candidates))
  )

/** The group of query sets for one question, its note and its query log (T20). */
export const rankQueriesPrompt = (
  language: Language,
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  candidates: ReadonlyArray<PromptCandidate>
) =>
  messages(
    rankInstructions[language].queries,
    section(language, "question", question),
    section(language, "note", note),
    section(language, "queries", renderQueries(language, queryLog)),
    section(language, "candidates", renderCandidates(candidates))
  )

/** The structured-output constraint of a group judge's reply: two ids among the candidates'. */
export const rankStructured = (ids: ReadonlyArray<number>): StructuredOutput => ({
  _tag: "Json",
  name: "ranking",
  schema: {
    type: "object",
    properties: { best_id: { type: "integer", enum: ids }, worst_id: { type: "integer", enum: ids } },
    required: ["best_id", "worst_id"],
    additionalProperties: false
  }
})

const Id = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))
const RankReply = Schema.parseJson(Schema.Struct({ best_id: Id, worst_id: Id }))

/** A group judge's verdict: the ids it named best and worst. */
export interface Ranking {
  readonly bestId: number
  readonly worstId: number
}

/**
 * Reads a group judge's reply: the JSON object (sliced from the first `{` to the last `}`, so a fenced or prefixed
 * reply reads too), decoded with its schema; `undefined` when it does not decode or names an id not in the group.
 */
export const parseRankReply = (reply: string, ids: ReadonlyArray<number>): Ranking | undefined => {
  const start = reply.indexOf("{")
  const end = reply.lastIndexOf("}")
  if (start < 0 || end < start) return undefined
  return Option.getOrUndefined(
    Option.flatMap(
      Schema.decodeUnknownOption(RankReply)(reply.slice(start, end + 1)),
      (r) =>
        ids.includes(r.best_id) && ids.includes(r.worst_id)
          ? Option.some({ bestId: r.best_id, worstId: r.worst_id })
          : Option.none()
    )
  )
}
