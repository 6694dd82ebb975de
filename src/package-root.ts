import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

/** The package root (holds the shipped personas/, prompts/ and schemas/). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The team directory to use: --team when given, else the shipped V7 studio team. */
export function teamDir(option?: string): string {
  return option ? resolve(option) : PACKAGE_ROOT;
}
