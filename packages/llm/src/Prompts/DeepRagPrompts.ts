import type { Language } from "@deepnote-rag/core"
import { messages, renderQueries, section } from "./Sections.js"

/**
 * DeepRAG's two inference prompts, written for this project from the method's description: the next follow-up
 * subquery (or the final answer), and the atomic decision whether that subquery needs a search.
 */
const decomposeEn =
  `You answer a complex question by breaking it into simple follow-up questions, one at a time. You see the question, the chain so far (each follow-up question with its intermediate answer) and the follow-ups already asked. If the chain already answers the question, write one line "So the final answer is: <answer>". Otherwise write one line "Follow up: <the next simple question>" that moves the chain one step towards the answer and repeats no earlier follow-up. Write nothing else.`

const decomposeZh =
  `你要把一个复杂问题拆成一个个简单的后续问题，逐个回答。你能看到问题、目前的推理链（每个后续问题及其中间答案）和已经提出的后续问题。如果推理链已经能回答问题，写一行 "So the final answer is: <答案>"。否则写一行 "Follow up: <下一个简单问题>"，让推理链向答案推进一步，且不重复之前的后续问题。不要写其他内容。`

const decideEn =
  `Decide whether the follow-up question below needs a search. You see the follow-up question and the chain of earlier follow-ups with their intermediate answers. Answer False if you can answer it reliably from your own knowledge and the chain; answer True if you would need to look it up (a specific, obscure or recent fact you are not sure of). Reply with exactly one word, True or False.`

const decideZh =
  `请判断下面的后续问题是否需要检索。你能看到这个后续问题，以及之前的后续问题和它们的中间答案组成的推理链。如果凭你自己的知识和推理链就能可靠地回答，回答 False；如果需要查资料（你不确定的具体、冷僻或较新的事实），回答 True。只输出一个词：True 或 False。`

export const deepRagInstructions: Record<Language, { readonly decompose: string; readonly decide: string }> = {
  en: { decompose: decomposeEn, decide: decideEn },
  zh: { decompose: decomposeZh, decide: decideZh }
}

/** The next follow-up: question, chain so far, follow-ups asked. */
export const decomposePrompt = (
  language: Language,
  question: string,
  chain: string,
  followUps: ReadonlyArray<string>
) =>
  messages(
    deepRagInstructions[language].decompose,
    section(language, "question", question),
    section(language, "note", chain),
    section(language, "queries", renderQueries(language, followUps))
  )

/** The atomic decision: the follow-up (as the question), the chain so far. */
export const decidePrompt = (language: Language, followUp: string, chain: string) =>
  messages(
    deepRagInstructions[language].decide,
    section(language, "question", followUp),
    section(language, "note", chain)
  )

/**
 * A decomposition reply: `Follow up: q` → `{ queries: [q] }`, "the final answer is" → `{ queries: [] }`; `undefined`
 * when it holds neither (the caller reads its first line as the follow-up).
 */
export const parseFollowUp = (reply: string): { readonly queries: ReadonlyArray<string> } | undefined => {
  if (/final answer is|最终答案/iu.test(reply)) return { queries: [] }
  const followUp = /follow[\s-]*up\s*[:：]\s*(.+)/iu.exec(reply)
  const query = followUp?.[1]?.trim() ?? ""
  return query.length === 0 ? undefined : { queries: [query] }
}
