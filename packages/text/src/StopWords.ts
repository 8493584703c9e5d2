/** English function words ignored by lexical matching (a common IR list, SMART-derived and trimmed). */
export const englishStopWords: ReadonlySet<string> = new Set(
  ("a about above after again against all am an and any are aren't as at be because been before being below between " +
    "both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from " +
    "further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his " +
    "how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor " +
    "not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should " +
    "shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd " +
    "they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were " +
    "weren't what what's when when's where where's which while who who's whom why why's with won't would wouldn't you " +
    "you'd you'll you're you've your yours yourself yourselves also s t d ll m re ve")
    .split(" ")
)

/** Chinese function words and punctuation-like tokens ignored by lexical matching. */
export const chineseStopWords: ReadonlySet<string> = new Set(
  ("的 了 在 是 我 有 和 就 不 人 都 一 一个 上 也 很 到 说 要 去 你 会 着 没有 看 好 自己 这 那 之 与 及 其 或 而 被 把 " +
    "为 以 于 对 由 从 等 中 吗 呢 吧 啊 哪 哪个 哪些 哪里 什么 怎么 怎样 多少 几 谁 是否 为什么 如何").split(" ")
)

export const isStopWord = (token: string): boolean => englishStopWords.has(token) || chineseStopWords.has(token)
