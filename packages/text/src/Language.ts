/** The languages DeepNote tokenises, prompts and scores. */
export type Language = "en" | "zh"
