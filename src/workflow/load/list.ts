import { relative } from 'node:path';
import { assertDirInside, readConfigText } from '../../config/safe-read.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { workflowNames } from './locate.js';

/** A workflow as `troupe workflows` and `/workflow` list it. */
export interface WorkflowEntry {
  name: string;
  description: string;
  /** Where it is, as a path to show. */
  where: string;
  shipped: boolean;
  /** Set when the file cannot be read or is not valid JSON (validate says more). */
  broken?: string;
}

/** Every workflow in the workflow directories with its description (read without validating the whole file). */
export function listWorkflows(dirs: readonly string[], cwd: string): WorkflowEntry[] {
  return workflowNames(dirs).map(({ name, location }) => {
    const shipped = location.file.startsWith(PACKAGE_ROOT) && !location.file.startsWith(cwd);
    const where = relative(cwd, location.file) || location.file;
    try {
      if (location.home !== null && location.dir !== location.home) assertDirInside(location.home, location.dir, `${name}/`);
      const raw = JSON.parse(readConfigText(location.dir, location.file)) as { description?: unknown };
      return { name, description: typeof raw.description === 'string' ? raw.description : '', where, shipped };
    } catch (error) {
      return { name, description: '', where, shipped, broken: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
    }
  });
}
