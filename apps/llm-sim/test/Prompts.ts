/** Role-shaped prompts (the section layout `@deepnote-rag/llm` writes) over a few HotpotQA-like passages, for tests. */

export const passages = [
  [
    "Jaws (film)",
    "Jaws is a 1975 American thriller film directed by Steven Spielberg. It is based on the 1974 novel by Peter Benchley. The film stars Roy Scheider as a police chief. It was filmed on Martha's Vineyard in Massachusetts. Jaws was the highest-grossing film until Star Wars."
  ],
  [
    "Steven Spielberg",
    "Steven Spielberg is an American filmmaker. He was born in Cincinnati, Ohio, on December 18, 1946. Spielberg directed Jaws, Close Encounters of the Third Kind and E.T. He co-founded the studio DreamWorks in 1994."
  ],
  ["Cincinnati", "Cincinnati is a city in the U.S. state of Ohio, on the Ohio River. It was founded in 1788."],
  [
    "Peter Benchley",
    "Peter Benchley was an American author, best known for the novel Jaws. He co-wrote the screenplay of the film. Benchley was born in New York City in 1940."
  ]
] as const

export const chinesePassages = [
  ["鲁迅", "鲁迅，原名周树人，浙江绍兴人，是中国现代文学的奠基人之一。他的代表作有《狂人日记》和《阿Q正传》。"],
  ["狂人日记", "《狂人日记》是鲁迅创作的第一篇白话小说，发表于1918年的《新青年》杂志。"],
  ["绍兴", "绍兴是浙江省的一个地级市，以黄酒和名人故居闻名。"],
  ["新青年", "《新青年》是陈独秀于1915年在上海创办的杂志。"]
] as const

const renderPassages = (rows: ReadonlyArray<readonly [string, string]>) =>
  rows.map(([title, text], i) => `[${i + 1}] Title: ${title}\n${text}`).join("\n\n")

export const question = "Where was the director of the film Jaws born?"

export const note = [
  "Jaws is a 1975 American thriller film directed by Steven Spielberg.",
  "Spielberg directed Jaws, Close Encounters of the Third Kind and E.T.",
  "Steven Spielberg is an American filmmaker."
].join("\n")

const closeCall = "Peter Benchley: Peter Benchley was an American author, best known for the novel Jaws."

/** The user message of each role's prompt (the system message only carries instructions). */
export const rolePrompts = {
  init: `### Question\n${question}\n\n### Passages\n${renderPassages(passages)}\n`,
  update: `### Question\n${question}\n\n### Note\n${note}\n\n### Passages\n${renderPassages(passages.slice(1))}\n`,
  plan: `### Question\n${question}\n\n### Note\n${note}\n\n### Queries already asked\n1. ${question}\n`,
  // a close call: the new sentence's relevance sits just above the judge's threshold
  judge:
    `### Question\n${question}\n\n### Note 1 (current best)\n${note}\n\n### Note 2 (candidate)\n${note}\n${closeCall}\n`,
  answer: `### Question\n${question}\n\n### Note\n${note}\nHe was born in Cincinnati, Ohio, on December 18, 1946.\n`
} as const

/** System messages that ask for the formats the simulator's roles answer in. */
export const systems = {
  init: "Write a note.",
  update: "Update the note.",
  plan: `Plan 2 new search queries. Reply as JSON: {"queries": ["…"]}`,
  judge: `Is note 2 better? Reply as JSON: {"status": "True"} or {"status": "False"}`,
  answer: "Answer in a few words."
} as const
