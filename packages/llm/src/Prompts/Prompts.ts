import type { AnswerEvidence, Language, Profile, TaskType } from "@deepnote-rag/core"
import type { ChatMessage } from "../Domain/Chat.js"
import { adaptiveNoteChinese, adaptiveNoteEnglish, type InstructionOverride } from "./AdaptiveNoteInstructions.js"
import { chinese, english, type InstructionSet } from "./Instructions.js"
import { layoutOf } from "./Layout.js"
import { type PromptPassage, renderPassages, renderQueries, section } from "./Sections.js"

/**
 * Prompt builders. The profile's layout (`Layout.ts`) orders the parts for prefix caching: the parts that change
 * least come first (instructions or the shared system message, the question, the note), passages or the query log last.
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
  layoutOf(profile).compose(language, instructionsFor(language, profile).init, question, undefined, [
    section(language, "passages", renderPassages(language, passages))
  ])

export const updatePrompt = (
  language: Language,
  question: string,
  note: string,
  passages: ReadonlyArray<PromptPassage>,
  profile?: Profile
) =>
  layoutOf(profile).compose(language, instructionsFor(language, profile).update, question, {
    body: note,
    heading: "note"
  }, [section(language, "passages", renderPassages(language, passages))])

export const planPrompt = (
  language: Language,
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  count: number,
  style: "text" | "json",
  profile?: Profile
) =>
  layoutOf(profile).compose(
    language,
    style === "json"
      ? instructionsFor(language, profile).planJson(count)
      : instructionsFor(language, profile).planText(count),
    question,
    { body: note, heading: "note" },
    [section(language, "queries", renderQueries(language, queryLog))]
  )

export const judgePrompt = (
  language: Language,
  question: string,
  best: string,
  candidate: string,
  style: "json" | "word",
  profile?: Profile
) =>
  layoutOf(profile).compose(
    language,
    style === "json" ? instructionsFor(language, profile).judgeJson : instructionsFor(language, profile).judgeWord,
    question,
    { body: best, heading: "bestNote" },
    [section(language, "newNote", candidate)]
  )

export const answerPrompt = (
  language: Language,
  task: TaskType,
  question: string,
  evidence: AnswerEvidence,
  profile?: Profile
) => {
  const set = instructionsFor(language)
  const layout = layoutOf(profile)
  switch (evidence._tag) {
    case "Note":
      return layout.compose(
        language,
        set.answer[task].note,
        question,
        { body: evidence.note.text, heading: "note" },
        []
      )
    case "Passages":
      return layout.compose(language, set.answer[task].passages, question, undefined, [
        section(language, "passages", renderPassages(language, evidence.passages))
      ])
    case "None":
      return layout.compose(language, set.answer[task].none, question, undefined, [])
  }
}

/** All of a prompt's text, as the simulator sees it when it parses sections. */
export const promptText = (msgs: ReadonlyArray<ChatMessage>): string => msgs.map((m) => m.content).join("\n")
