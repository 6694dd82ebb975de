import type { Persona } from './persona-schema.js';
import type { Team } from './team-schema.js';
import type { ConfigIssue } from './issues.js';
import { didYouMean } from './suggest.js';

/** A persona as far as cross-checks read it: its id, and whichever of its references its file gave validly. */
export type CheckedPersona = Pick<Persona, 'id'> & Partial<Persona>;

/**
 * Checks the references between team.json and the persona files; returns every problem. A file its schema
 * refused is checked as far as it goes (fields it lacks are skipped); whether every persona can be reached
 * is only known when everything is `complete`.
 */
export function crossCheck(
  team: Partial<Team>,
  personas: CheckedPersona[],
  teamFile: string,
  personaFile: (id: string) => string,
  broken: ReadonlySet<string> = new Set(),
  complete = true,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const byId = new Map(personas.map((p) => [p.id, p]));
  const majors = team.majors ?? [];
  const majorIds = new Set(majors.map((m) => m.id));
  const known = [...byId.keys()].join(', ');
  // Personas whose own file failed validation are already reported; do not call them unknown.
  const unknown = (file: string, field: string, id: string) => {
    if (broken.has(id)) return;
    const near = didYouMean(id, [...byId.keys()]);
    issues.push({ file, field, problem: `unknown persona "${id}"`, fix: `${near ? `did you mean "${near}"? ` : ''}use one of: ${known}` });
  };
  // handoff_to takes a persona or a whole major: "unknown persona" named half of what it takes, and the mistyped major went unnamed.
  const unknownTarget = (file: string, field: string, id: string) => {
    if (broken.has(id)) return;
    const near = didYouMean(id, [...byId.keys(), ...majorIds]);
    const fix = `${near ? `did you mean "${near}"? ` : ''}use a persona (${known}) or a major (${[...majorIds].join(', ')})`;
    issues.push({ file, field, problem: `unknown persona or major "${id}"`, fix });
  };

  const memberOf = new Map<string, string>();
  const seenMajors = new Set<string>();
  let userMajors = 0;
  majors.forEach((major, i) => {
    if (seenMajors.has(major.id)) {
      issues.push({ file: teamFile, field: `majors[${i}].id`, problem: `duplicate major "${major.id}"`, fix: 'give each major a unique id' });
    }
    seenMajors.add(major.id);
    if (major.kind === 'user') {
      userMajors++;
      if (major.personas.length > 0) {
        issues.push({ file: teamFile, field: `majors[${i}].personas`, problem: 'the user major holds no personas', fix: 'move these personas to a team major' });
      }
      return;
    }
    if (!major.lead) {
      issues.push({ file: teamFile, field: `majors[${i}].lead`, problem: 'a team major needs a lead', fix: `set "lead" to one of its personas` });
    } else if (!major.personas.includes(major.lead)) {
      issues.push({ file: teamFile, field: `majors[${i}].lead`, problem: `lead "${major.lead}" is not one of this major's personas`, fix: `add it to majors[${i}].personas or pick a listed persona` });
    }
    major.personas.forEach((id, j) => {
      const field = `majors[${i}].personas[${j}]`;
      const prior = memberOf.get(id);
      if (prior) {
        issues.push({ file: teamFile, field, problem: `persona "${id}" is in two majors (${prior} and ${major.id})`, fix: 'list each persona in exactly one major' });
        return;
      }
      memberOf.set(id, major.id);
      const persona = byId.get(id);
      if (!persona) {
        unknown(teamFile, field, id);
        return;
      }
      if (persona.major !== undefined && persona.major !== major.id) {
        issues.push({ file: personaFile(id), field: 'major', problem: `says "${persona.major}" but team.json lists it under ${major.id}`, fix: `set "major" to "${major.id}"` });
      }
    });
  });
  if (team.majors && userMajors !== 1) {
    issues.push({ file: teamFile, field: 'majors', problem: `needs exactly one major with "kind": "user" (found ${userMajors})`, fix: 'add { "id": "USER_INTERACTION", "kind": "user" }' });
  }

  for (const persona of personas) {
    if (team.majors && !memberOf.has(persona.id)) {
      issues.push({
        file: personaFile(persona.id),
        field: 'id',
        problem: `persona "${persona.id}" is in no major of team.json`,
        fix: `add it to the personas of major ${persona.major ?? '(its major)'} in team.json`,
      });
    }
    (persona.handoff_to ?? []).forEach((target, j) => {
      // With no valid majors to go by, an UPPER_CASE target may be a major: only persona ids are checked.
      const maybeMajor = team.majors === undefined && /^[A-Z]/.test(target);
      if (!byId.has(target) && !majorIds.has(target) && !maybeMajor) unknownTarget(personaFile(persona.id), `handoff_to[${j}]`, target);
    });
  }

  const [initialMajor, initialId] = (team.initial ?? '.').split('.') as [string, string];
  if (team.initial === undefined) {
    // Invalid or missing: its schema issue says so.
  } else if (!byId.has(initialId)) unknown(teamFile, 'initial', initialId);
  else if (memberOf.get(initialId) && memberOf.get(initialId) !== initialMajor) {
    issues.push({ file: teamFile, field: 'initial', problem: `"${initialId}" is in major ${memberOf.get(initialId)}, not ${initialMajor}`, fix: `write "${memberOf.get(initialId)}.${initialId}"` });
  }
  (team.pipeline ?? []).forEach((stage, i) => {
    if (!byId.has(stage.persona)) unknown(teamFile, `pipeline[${i}].persona`, stage.persona);
  });

  if (issues.length === 0 && broken.size === 0 && complete) {
    for (const id of unreachable(team as Team, personas as Persona[], initialId)) {
      issues.push({
        file: personaFile(id),
        field: 'id',
        problem: `persona "${id}" cannot be reached from ${team.initial} by any handoff_to or trigger`,
        fix: `add "${id}" (or its major) to another persona's handoff_to`,
      });
    }
  }
  return issues;
}

/** Personas no handoff chain from the initial persona can reach (triggers count as reachable from anywhere). */
function unreachable(team: Team, personas: Persona[], initial: string): string[] {
  const membersOf = new Map(team.majors.map((m) => [m.id, m.personas]));
  const all = personas.map((p) => p.id);
  const byId = new Map(personas.map((p) => [p.id, p]));
  const reached = new Set<string>([initial]);
  for (const p of personas) if (p.triggers.length > 0) reached.add(p.id);
  const todo = [...reached];
  while (todo.length > 0) {
    const persona = byId.get(todo.pop()!);
    if (!persona) continue;
    const targets = persona.handoff_to.length === 0 ? all : persona.handoff_to.flatMap((t) => membersOf.get(t) ?? [t]);
    for (const t of targets) {
      if (!reached.has(t)) {
        reached.add(t);
        todo.push(t);
      }
    }
  }
  return all.filter((id) => !reached.has(id));
}
