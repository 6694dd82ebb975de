import { COMMAND_SPECS, type CliCommandSpec } from './command-specs.js';
import { OPTIONS, optionLabel, type OptionName } from './options.js';

function columns(rows: [string, string][], indent = '  '): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`);
}

function optionRows(spec: CliCommandSpec): [string, string][] {
  return [...spec.options, 'help' as OptionName].map((o): [string, string] => {
    const [name, text] = typeof o === 'string' ? [o, OPTIONS[o].help] : o;
    return [optionLabel(name), text];
  });
}

/** `troupe --help`: every command with one line, the options of plain `troupe`, and where each command's own help is. */
export function globalHelp(): string {
  const rows = COMMAND_SPECS.map((c): [string, string] => [c.name === '' ? '(none)' : c.name, c.summary]);
  const plain = COMMAND_SPECS.find((c) => c.name === '')!;
  return [
    'usage: troupe [command] [options]',
    '',
    'commands:',
    ...columns(rows),
    '',
    `options of troupe with no command (${plain.synopsis[0]}):`,
    ...columns(optionRows(plain)),
    '',
    "each command's synopsis, options and examples: troupe <command> --help, or troupe help <command>",
    'from a clone, `npm link` once puts troupe on your PATH (or run node dist/cli.js)',
  ].join('\n');
}

/** `troupe <command> --help` (and `troupe help <command>`): its synopsis, what it does, its options, examples. */
export function commandHelp(spec: CliCommandSpec): string {
  const options = optionRows(spec);
  return [
    `troupe${spec.name ? ` ${spec.name}` : ''} — ${spec.summary}`,
    '',
    'usage:',
    ...spec.synopsis.map((line) => `  ${line}`),
    '',
    ...spec.description,
    '',
    'options:',
    ...columns(options),
    '',
    'examples:',
    ...spec.examples.map((line) => `  ${line}`),
  ].join('\n');
}
