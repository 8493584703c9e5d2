import type { TaskType } from "@deepnote-rag/core"

/**
 * The fixed instructions of every role, written for this project from the paper's descriptions of its prompts
 * (note initialisation, query refinement, knowledge accumulation, adaptive retrieval decision, answer styles).
 * Where they go in a prompt is the profile's layout (`Layout.ts`): first (shared across questions) or after the
 * question and note (shared across roles).
 */
export interface InstructionSet {
  readonly init: string
  readonly update: string
  /** Free-text planner (the `paper` profile retrieves with the raw text). */
  readonly planText: (count: number) => string
  /** Structured planner (the `deepnote` profile): JSON `{"queries": [...]}`. */
  readonly planJson: (count: number) => string
  /** The reference's judge contract: JSON `{"status": "True"|"False"}`. */
  readonly judgeJson: string
  /** One word, True or False (the `deepnote` profile constrains it with a choice). */
  readonly judgeWord: string
  readonly answer: Record<TaskType, Record<Evidence, string>>
  /** The two words a yes/no answer must use in this language. */
  readonly yesNo: readonly [string, string]
}

/** What an answer is written from: the note, the passages, or nothing (parametric knowledge). */
type Evidence = "note" | "passages" | "none"

/** The answer instructions by task, then evidence, from a language's instructions by evidence, then task. */
const answerTable = (byEvidence: (evidence: Evidence) => Record<TaskType, string>): InstructionSet["answer"] => {
  const [note, passages, none] = [byEvidence("note"), byEvidence("passages"), byEvidence("none")]
  const task = (t: TaskType) => ({ note: note[t], passages: passages[t], none: none[t] })
  return { multihop: task("multihop"), longform: task("longform"), yesno: task("yesno") }
}

const judgeCriteria =
  `Decide whether Note 2 is a significant improvement over Note 1 for answering the question. Weigh four things:
1. key information that bears directly on the question;
2. completeness: whether it covers the aspects the question needs;
3. detail: whether it gives more specific facts (names, dates, numbers, relations);
4. practicality: how much easier it makes giving a correct answer.
If Note 2 adds nothing meaningful, or only restates what Note 1 already contains, it is not an improvement. Call it an improvement only when it is clearly and substantially better; in every other case it is not.`

const evidenceEn = { note: "the note", passages: "the passages" } as const

const answerEn = (evidence: Evidence): Record<TaskType, string> => {
  const source = evidence === "none" ? "" : `Use only the information in ${evidenceEn[evidence]} below. `
  return {
    multihop:
      `Answer the question. ${source}Give only the answer itself (an entity, a number, a date or a short phrase), with no explanation and no other words.`,
    longform:
      `Answer the question in one paragraph. ${source}Be accurate, engaging and concise, and write in a neutral, journalistic tone. If the question can be read in more than one way, cover each plausible reading.`,
    yesno: `Answer the question with a single word, yes or no. ${source}Do not add any other words.`
  }
}

export const english: InstructionSet = {
  init:
    `You are writing a research note that will be used to answer a question. Read the passages and write one coherent paragraph that keeps every piece of information from them that could help answer the question. Keep the passages' own wording wherever you can, add nothing the passages do not say, and leave out what does not help. Output only the note.`,
  update:
    `You are maintaining a research note that will be used to answer a question. You are given the question, the current note and newly retrieved passages. Rewrite the whole note: keep everything the current note already says, and add each piece of information from the new passages that helps answer the question and is not in the note yet. Use the passages' own wording, do not add knowledge of your own, and do not repeat what the note already contains. Add as much useful information as you can. Output only the complete updated note.`,
  planText: (n) =>
    `You help a search engine find evidence that is still missing. Given the question, the note gathered so far and the queries already asked, write ${n} new search questions aimed at information the note still lacks for answering the question. Keep each one short and rich in keywords, and never repeat or merely rephrase a query that was already asked. Output only the ${n} questions, one per line. Do not explain and do not write anything else.`,
  planJson: (n) =>
    `You help a search engine find evidence that is still missing. Given the question, the note gathered so far and the queries already asked, write ${n} new search queries aimed at information the note still lacks for answering the question. Keep each one short and rich in keywords, and never repeat or merely rephrase a query that was already asked. Reply with JSON only, in the form {"queries": ["first query", "second query"]}, with exactly ${n} queries.`,
  judgeJson:
    `${judgeCriteria}\nReply with JSON only and no explanation: {"status": "True"} if Note 2 is a significant improvement, otherwise {"status": "False"}.`,
  judgeWord:
    `${judgeCriteria}\nReply with exactly one word: True if Note 2 is a significant improvement, otherwise False.`,
  answer: answerTable(answerEn),
  yesNo: ["yes", "no"]
}

