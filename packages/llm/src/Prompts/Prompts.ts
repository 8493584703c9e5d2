import type { AnswerEvidence, Language, Profile, TaskType } from "@deepnote/core"
import type { ChatMessage } from "../Domain/Chat.js"
import { adaptiveNoteChinese, adaptiveNoteEnglish, type InstructionOverride } from "./AdaptiveNoteInstructions.js"
import { chinese, english, type InstructionSet } from "./Instructions.js"
import { messages, type PromptPassage, renderPassages, renderQueries, section } from "./Sections.js"

/**
 * Prompt builders. Layout for prefix caching: the fixed instructions (system message) first, then the question,
 * then the note(s), then passages or the query log: the parts that change least come first.
 */
/** Profiles whose method words its roles' instructions its own way; the others use the shared set. */
const overrides: Partial<Record<Profile, Record<Language, InstructionOverride>>> = {
  "adaptive-note": { en: adaptiveNoteEnglish, zh: adaptiveNoteChinese }
}

/** The instructions of a language, with the profile's own wording where it has one. */
export const instructionsFor = (language: Language, profile?: Profile): InstructionSet => {
  const base = language === "zh" ? chinese : english
  const own = profile === undefined ? undefined : overrides[profile]?.[language]
  return own === undefined ? base : { ...base, ...own }
}

export const initPrompt = (
  language: Language,
  question: string,
  passages: ReadonlyArray<PromptPassage>,
  profile?: Profile
) =>
  messages(
    instructionsFor(language, profile).init,
    section(language, "question", question),
    section(language, "passages", renderPassages(language, passages))
  )

export const updatePrompt = (
  language: Language,
  question: string,
  note: string,
  passages: ReadonlyArray<PromptPassage>,
  profile?: Profile
) =>
  messages(
    instructionsFor(language, profile).update,
    section(language, "question", question),
    section(language, "note", note),
    section(language, "passages", renderPassages(language, passages))
  )

export const planPrompt = (
  language: Language,
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  count: number,
  style: "text" | "json",
  profile?: Profile
) =>
  messages(
    style === "json"
      ? instructionsFor(language, profile).planJson(count)
      : instructionsFor(language, profile).planText(count),
    section(language, "question", question),
    section(language, "note", note),
    section(language, "queries", renderQueries(language, queryLog))
  )

export const judgePrompt = (
  language: Language,
  question: string,
  best: string,
  candidate: string,
  style: "json" | "word",
  profile?: Profile
) =>
  messages(
    style === "json" ? instructionsFor(language, profile).judgeJson : instructionsFor(language, profile).judgeWord,
    section(language, "question", question),
    section(language, "bestNote", best),
    section(language, "newNote", candidate)
  )

export const answerPrompt = (language: Language, task: TaskType, question: string, evidence: AnswerEvidence) => {
  const set = instructionsFor(language)
  switch (evidence._tag) {
    case "Note":
      return messages(
        set.answer[task].note,
        section(language, "question", question),
        section(language, "note", evidence.note.text)
      )
    case "Passages":
      return messages(
        set.answer[task].passages,
        section(language, "question", question),
        section(language, "passages", renderPassages(language, evidence.passages))
      )
    case "None":
      return messages(set.answer[task].none, section(language, "question", question))
  }
}

/** All of a prompt's text, as the simulator sees it when it parses sections. */
export const promptText = (msgs: ReadonlyArray<ChatMessage>): string => msgs.map((m) => m.content).join("\n")
