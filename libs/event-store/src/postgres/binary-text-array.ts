/** PostgreSQL's type id of `text`, the element type `array_recv` checks. */
const TEXT_OID = 25;
const HEADER_BYTES = 20;

/**
 * A one-dimensional `text[]` parameter in PostgreSQL's binary format. node-postgres sends a
 * Buffer as a binary parameter, so large elements (a batch's JSON) go as their UTF-8 bytes:
 * neither escaped into an array literal here nor unescaped by the server.
 */
export function binaryTextArray(elements: readonly string[]): Buffer {
  const lengths = elements.map((element) => Buffer.byteLength(element, 'utf8'));
  const size = lengths.reduce((total, length) => total + 4 + length, HEADER_BYTES);
  const buffer = Buffer.allocUnsafe(size);
  buffer.writeInt32BE(1, 0); // dimensions
  buffer.writeInt32BE(0, 4); // has nulls: no
  buffer.writeInt32BE(TEXT_OID, 8);
  buffer.writeInt32BE(elements.length, 12);
  buffer.writeInt32BE(1, 16); // lower bound
  let offset = HEADER_BYTES;
  elements.forEach((element, index) => {
    const length = lengths[index] ?? 0;
    buffer.writeInt32BE(length, offset);
    buffer.write(element, offset + 4, length, 'utf8');
    offset += 4 + length;
  });
  return buffer;
}
