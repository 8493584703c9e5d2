import type { PendingItem } from "@deepnote-rag/store"
import type { Context, Effect } from "effect"
import { executeAlignItem } from "../Align/ExecuteAlignItem.js"
import type { EngineServices } from "./EngineServices.js"
import { executeItem } from "./ExecuteItem.js"
import type { RunPlan } from "./RunPlan.js"

/** Runs one item of any run: a question answered (`executeItem`), or an align run's question (`executeAlignItem`). */
export const executeRunItem = (
  plan: RunPlan,
  engine: Context.Context<EngineServices>,
  item: PendingItem,
  stopping: Effect.Effect<boolean>,
  options: { readonly claimed?: boolean } = {}
) =>
  plan.align === undefined
    ? executeItem(plan, engine, item, stopping, options)
    : executeAlignItem({ ...plan, align: plan.align }, engine, item, stopping, options)
