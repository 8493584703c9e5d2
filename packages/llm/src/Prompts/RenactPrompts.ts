import type { Language } from "@deepnote-rag/core"
import { messages, type PromptPassage, renderPassages, renderQueries, section } from "./Sections.js"

/**
 * ReNAct's two prompts (NotesWriting with ReAct), written for this project from the method's description: the main
 * model's Thought + Action, and the notes model's extraction from one document. Layout as the others: instructions,
 * then question, notes, then the query log or the document.
 */
const actEn =
  `You answer a question by searching step by step. You see the question, the notes taken from the documents found so far and the searches already made. First write one line starting with "Thought:" that says what is still missing. Then write one line starting with "Action:" that is either search[a short keyword query for the missing information], never repeating an earlier search, or finish[the answer] when the notes are enough to answer. Write nothing else.`

const actZh =
  `你要通过逐步搜索来回答问题。你能看到问题、从已找到的文档中记下的笔记，以及已经做过的搜索。先写一行以 "Thought:" 开头的思考，说明还缺什么信息。再写一行以 "Action:" 开头的动作：要么是 search[针对缺失信息的简短关键词查询]，不能重复之前的搜索；要么在笔记足以回答时写 finish[答案]。不要写其他内容。`

const notesEn =
  `You take notes from one document for a search. You see the search query, the notes already extracted and the document. If the document holds information that is relevant to the query, comes from the document itself and is not already in the notes, reply "YES#" followed by that information in the document's own words. Otherwise reply "NO#" followed by the reason (it cannot help, it is unrelated, or it is already in the notes). Reply with nothing else.`

const notesZh =
  `你要为一次搜索从一篇文档中记笔记。你能看到搜索查询、已经提取的笔记和这篇文档。如果文档中有与查询相关、出自文档本身、且笔记中尚未包含的信息，回复 "YES#" 并接上这些信息（使用文档原文的表述）。否则回复 "NO#" 并接上原因（无法帮助回答、与查询无关，或笔记中已有）。不要回复其他内容。`

export const renactInstructions: Record<Language, { readonly act: string; readonly notes: string }> = {
  en: { act: actEn, notes: notesEn },
  zh: { act: actZh, notes: notesZh }
}

/** The main model's step: question, notes so far, searches made. */
export const actPrompt = (language: Language, question: string, notes: string, searches: ReadonlyArray<string>) =>
  messages(
    renactInstructions[language].act,
    section(language, "question", question),
    section(language, "note", notes),
    section(language, "queries", renderQueries(language, searches))
  )

/** The notes model's call: the query, the notes extracted so far, one document. */
export const notesPrompt = (language: Language, query: string, notes: string, document: PromptPassage) =>
  messages(
    renactInstructions[language].notes,
    section(language, "question", query),
    section(language, "note", notes),
    section(language, "passages", renderPassages(language, [document]))
  )

/**
 * The Action of a reply: `search[q]` → `{ queries: [q] }`, `finish[…]` → `{ queries: [] }`; `undefined` when neither
 * is there (the caller falls back to the reply's first line as a query).
 */
export const parseAction = (reply: string): { readonly queries: ReadonlyArray<string> } | undefined => {
  const action = /(search|finish)\s*\[([^\]]*)\]?/iu.exec(reply.slice(Math.max(0, reply.search(/action\s*:/iu))))
  if (action === null) return undefined
  const query = action[2]!.trim()
  return action[1]!.toLowerCase() === "finish" ? { queries: [] } : query.length === 0 ? undefined : { queries: [query] }
}

/** A notes reply: `YES#text` → text, `NO#…` → "", else `undefined` (the caller keeps the reply as the note). */
export const parseNotesReply = (reply: string): string | undefined => {
  const match = /^\s*(YES|NO)\s*#([\s\S]*)$/iu.exec(reply)
  if (match === null) return undefined
  return match[1]!.toUpperCase() === "YES" ? match[2]!.trim() : ""
}
