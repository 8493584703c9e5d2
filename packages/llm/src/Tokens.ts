/**
 * A deterministic token approximation shared by the client (estimates) and the simulator (usage and metrics):
 * every CJK ideograph is one token, Latin letters and digits count one token per four characters of a word,
 * every other visible character is one token, and whitespace rides on the token after it.
 * `splitTokens(text).join("") === text` always holds, so a streamed reply is exactly the text.
 */
const piece =
  /\s*(?:[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]|[\p{L}\p{N}]{1,4}|[^\s\p{L}\p{N}])|\s+$/gsu

export const splitTokens = (text: string): Array<string> => text.match(piece) ?? []

export const countTokens = (text: string): number => splitTokens(text).length

/** Per-message overhead of a chat template (role header and separators). */
export const messageOverheadTokens = 4

export const countChatTokens = (messages: ReadonlyArray<{ readonly content: string }>): number =>
  messages.reduce((sum, m) => sum + countTokens(m.content) + messageOverheadTokens, 0)
