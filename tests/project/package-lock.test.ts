import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';

const read = (file: string) => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Record<string, any>;

// `npm install` on a fresh clone rewrites a lock file that disagrees with package.json, leaving the
// working tree dirty; these are the two ways it disagreed (issue 10, item 20).
describe('package-lock.json', () => {
  it('records exactly the versions package.json pins', () => {
    const pkg = read('package.json');
    const root = read('package-lock.json').packages[''];
    expect(root.dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(root.devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
    expect(root.optionalDependencies ?? {}).toEqual(pkg.optionalDependencies ?? {});
    expect(root.peerDependencies ?? {}).toEqual(pkg.peerDependencies ?? {});
  });

  it('holds no extraneous packages (npm install would prune them)', () => {
    const packages = read('package-lock.json').packages as Record<string, { extraneous?: boolean }>;
    expect(
      Object.entries(packages)
        .filter(([, p]) => p.extraneous)
        .map(([name]) => name),
    ).toEqual([]);
  });
});