const judgeCriteriaZh = `请判断笔记 2 相比笔记 1 在回答问题方面是否有显著提升。请综合考虑四个方面：
1. 关键信息：是否包含与问题直接相关的信息；
2. 完整性：是否覆盖回答问题所需的各个方面；
3. 细节：是否提供了更具体的事实（人名、时间、数字、关系）；
4. 实用性：是否让正确回答问题变得更容易。
如果笔记 2 没有增加有意义的内容，或只是重复了笔记 1 已有的信息，则不算提升。只有当笔记 2 明显且实质性地更好时才算提升，其他情况一律不算。`

const answerZh = (evidence: Evidence): Record<TaskType, string> => {
  const source = evidence === "none" ? "" : `只能使用下面${evidence === "note" ? "笔记" : "参考段落"}中的信息。`
  return {
    multihop: `请回答问题。${source}只输出答案本身（实体、数字、日期或简短短语），不要解释，也不要输出其他内容。`,
    longform: `请用一段话回答问题。${source}回答要准确、清晰、简洁，语气客观中立。如果问题有多种合理理解，请分别说明。`,
    yesno: `请只用一个字回答问题："是"或"否"。${source}不要输出其他内容。`
  }
}

export const chinese: InstructionSet = {
  init:
    `你正在为回答一个问题撰写研究笔记。请阅读参考段落，写出一段连贯的文字，保留其中所有可能有助于回答问题的信息。尽量沿用原文的表述，不要添加段落中没有的内容，省略无关的信息。只输出笔记。`,
  update:
    `你正在维护一份用于回答问题的研究笔记。下面给出问题、当前笔记和新检索到的参考段落。请重写整份笔记：保留当前笔记已有的全部内容，并加入新段落中有助于回答问题、而笔记中尚未包含的信息。使用段落原文的表述，不要加入你自己的知识，也不要重复笔记已有的内容。尽可能多地补充有用信息。只输出完整的更新后笔记。`,
  planText: (n) =>
    `你在帮助搜索引擎查找仍然缺失的证据。根据问题、目前的笔记和已经提出的查询，写出 ${n} 个新的搜索问题，针对笔记中回答问题仍缺少的信息。每个问题要简短、包含关键词，不要重复或仅仅改写已经提出过的查询。只输出这 ${n} 个问题，每行一个，不要解释，也不要输出其他内容。`,
  planJson: (n) =>
    `你在帮助搜索引擎查找仍然缺失的证据。根据问题、目前的笔记和已经提出的查询，写出 ${n} 个新的搜索查询，针对笔记中回答问题仍缺少的信息。每个查询要简短、包含关键词，不要重复或仅仅改写已经提出过的查询。只输出 JSON，格式为 {"queries": ["第一个查询", "第二个查询"]}，恰好包含 ${n} 个查询。`,
  judgeJson:
    `${judgeCriteriaZh}\n只输出 JSON，不要解释：如果笔记 2 有显著提升，输出 {"status": "True"}，否则输出 {"status": "False"}。`,
  judgeWord: `${judgeCriteriaZh}\n只输出一个词：如果笔记 2 有显著提升，输出 True，否则输出 False。`,
  answer: answerTable(answerZh),
  yesNo: ["是", "否"]
}
