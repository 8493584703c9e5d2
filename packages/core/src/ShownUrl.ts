/**
 * A URL as it may be shown, logged or recorded: no user name or password in it, no trailing slash. Text that does not
 * parse as a URL comes back as it is (less its trailing slashes). Every endpoint a user configures (LLM servers,
 * Meilisearch, OTLP collectors) goes through this before it reaches a log line, a manifest or an API reply.
 */
export const withoutCredentials = (text: string): string => {
  if (!URL.canParse(text)) return text.replace(/\/+$/, "")
  const url = new URL(text)
  url.username = ""
  url.password = ""
  return url.href.replace(/\/+$/, "")
}
