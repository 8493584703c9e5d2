/** A vector as stored in `vectors.vector`: little-endian float32 bytes (a copy, independent of the array's buffer). */
export const toBytes = (vector: Float32Array): Uint8Array => {
  const bytes = Buffer.alloc(vector.length * 4)
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4))
  return bytes
}

/** The vector of stored bytes. */
export const fromBytes = (bytes: Uint8Array): Float32Array => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const vector = new Float32Array(bytes.byteLength / 4)
  for (let i = 0; i < vector.length; i++) vector[i] = buffer.readFloatLE(i * 4)
  return vector
}
