import { jsonOf, parseJson, show } from './data.js';
import { sizeOf } from './methods.js';
import { bail, isPlainObject, type Running, refuse, TierNative, TierObject } from './values.js';

/** Where a part's console lines go, capped as the guest caps them (lines past the cap are counted, not kept). */
export class LogSink {
  readonly lines: string[] = [];
  dropped = 0;
  constructor(
    readonly maxLines: number,
    readonly maxChars: number,
  ) {}

  /** One console line (the guest's logger: the parts joined by spaces, cut past maxChars); the length of the line before its cut. */
  write(level: string, args: unknown[], spend?: (units: number) => void): number {
    let line = (level ? `${level}: ` : '') + args.map((a) => show(a, spend)).join(' ');
    const made = line.length;
    if (line.length > this.maxChars) line = `${line.slice(0, this.maxChars)}...`;
    if (this.lines.length < this.maxLines) this.lines.push(line);
    else this.dropped += 1;
    return made;
  }

  /** The lines as the answer carries them (with the count of those not kept), or undefined when there are none. */
  finished(): string[] | undefined {
    const out = this.dropped > 0 ? [...this.lines, `(${this.dropped} more console lines not kept)`] : this.lines;
    return out.length > 0 ? out : undefined;
  }
}

// A namespace object (console, JSON, Math): its methods by name; other own names give up.
class Namespace extends TierObject {
  constructor(private readonly members: Record<string, unknown>) {
    super();
  }
  get(key: string): unknown {
    return Object.hasOwn(this.members, key) ? this.members[key] : refuse(`global member ${key}`);
  }
}

/** The guest's console for one part: log/info/debug to the lines as they are, warn and error with their level. */
export function consoleFor(sink: LogSink): TierObject {
  const logger = (level: string) =>
    new TierNative(level || 'log', (_receiver, args, running) => {
      running.spend(sink.write(level, args, (units) => running.spend(units)));
    });
  const log = logger('');
  return new Namespace({ log, info: logger(''), debug: logger(''), warn: logger('warn'), error: logger('error') });
}

const numbers = (args: unknown[]): number[] => args.map((a) => (typeof a === 'number' ? a : bail('Math of a value that is not a number')));
const math1 = (fn: (x: number) => number) => new TierNative('math', (_r, args) => fn(numbers(args.slice(0, 1))[0] ?? Number.NaN));

// Object.keys and friends on data only (own enumerable keys, in the order both engines keep by the standard).
function ownData(v: unknown): Record<string, unknown> {
  return Array.isArray(v) || isPlainObject(v) ? (v as Record<string, unknown>) : bail('Object.keys of a value that is not plain data');
}

// A list of an object's own keys (values, entries), its making counted against the step budget.
function listed(list: unknown[], running: Running): unknown[] {
  running.spend(sizeOf(list));
  return list;
}

/** JSON, Math, Object and Array as workflow code uses them (exact in both engines: no pow, no random, no locale). */
export const GLOBAL_NAMESPACES: Record<string, TierObject> = {
  Object: new Namespace({
    keys: new TierNative('keys', (_r, args, running) => listed(Object.keys(ownData(args[0])), running)),
    values: new TierNative('values', (_r, args, running) => listed(Object.values(ownData(args[0])), running)),
    entries: new TierNative('entries', (_r, args, running) => listed(Object.entries(ownData(args[0])), running)),
  }),
  Array: new Namespace({ isArray: new TierNative('isArray', (_r, args) => Array.isArray(args[0])) }),
  JSON: new Namespace({
    parse: new TierNative('parse', (_r, args, running) => {
      if (args.length > 1) bail('JSON.parse with a reviver');
      running.spend(sizeOf(args[0]));
      return parseJson(args[0]);
    }),
    stringify: new TierNative('stringify', (_r, args, running) => {
      if (args[1] !== undefined && args[1] !== null) bail('JSON.stringify with a replacer');
      return jsonOf(args[0], args[2], undefined, (units) => running.spend(units));
    }),
  }),
  Math: new Namespace({
    max: new TierNative('max', (_r, args) => Math.max(...numbers(args))),
    min: new TierNative('min', (_r, args) => Math.min(...numbers(args))),
    floor: math1(Math.floor),
    ceil: math1(Math.ceil),
    round: math1(Math.round),
    abs: math1(Math.abs),
    trunc: math1(Math.trunc),
    sign: math1(Math.sign),
  }),
};
