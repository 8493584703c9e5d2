import { Schema } from "effect"

/** A language DeepNote writes prompts, notes and metrics for. */
export const Language = Schema.Literal("en", "zh")
export type Language = typeof Language.Type

/** A configured language: `auto` means "detect from the question". */
export const LanguageSetting = Schema.Literal("auto", "en", "zh")
export type LanguageSetting = typeof LanguageSetting.Type
