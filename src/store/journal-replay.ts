import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { ENGINE_SEMANTICS } from '../engine/semantics.js';
import type { SessionState } from '../engine/session.js';
import { step } from '../engine/step.js';
import { derivedDigest } from './journal-codec.js';
import type { JournalRecord, SessionDocument } from './session-file.js';
import { type RecordedMachine, recordedAfter } from './machine-lines.js';
import { MachineLines, storedMachine } from './stored-machine.js';

/** Why a journal's derived events are not shown from a line on: the line, and one sentence. */
export interface ReplayGap {
  line: number;
  why: string;
}

/**
 * Rebuilds the events a schema-8 journal leaves out (see journal-codec.ts), line by line in the journal's order
 * from its first: every input is stepped over the state folded so far, from the document's base, with the machine
 * the session runs; a line's derived events are stamped (this session, their seq and time from the line) and put
 * back in place, once their count and digest match the line's check. From the first line that cannot be replayed
 * (no machine, a step that throws, a check that fails) no event is made up: later lines keep only what they store
 * (their input, the facts before it, the calls it starts) and `gap` says why. Lines of older schemas keep their
 * stored events and only advance the state. A machine line switches to the machine it records (the team config or
 * limit the session was opened with then); before the first, the lines run the machine given (as the session's
 * team directory is now: journals written before machine lines). Nothing runs: step() is pure.
 */
export class JournalReplay {
  private folded: SessionState | null;
  // Whether an input was stepped (or could not be): until then a machine line can start from the base.
  private stepped = false;
  // The machine lines read so far: the machine replayed comes from the last (none: the one given).
  private readonly machines: MachineLines;
  /** The first line whose derived events could not be rebuilt, and why (null while every line could). */
  gap: ReplayGap | null = null;
  /** The last machine line read (null: none so far). */
  recorded: RecordedMachine | null = null;

  private def: MachineDefinition | null;
  // The machine given, built at the first input no machine line comes before (a journal with them needs no team directory).
  private pending: (() => MachineDefinition | null) | null;

  /** Replays `doc`'s journal with `def` (null: its machine cannot be built; a function: built when a line first needs it) from `from` (default: its base, before line 1). */
  constructor(
    private readonly doc: SessionDocument,
    def: MachineDefinition | null | (() => MachineDefinition | null),
    private readonly from: SessionState = doc.base,
    /** Whether machine lines switch the machine (false: an embedder's machineOf says what every line runs). */
    private readonly followsMachineLines = true,
  ) {
    this.pending = typeof def === 'function' ? def : null;
    this.def = typeof def === 'function' ? null : def;
    this.folded = def ? from : null;
    this.machines = new MachineLines(doc);
  }

  /** The machine the next line runs: the last machine line's, else the one given (null: it cannot be built). */
  get machine(): MachineDefinition | null {
    if (this.pending) this.build(this.pending);
    return this.def;
  }

  /** The state after the lines replayed so far (null when the machine cannot be built, or a line's input no longer fits it). */
  get state(): SessionState | null {
    return this.folded;
  }

  /** Advances over the next line (`line` is its number): fills in its derived events in place when it has some to rebuild. */
  next(record: JournalRecord, line: number): void {
    if (record.machine) return this.switchAt(record.machine, line);
    if (!record.input) return;
    if (this.pending) this.build(this.pending);
    this.stepped = true;
    const derived = this.gap === null ? record.derived : undefined;
    if (this.folded === null || this.def === null) {
      if (derived) this.gap = { line, why: this.def === null ? this.noMachine() : 'an earlier input no longer fits the team or workflow' };
      return;
    }
    let events: TroupeEvent[] | null = null;
    try {
      const result = step(this.def, this.folded, record.input);
      this.folded = result.session;
      if (derived) {
        events = [];
        for (const fx of result.effects) if (fx.type === 'emit') events.push(fx.event as TroupeEvent);
      }
    } catch (error) {
      // A team changed since in a way its old lines no longer fit.
      this.folded = null;
      if (derived) this.gap = { line, why: `replaying its input failed (${(error as Error).message.split('\n')[0]})${this.otherSemantics(derived.semantics)}` };
      return;
    }
    if (!derived || events === null) return;
    if (events.length !== derived.count || derivedDigest(events, 0, events.length, derived.version ?? 1) !== derived.digest) {
      this.gap = {
        line,
        why: `replaying its input derives ${events.length === derived.count ? 'other events than' : `${events.length} event(s) where ${derived.count}`} were published${this.otherSemantics(derived.semantics) || ' (the team or workflow changed since?)'}`,
      };
      return;
    }
    const id = this.doc.id;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      e.session_id = id;
      e.seq = derived.seq + i;
      e.at = derived.times ? derived.times[i]! : derived.at;
    }
    const facts = record.facts ?? 0;
    record.events = record.events.slice(0, facts).concat(events as unknown as JournalRecord['events'], record.events.slice(facts));
    delete record.derived;
  }

  private build(machineOf: () => MachineDefinition | null): void {
    this.pending = null;
    try {
      this.def = machineOf();
    } catch {
      this.def = null;
    }
    if (this.def === null) this.folded = null;
  }

  /** Replays the lines after machine line `line` with the machine it records. */
  private switchAt(machine: NonNullable<JournalRecord['machine']>, line: number): void {
    this.recorded = recordedAfter(this.recorded, { n: line, events: [], machine }, line);
    if (!this.followsMachineLines) return;
    this.pending = null;
    this.def = this.machines.read(machine, line);
    // Without a machine the state is lost from the next input on; one built before any input was stepped starts from the base.
    if (this.def === null) this.folded = null;
    else if (this.folded === null && !this.stepped) this.folded = this.from;
  }

  private noMachine(): string {
    return this.machines.line === null
      ? `the team in ${this.doc.team.dir} cannot be opened, so its engine cannot replay them`
      : `the team recorded at journal line ${this.machines.line} cannot be compiled, so its engine cannot replay them`;
  }

  private otherSemantics(semantics: number): string {
    return semantics === ENGINE_SEMANTICS ? '' : ` — it was written by a troupe whose engine derives events differently (semantics ${semantics}; this troupe's is ${ENGINE_SEMANTICS})`;
  }
}

/** The machine a stored session runs, as its readers replay it (default storedMachine: its workflow's plan, else its team directory); null when it cannot be built. */
export type MachineOf = (doc: SessionDocument) => MachineDefinition | null;

/**
 * A replay of a stored session's journal from its base with the machines its machine lines record (before the first,
 * storedMachine, built only when a line needs it); an embedder's `machineOf` (its team is no directory, its machine
 * maybe not what its config compiles to) gives the machine of every line instead.
 */
export function journalReplay(doc: SessionDocument, machineOf?: MachineOf): JournalReplay {
  return machineOf ? new JournalReplay(doc, () => machineOf(doc), doc.base, false) : new JournalReplay(doc, () => storedMachine(doc));
}

/** The one line a reader shows where a journal's derived events stop: from which line, and why. */
export function replayGapNote(gap: ReplayGap): string {
  return `the events of steps from journal line ${gap.line} on are not shown: ${gap.why} — their inputs are shown instead; the session resumes from its checkpoint as ever`;
}
