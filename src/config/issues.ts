import type { z } from 'zod';
import { UserError } from '../errors.js';

/** One problem found in a config file, printed as `file: field: problem — fix` (`file:line:column: problem — fix` for a place in its text). */
export interface ConfigIssue {
  file: string;
  field: string;
  problem: string;
  fix: string;
  /** Where in the file's text (a JSON syntax error), lines and columns from 1. */
  at?: { line: number; column: number };
}

/** Renders an issue on one line. */
export function formatIssue(issue: ConfigIssue): string {
  if (issue.at) return `${issue.file}:${issue.at.line}:${issue.at.column}: ${issue.problem} — ${issue.fix}`;
  const field = issue.field === '' ? '(root)' : issue.field;
  return `${issue.file}: ${field}: ${issue.problem} — ${issue.fix}`;
}

/** Joins a zod issue path as `majors[0].lead`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** A zod issue about a field that is not there at all ("expected string, received undefined"). */
const missing = (issue: z.core.$ZodIssue) => issue.code === 'invalid_type' && /received undefined/.test(issue.message);

/** A type's name with its article: "a string", "an object", "an array". */
const withArticle = (type: string) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;

function fixFor(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return missing(issue) ? `add it (${withArticle(issue.expected)})` : `change it to ${withArticle(issue.expected)}`;
    case 'invalid_value':
      return `use one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array' ? `give at least ${String(issue.minimum)} item(s)` : `use a value >= ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'array' ? `give at most ${String(issue.maximum)} item(s)` : `use a value <= ${String(issue.maximum)}`;
    case 'invalid_format':
      return 'rename it to match the required format';
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (check the spelling)`;
    default:
      return 'see the JSON Schema in schemas/ for the expected shape';
  }
}

/** Converts zod validation errors into config issues for one file. */
export function zodIssues(file: string, error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({
    file,
    field: fieldPath(issue.path),
    // zod's words for a field left out ("Invalid input: expected string, received undefined") read as a wrong value.
    problem: missing(issue) ? 'missing' : issue.message,
    fix: fixFor(issue),
  }));
}

/** Thrown when a team cannot be loaded; carries every issue found. */
export class ConfigError extends UserError {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'ConfigError';
  }
}
