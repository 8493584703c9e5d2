import { type Language, type Profile, profileOf, type PromptLayoutName } from "@deepnote-rag/core"
import type { ChatMessage } from "../Domain/Chat.js"
import { messages, section } from "./Sections.js"

/**
 * A prompt layout as a value (the profile names it: `ProfileDefinition.promptLayout`): how a role's instructions,
 * the question, the current best note and the role's own inputs become chat messages.
 */
export interface PromptLayout {
  readonly compose: (
    language: Language,
    instructions: string,
    question: string,
    note: PromptNote | undefined,
    inputs: ReadonlyArray<string>
  ) => Array<ChatMessage>
}

/** The note a role reads, and the heading its own role-first prompt gives it. */
export interface PromptNote {
  readonly body: string
  readonly heading: "note" | "bestNote"
}

/** The one system message of the shared-prefix layout; no digits (the simulator reads a count from the task). */
export const sharedSystem: Record<Language, string> = {
  en:
    `You are a research assistant who answers a question from retrieved passages, in steps: writing and updating a research note, planning searches, judging notes and answering. Each request gives the question and, once there is one, the current best note, then your task and its inputs. Follow the task exactly.`,
  zh:
    `你是一名研究助理，根据检索到的参考段落回答问题，分几步完成：撰写和更新研究笔记、规划检索、评判笔记以及作答。每个请求先给出问题，以及（如有）当前最佳笔记，然后是你的任务及其输入。请严格按照任务要求作答。`
}

/** The role's instructions as its system message, then the question, its note and its inputs (the reference's order). */
const roleFirst: PromptLayout = {
  compose: (language, instructions, question, note, inputs) =>
    messages(
      instructions,
      section(language, "question", question),
      ...(note === undefined ? [] : [section(language, note.heading, note.body)]),
      ...inputs
    )
}

/**
 * One system message for every role, then the question and the current best note (one heading for every role), then
 * the role's instructions as a `Task` section, then its inputs: the calls of different roles on one question share
 * the prefix up to the task.
 */
const sharedPrefix: PromptLayout = {
  compose: (language, instructions, question, note, inputs) =>
    messages(
      sharedSystem[language],
      section(language, "question", question),
      ...(note === undefined ? [] : [section(language, "bestNote", note.body)]),
      section(language, "task", instructions),
      ...inputs
    )
}

export const layouts: Record<PromptLayoutName, PromptLayout> = {
  "role-first": roleFirst,
  "shared-prefix": sharedPrefix
}

/** The layout a profile names; without a profile (tests, tools), the reference's role-first order. */
export const layoutOf = (profile?: Profile): PromptLayout =>
  layouts[profile === undefined ? "role-first" : profileOf(profile).promptLayout]

/**
 * What a prompt hash adds for the profile's layout: nothing for `role-first` (hashes stay as they were), the layout's
 * name and shared system messages otherwise, so a run is not resumed under another layout.
 */
export const layoutSignature = (profile: Profile): ReadonlyArray<string> =>
  profileOf(profile).promptLayout === "role-first" ? [] : ["shared-prefix", sharedSystem.en, sharedSystem.zh]
