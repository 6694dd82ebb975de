import { ToolError } from './tool.js';

/** True when a buffer looks binary (a NUL byte in its first 8 KB, as git decides). */
export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, 8_192).includes(0);
}

/** A file's bytes as text, refusing binary content with a clear message. */
export function asText(data: Buffer, shown: string): string {
  if (looksBinary(data)) throw new ToolError(`"${shown}" is a binary file (${data.length} bytes); it is not shown`);
  return data.toString('utf8');
}
