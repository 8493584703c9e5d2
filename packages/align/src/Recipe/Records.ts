import type {
  Agreement,
  AlignRole,
  CallContext,
  PairJudge,
  PairMessage,
  Passage,
  Plan,
  PreferencePair,
  Question,
  SampleRef
} from "@deepnote-rag/core"
import { answerPrompt, type ChatMessage, initPrompt, planPrompt, updatePrompt } from "@deepnote-rag/llm"
import type { SampleSlot } from "../Sampling/Slots.js"
import type { Sample } from "./Groups.js"
import type { QuestionEnv } from "./QuestionEnv.js"

/**
 * The prompts of the pairs: exactly the messages the LLM engine sends each role (its instructions for the run's
 * language and profile, then the question and its inputs), so a model trained on the pairs sees the prompts it
 * will be run with.
 */
const passagesOf = (passages: ReadonlyArray<Passage>) => passages.map((p) => ({ title: p.title, text: p.text }))

export const initMessages = (context: CallContext, question: string, passages: ReadonlyArray<Passage>) =>
  initPrompt(context.language, question, passagesOf(passages), context.config.profile)

export const planMessages = (
  context: CallContext,
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>
) =>
  planPrompt(
    context.language,
    question,
    note,
    queryLog,
    context.config.numQueries,
    context.formats.plan === "json" ? "json" : "text",
    context.config.profile
  )

export const updateMessages = (
  context: CallContext,
  question: string,
  note: string,
  passages: ReadonlyArray<Passage>
) => updatePrompt(context.language, question, note, passagesOf(passages), context.config.profile)

/** D_Ans: the vanilla-RAG prompt (the answer from the retrieved passages). */
export const answerMessages = (context: CallContext, question: string, passages: ReadonlyArray<Passage>) =>
  answerPrompt(context.language, context.config.task, question, { _tag: "Passages", passages }, context.config.profile)

/** A plan as the planner's prompt asks for it: `{"queries": [...]}` (json format), else its text. */
export const planCompletion = (context: CallContext, plan: Plan): string =>
  context.formats.plan === "json"
    ? JSON.stringify({ queries: plan.queries })
    : plan.raw.trim().length > 0
    ? plan.raw.trim()
    : plan.queries.join("\n")

const refOf = (slot: SampleSlot): SampleRef => ({
  sample: slot.sample,
  temperature: slot.temperature,
  top_p: slot.topP,
  seed: slot.seed
})

const toMessages = (messages: ReadonlyArray<ChatMessage>): [PairMessage, ...Array<PairMessage>] => {
  const [first, ...rest] = messages.map((m) => ({ role: m.role, content: m.content }))
  return [first!, ...rest]
}

/** A preference pair: the prompt, the chosen and the rejected sample's texts, and where they came from. */
export const makePair = <A, B>(input: {
  readonly role: AlignRole
  readonly questionId: string
  readonly topK: number
  readonly prompt: ReadonlyArray<ChatMessage>
  readonly chosen: Sample<A>
  readonly rejected: Sample<B>
  readonly judge: PairJudge
}): PreferencePair => ({
  prompt: toMessages(input.prompt),
  chosen: [{ role: "assistant", content: input.chosen.text.trim() }],
  rejected: [{ role: "assistant", content: input.rejected.text.trim() }],
  role: input.role,
  meta: {
    question_id: input.questionId,
    role: input.role,
    sampling: { chosen: refOf(input.chosen.slot), rejected: refOf(input.rejected.slot), top_k: input.topK },
    judge: input.judge
  }
})

/**
 * The pair a group judge's ranking makes (`rank` judging): the group's best sample chosen, its worst rejected, and
 * whether the gold answer agrees with the judge (`agreementOf`, when it can tell).
 */
export const rankedPair = <A>(
  env: Pick<QuestionEnv, "question" | "topK" | "judgeLabel">,
  role: AlignRole,
  prompt: ReadonlyArray<ChatMessage>,
  group: ReadonlyArray<Sample<A>>,
  ranking: { readonly bestId: number; readonly worstId: number },
  agreementOf: (question: Question, chosen: string, rejected: string) => Agreement | undefined
): { readonly pair: PreferencePair; readonly agreement?: Agreement } => {
  const chosen = group[ranking.bestId]!
  const rejected = group[ranking.worstId]!
  const agreement = agreementOf(env.question, chosen.text, rejected.text)
  const pair = makePair({
    role,
    questionId: env.question.id,
    topK: env.topK,
    prompt,
    chosen,
    rejected,
    judge: { method: "rank", model: env.judgeLabel, candidates: group.length, chosen: "best", rejected: "worst" }
  })
  return { pair, ...(agreement === undefined ? {} : { agreement }) }
}
