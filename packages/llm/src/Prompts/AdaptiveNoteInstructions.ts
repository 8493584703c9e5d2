import type { InstructionSet } from "./Instructions.js"

/**
 * Adaptive-Note's wording of the collector (note writing, question asking) and the reviewer, written for this project
 * from its description: the collector's memory must be faithful (the passages' own wording), effective (only what
 * serves the question) and extensible (names, dates and relations kept explicit so later facts attach to them); each
 * new question must differ from every question asked. The answer prompts are the shared ones.
 */
export type InstructionOverride = Partial<Omit<InstructionSet, "answer" | "yesNo">>

const reviewEn =
  `You review an update of the memory used to answer a question. Note 1 is the memory kept so far; Note 2 is the update just written. Judge whether Note 2 is clearly more useful for answering the question: does it add facts that bear on the question, cover parts of the question Note 1 leaves open, give more precise details (names, dates, numbers, relations), and make the answer easier to reach? An update that only repeats or rewords Note 1, or adds nothing that matters, is not valid.`

const reviewZh =
  `你负责审核用于回答问题的记忆的一次更新。笔记 1 是目前保留的记忆，笔记 2 是刚写出的更新。请判断笔记 2 是否对回答问题明显更有用：是否增加了与问题相关的事实，是否覆盖了笔记 1 尚未解决的部分，是否给出了更精确的细节（人名、时间、数字、关系），是否让答案更容易得出。只是重复或改写笔记 1、或没有增加任何重要内容的更新都是无效更新。`

export const adaptiveNoteEnglish: InstructionOverride = {
  init:
    `You collect information for a question-answering system. From the passages, write the first version of its memory: one paragraph holding everything that could help answer the question. Be faithful (use the passages' own wording and add nothing they do not say), effective (leave out what does not serve the question) and extensible (state names, dates and relations explicitly so that later facts can be attached to them). Output only the memory.`,
  update:
    `You collect information for a question-answering system. You are given the question, its current memory and newly retrieved passages. Write the extended memory in full: keep everything the memory holds and add each fact from the new passages that serves the question and is not in the memory yet. Be faithful (the passages' own wording, nothing of your own), effective (nothing that does not serve the question) and extensible (names, dates and relations stated explicitly). Output only the complete memory.`,
  planText: (n) =>
    `You decide what the system should look up next. Given the question, the memory collected so far and the questions already asked, write ${n} new questions about what the memory does not yet cover and the answer needs. Each must differ from every question already asked, not merely reword one. Keep them short and rich in names and keywords. Output only the ${n} questions, one per line.`,
  planJson: (n) =>
    `You decide what the system should look up next. Given the question, the memory collected so far and the questions already asked, write ${n} new questions about what the memory does not yet cover and the answer needs. Each must differ from every question already asked, not merely reword one. Keep them short and rich in names and keywords. Reply with JSON only, in the form {"queries": ["first question", "second question"]}, with exactly ${n} questions.`,
  judgeJson:
    `${reviewEn}\nReply with JSON only and no explanation: {"status": "True"} if Note 2 is a valid update, otherwise {"status": "False"}.`,
  judgeWord: `${reviewEn}\nReply with exactly one word: True if Note 2 is a valid update, otherwise False.`
}

export const adaptiveNoteChinese: InstructionOverride = {
  init:
    `你负责为问答系统收集信息。请根据参考段落写出记忆的第一版：用一段话记录所有可能有助于回答问题的信息。要忠实（沿用段落原文的表述，不添加段落没有的内容）、有效（省略与问题无关的内容）、可扩展（明确写出人名、时间和关系，便于之后补充新的事实）。只输出记忆。`,
  update:
    `你负责为问答系统收集信息。下面给出问题、当前的记忆和新检索到的参考段落。请完整写出扩展后的记忆：保留记忆中的全部内容，并加入新段落中有助于回答问题、而记忆中尚未包含的每一条事实。要忠实（使用段落原文，不加入自己的知识）、有效（不写与问题无关的内容）、可扩展（明确写出人名、时间和关系）。只输出完整的记忆。`,
  planText: (n) =>
    `你负责决定系统下一步要查找什么。根据问题、目前收集的记忆和已经提出的问题，写出 ${n} 个新问题，针对记忆尚未覆盖而回答又需要的信息。每个问题都必须与已提出的问题不同，不能只是改写。问题要简短，包含人名和关键词。只输出这 ${n} 个问题，每行一个。`,
  planJson: (n) =>
    `你负责决定系统下一步要查找什么。根据问题、目前收集的记忆和已经提出的问题，写出 ${n} 个新问题，针对记忆尚未覆盖而回答又需要的信息。每个问题都必须与已提出的问题不同，不能只是改写。问题要简短，包含人名和关键词。只输出 JSON，格式为 {"queries": ["第一个问题", "第二个问题"]}，恰好包含 ${n} 个问题。`,
  judgeJson:
    `${reviewZh}\n只输出 JSON，不要解释：如果笔记 2 是有效更新，输出 {"status": "True"}，否则输出 {"status": "False"}。`,
  judgeWord: `${reviewZh}\n只输出一个词：如果笔记 2 是有效更新，输出 True，否则输出 False。`
}
