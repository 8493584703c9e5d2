import * as fs from "node:fs"
import { fileURLToPath } from "node:url"

const sharedData = fileURLToPath(new URL("../../../../shared/data", import.meta.url))

/** Hand-made passages: a two-hop question (film → actress → her government post) with a distractor. */
export const corliss = {
  question: "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
  film: {
    title: "Kiss and Tell (1945 film)",
    text: "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer. " +
      "In the film, two teenage girls cause their respective parents much concern when they start to become interested in boys."
  },
  distractor: {
    title: "Lord High Treasurer",
    text: "The post of Lord High Treasurer was an English government position. " +
      "A holder of the post would be the third-highest-ranked Great Officer of State."
  },
  actress: {
    title: "Shirley Temple",
    text:
      "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress, singer, dancer, businesswoman, " +
      "and diplomat. As an adult, she was named United States ambassador to Ghana and to Czechoslovakia and also served " +
      "as Chief of Protocol of the United States."
  },
  bridgeSentence:
    "As an adult, she was named United States ambassador to Ghana and to Czechoslovakia and also served as Chief of Protocol of the United States.",
  /** Retrieved with the film by the question's common words ("government position held"), off the chain. */
  secretary: {
    title: "Secretary of State for Constitutional Affairs",
    text:
      "The office of Secretary of State for Constitutional Affairs was a British Government position, created in 2003. " +
      "At a later date further functions were also transferred to the Secretary of State for Constitutional Affairs from " +
      "the First Secretary of State, a position within the government held by the Deputy Prime Minister."
  },
  /** Shares only common words with the question ("held", "position"). */
  song: {
    title: "Stay (Shakespears Sister song)",
    text: "The single also held the No. 1 position in band member Siobhan Fahey's birthplace, Ireland, for six weeks."
  }
}

export const guangmao = [
  {
    title: "广茂铁路",
    text:
      "广茂铁路是中国广东省境内的一条铁路，由广州至茂名，全长364.6公里。铁路于1991年全线通车，由三茂铁路股份有限公司管理运营。"
  },
  { title: "茂名", text: "茂名是广东省西南部的地级市，位于鉴江流域。茂名以石化工业闻名，被称为南方油城。" }
]

const lines = (path: string) =>
  fs.readFileSync(path, "utf8").trim().split("\n").map((line): unknown => JSON.parse(line))

interface HotpotRecord {
  readonly question_id: string
  readonly question_text: string
  readonly answers_objects: ReadonlyArray<{ readonly spans: ReadonlyArray<string> }>
  readonly contexts: ReadonlyArray<
    { readonly title: string; readonly paragraph_text: string; readonly is_supporting: boolean }
  >
}

/** HotpotQA (IRCoT dev sample) records by id, with their supporting paragraphs as passages. */
export const hotpot = (ids: ReadonlyArray<string>) => {
  const records = lines(`${sharedData}/hotpotqa/dev-300.ircot.jsonl`) as ReadonlyArray<HotpotRecord>
  return ids.map((id) => {
    const r = records.find((x) => x.question_id === id)!
    return {
      question: r.question_text,
      gold: r.answers_objects[0]!.spans[0]!,
      supporting: r.contexts.filter((c) => c.is_supporting).map((c) => ({ title: c.title, text: c.paragraph_text })),
      all: r.contexts.map((c) => ({ title: c.title, text: c.paragraph_text }))
    }
  })
}

interface CmrcQuestion {
  readonly id: string
  readonly question: string
  readonly answers: ReadonlyArray<string>
  readonly paragraph_id: string
}

/** CMRC 2018 dev questions by id, with their gold paragraph. */
export const cmrc = (ids: ReadonlyArray<string>) => {
  const corpus = lines(`${sharedData}/corpus/zh-cmrc2018.jsonl`) as ReadonlyArray<
    { id: string; title: string; text: string }
  >
  const questions = lines(`${sharedData}/cmrc2018/dev-questions.jsonl`) as ReadonlyArray<CmrcQuestion>
  return ids.map((id) => {
    const q = questions.find((x) => x.id === id)!
    const p = corpus.find((x) => x.id === q.paragraph_id)!
    return { question: q.question, answers: q.answers, passage: { title: p.title, text: p.text } }
  })
}

/** Every sentence a note may hold: the passage sentence itself, or `Title: sentence`. */
export const isVerbatim = (line: string, passages: ReadonlyArray<{ title: string; text: string }>): boolean =>
  passages.some((p) =>
    p.text.includes(line) || (line.includes(": ") && p.text.includes(line.slice(line.indexOf(": ") + 2)))
  )
