import type { Profile } from "../Domain/Profile.js"
import { adaptiveNote } from "./AdaptiveNote.js"
import { deepnote } from "./DeepNote.js"
import { deepRag } from "./DeepRag.js"
import { initNote } from "./InitNote.js"
import { noRetrieval } from "./NoRetrieval.js"
import { paper } from "./Paper.js"
import type { ProfileDefinition } from "./ProfileDefinition.js"
import { renact } from "./Renact.js"
import { vanilla } from "./Vanilla.js"

/**
 * Every profile by name. The mapped type makes a name in `Profile` without a record (or the reverse) a compile error;
 * the CLI, the HTTP API, the OpenAI model list and sweeps take their choices from `Profile`, so a new profile is one
 * name, one file here, its prompts and its tests.
 */
export const profiles: { readonly [P in Profile]: ProfileDefinition } = {
  deepnote,
  paper,
  "adaptive-note": adaptiveNote,
  renact,
  deeprag: deepRag,
  "no-retrieval": noRetrieval,
  vanilla,
  "init-note": initNote
}

/** The record of a profile. */
export const profileOf = (name: Profile): ProfileDefinition => profiles[name]
