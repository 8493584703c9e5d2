import type { StructuredOutput } from "../Domain/Chat.js"
import type { StructuredSupport } from "./Endpoint.js"

/**
 * Request-body fields that ask the server to constrain the reply, in the style the endpoint accepts:
 * - `structured_outputs`: vLLM ≥ 0.12 (`{"structured_outputs": {"choice": [...]}}` / `{"json": schema}`);
 * - `guided`: older vLLM (`guided_choice` / `guided_json`);
 * - `response_format`: OpenAI-style `{"type": "json_schema", "json_schema": {name, schema}}`
 *   (a choice becomes a JSON-string enum, so the reply arrives quoted; the parsers accept that);
 * - `none`: no constraint, the role's tolerant parser does the work.
 */
export const structuredFields = (
  structured: StructuredOutput | undefined,
  support: StructuredSupport
): Record<string, unknown> => {
  if (structured === undefined || support === "none") return {}
  switch (support) {
    case "structured_outputs":
      return {
        structured_outputs: structured._tag === "Choice" ? { choice: structured.choices } : { json: structured.schema }
      }
    case "guided":
      return structured._tag === "Choice" ? { guided_choice: structured.choices } : { guided_json: structured.schema }
    case "response_format":
      return {
        response_format: {
          type: "json_schema",
          json_schema: structured._tag === "Choice"
            ? { name: "choice", schema: { type: "string", enum: structured.choices } }
            : { name: structured.name, schema: structured.schema }
        }
      }
  }
}

/** The next style to try after the server rejected `support` with a 400 (auto mode walks the chain down). */
export const downgrade = (support: StructuredSupport): StructuredSupport =>
  support === "structured_outputs" ? "guided" : "none"

const contextTooLong = /maximum context length|context length|too many tokens|prompt is too long|max_model_len/i

/** vLLM's 400 for a prompt + max_tokens beyond the model's context. */
export const isContextTooLong = (message: string): boolean => contextTooLong.test(message)
