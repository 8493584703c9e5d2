import { Schema } from "effect"

/**
 * The answer style: `multihop` (short answer, HotpotQA/2Wiki/MuSiQue), `longform` (ASQA-style paragraph),
 * `yesno` (StrategyQA-style "yes" or "no").
 */
export const TaskType = Schema.Literal("multihop", "longform", "yesno")
export type TaskType = typeof TaskType.Type
