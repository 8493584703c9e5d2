/** FNV-1a over a string, 32 bits: a seed for `seededRandom` from text (question ids, purposes). */
export const hash32 = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}
