import { type GoldPassage, Question, type TaskType } from "@deepnote-rag/core"
import { detectLanguage } from "@deepnote-rag/text"
import { Either, ParseResult, Schema } from "effect"
import type { QaPair } from "../Metrics/Asqa.js"
import type { DatasetFormat } from "./DatasetFormat.js"
import { CmrcRecord, HotpotRecord, IrcotRecord, MusiqueRecord, PlainRecord } from "./Records.js"

/** A decoded record: the question and, for ASQA-style plain records, its qa_pairs. */
export interface DatasetItem {
  readonly question: Question
  readonly qaPairs?: ReadonlyArray<QaPair> | undefined
}

/** Why a record was refused: the path of the offending field and a message. */
export interface RecordIssue {
  readonly field?: string | undefined
  readonly message: string
}

interface Draft {
  readonly id: string
  readonly text: string
  readonly answers: ReadonlyArray<string>
  readonly goldTitles: ReadonlyArray<string>
  /** Absent when the record names its gold passages by title only. */
  readonly goldPassages?: ReadonlyArray<GoldPassage> | undefined
  readonly task?: TaskType | undefined
  readonly language?: "en" | "zh" | undefined
  readonly qaPairs?: ReadonlyArray<QaPair> | undefined
}

const unique = (xs: ReadonlyArray<string>) => [...new Set(xs.filter((x) => x.trim().length > 0))]
const str = (x: string | number | undefined) => (x === undefined ? "" : String(x).trim())

const drafts: {
  readonly [F in DatasetFormat]: (record: unknown, line: number) => Either.Either<Draft, ParseResult.ParseError>
} = {
  ircot: (u) =>
    Either.map(Schema.decodeUnknownEither(IrcotRecord)(u), (r) => ({
      id: r.question_id,
      text: r.question_text,
      answers: r.answers_objects.flatMap((a) =>
        a.spans.length > 0
          ? a.spans
          : str(a.number)
          ? [str(a.number)]
          : [[str(a.date?.day), str(a.date?.month), str(a.date?.year)].filter((s) => s).join(" ")]
      ),
      goldTitles: r.contexts.filter((c) => c.is_supporting).map((c) => c.title),
      goldPassages: byContent(r.contexts.filter((c) => c.is_supporting))
    })),
  hotpotqa: (u) => Either.map(Schema.decodeUnknownEither(HotpotRecord)(u), fromHotpot),
  "2wiki": (u) => Either.map(Schema.decodeUnknownEither(HotpotRecord)(u), fromHotpot),
  musique: (u) =>
    Either.map(Schema.decodeUnknownEither(MusiqueRecord)(u), (r) => ({
      id: r.id,
      text: r.question,
      answers: [r.answer, ...r.answer_aliases],
      goldTitles: r.paragraphs.filter((p) => p.is_supporting).map((p) => p.title),
      goldPassages: byContent(r.paragraphs.filter((p) => p.is_supporting))
    })),
  cmrc2018: (u) =>
    Either.map(Schema.decodeUnknownEither(CmrcRecord)(u), (r) => ({
      id: r.id,
      text: r.question,
      answers: r.answers,
      goldTitles: r.paragraph_id === undefined ? [] : [r.paragraph_id],
      goldPassages: r.paragraph_id === undefined ? undefined : [{ id: r.paragraph_id }]
    })),
  plain: (u, line) =>
    Either.map(Schema.decodeUnknownEither(PlainRecord)(u), (r) => ({
      id: r.id === undefined ? `line-${line}` : String(r.id),
      text: r.question,
      answers: [
        ...(r.answers ?? []),
        ...(r.answer === undefined ? [] : typeof r.answer === "string" ? [r.answer] : r.answer)
      ],
      goldTitles: r.gold_titles ?? r.gold_passages?.flatMap((g) => (g.title === undefined ? [] : [g.title])) ?? [],
      goldPassages: r.gold_passages,
      task: r.task,
      language: r.language,
      qaPairs: r.qa_pairs
    }))
}

/** Supporting paragraphs with their text; undefined when any lacks it (then recall can only go by title). */
const byContent = (
  paragraphs: ReadonlyArray<{ readonly title: string; readonly paragraph_text?: string | undefined }>
): ReadonlyArray<GoldPassage> | undefined =>
  paragraphs.every((p) => p.paragraph_text !== undefined)
    ? paragraphs.map((p) => ({ title: p.title, text: p.paragraph_text }))
    : undefined

function fromHotpot(r: typeof HotpotRecord.Type): Draft {
  const titles = unique(r.supporting_facts.map(([title]) => title))
  const paragraphs = new Map(r.context.map(([title, sentences]) => [title, sentences.join(" ")]))
  return {
    id: r._id,
    text: r.question,
    answers: [r.answer],
    goldTitles: titles,
    goldPassages: titles.every((t) => paragraphs.has(t))
      ? titles.map((title) => ({ title, text: paragraphs.get(title) }))
      : undefined
  }
}

const issue = (error: ParseResult.ParseError): RecordIssue => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (first === undefined) return { message: error.message }
  const field = first.path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`))
    .join("")
  return { field: field.length > 0 ? field : undefined, message: first.message }
}

const decodeQuestion = Schema.decodeUnknownEither(Question)

/** The record field a `Question` field comes from, so errors name the file's field. */
const sourceField = (format: DatasetFormat, field: string | undefined): string | undefined => {
  const root = field?.split(/[.[]/u)[0]
  if (root === "text") return format === "ircot" ? "question_text" : "question"
  if (root === "id") {
    return format === "ircot"
      ? "question_id"
      : format === "hotpotqa" || format === "2wiki"
      ? "_id"
      : "id"
  }
  return field
}

/**
 * Turns one parsed record of `format` into a `Question`: gold answers (deduplicated), gold titles from supporting
 * paragraphs/facts (CMRC: the gold `paragraph_id`), task `multihop` for the multi-hop and CMRC sets (plain records
 * may set it), language detected from the question text unless given.
 */
export const toDatasetItem = (
  format: DatasetFormat,
  record: unknown,
  line: number
): Either.Either<DatasetItem, RecordIssue> =>
  Either.flatMap(Either.mapLeft(drafts[format](record, line), issue), (d) =>
    Either.map(
      Either.mapLeft(
        decodeQuestion({
          id: d.id,
          text: d.text,
          answers: unique(d.answers),
          task: format === "plain" ? d.task : "multihop",
          language: d.language ?? detectLanguage(d.text),
          goldTitles: unique(d.goldTitles),
          ...(d.goldPassages === undefined || d.goldPassages.length === 0 ? {} : { goldPassages: d.goldPassages })
        }),
        (e) => {
          const found = issue(e)
          return { field: sourceField(format, found.field), message: found.message }
        }
      ),
      (question): DatasetItem => ({ question, qaPairs: d.qaPairs })
    ))
