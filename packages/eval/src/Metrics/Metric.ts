import type { Language, Question, TaskType } from "@deepnote-rag/core"
import { detectLanguage } from "@deepnote-rag/text"
import { Schema } from "effect"
import { strategyQaAccuracy, substringAccuracy } from "./Accuracy.js"
import { type QaPair, strEm, strHit } from "./Asqa.js"
import { cmrcEm, cmrcF1 } from "./Cmrc.js"
import { hotpotEm, hotpotF1 } from "./Hotpot.js"
import { squadEm, squadF1 } from "./Squad.js"

/** Every metric a report can name. */
export const MetricName = Schema.Literal(
  "acc",
  "em",
  "f1",
  "squad-em",
  "squad-f1",
  "squad-ascii-em",
  "squad-ascii-f1",
  "hotpot-em",
  "hotpot-f1",
  "cmrc-em",
  "cmrc-f1",
  "strategyqa-acc",
  "str-em",
  "str-hit"
)
export type MetricName = typeof MetricName.Type

/** What a metric scores: the prediction, the gold aliases, the question's language and (ASQA) its qa_pairs. */
export interface Scorable {
  readonly prediction: string
  readonly golds: ReadonlyArray<string>
  readonly language: Language
  readonly qaPairs?: ReadonlyArray<QaPair> | undefined
}

/** A question's prediction as the metrics read it: its gold answers, its language (detected when not given). */
export const scorableOf = (
  question: Question,
  prediction: string,
  qaPairs?: ReadonlyArray<QaPair> | undefined
): Scorable => ({
  prediction,
  golds: question.answers ?? [],
  language: question.language ?? detectLanguage(question.text),
  qaPairs
})

export interface Metric {
  readonly name: MetricName
  readonly description: string
  /** Whether the metric can score this item (gold answers or qa_pairs present). */
  readonly applies: (item: Scorable) => boolean
  /** A score in [0, 1]. */
  readonly score: (item: Scorable) => number
}

const withGold = (item: Scorable) => item.golds.length > 0
const withPairs = (item: Scorable) => (item.qaPairs?.length ?? 0) > 0

const gold = (
  name: MetricName,
  description: string,
  score: (p: string, g: ReadonlyArray<string>) => number
): Metric => ({
  name,
  description,
  applies: withGold,
  score: (item) => score(item.prediction, item.golds)
})

/** The metric definitions, by name. */
export const metrics: Readonly<Record<MetricName, Metric>> = {
  "acc": gold(
    "acc",
    "paper Acc: a gold alias is a case-insensitive substring of the raw prediction",
    substringAccuracy
  ),
  "em": {
    name: "em",
    description: "EM: SQuAD-normalised (Unicode punctuation) for English, CMRC character-level for Chinese",
    applies: withGold,
    score: (item) => (item.language === "zh" ? cmrcEm : squadEm)(item.prediction, item.golds)
  },
  "f1": {
    name: "f1",
    description: "F1: SQuAD token F1 (Unicode punctuation) for English, CMRC character-level (LCS) F1 for Chinese",
    applies: withGold,
    score: (item) => (item.language === "zh" ? cmrcF1 : squadF1)(item.prediction, item.golds)
  },
  "squad-em": gold("squad-em", "SQuAD EM, Unicode punctuation removed", (p, g) => squadEm(p, g, "unicode")),
  "squad-f1": gold("squad-f1", "SQuAD token F1, Unicode punctuation removed", (p, g) => squadF1(p, g, "unicode")),
  "squad-ascii-em": gold(
    "squad-ascii-em",
    "SQuAD v1.1 EM exactly (ASCII punctuation only)",
    (p, g) => squadEm(p, g, "ascii")
  ),
  "squad-ascii-f1": gold(
    "squad-ascii-f1",
    "SQuAD v1.1 token F1 exactly (ASCII punctuation only)",
    (p, g) => squadF1(p, g, "ascii")
  ),
  "hotpot-em": gold("hotpot-em", "official HotpotQA EM", hotpotEm),
  "hotpot-f1": gold("hotpot-f1", "official HotpotQA F1 (yes/no/noanswer mismatch scores 0)", hotpotF1),
  "cmrc-em": gold("cmrc-em", "CMRC 2018 EM (punctuation and whitespace removed)", cmrcEm),
  "cmrc-f1": gold("cmrc-f1", "CMRC 2018 character-level F1 (longest common run)", cmrcF1),
  "strategyqa-acc": gold(
    "strategyqa-acc",
    "StrategyQA Acc: yes/no gold as a whole word of the prediction",
    strategyQaAccuracy
  ),
  "str-em": {
    name: "str-em",
    description: "ASQA STR-EM: fraction of qa_pairs with a short answer in the output",
    applies: withPairs,
    score: (item) => strEm(item.prediction, item.qaPairs ?? [])
  },
  "str-hit": {
    name: "str-hit",
    description: "ASQA STR-Hit: every qa_pair covered",
    applies: withPairs,
    score: (item) => strHit(item.prediction, item.qaPairs ?? [])
  }
}

/** The metrics reported by default for a task (the paper's per-dataset metrics). */
export const defaultMetrics = (task: TaskType): ReadonlyArray<MetricName> =>
  task === "yesno" ? ["strategyqa-acc"] : task === "longform" ? ["str-em", "str-hit"] : ["acc", "em", "f1"]

/** Scores one item with the named metrics; metrics that do not apply are left out. */
export const scoreItem = (item: Scorable, names: ReadonlyArray<MetricName>): Partial<Record<MetricName, number>> => {
  const scores: Partial<Record<MetricName, number>> = {}
  for (const name of names) {
    const metric = metrics[name]
    if (metric.applies(item)) scores[name] = metric.score(item)
  }
  return scores
}
