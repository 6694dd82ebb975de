import { findBwrap } from '../../src/tools/jail-host.js';

/**
 * True when bubblewrap is not installed, so tests that run commands (always in its jail) cannot run: they
 * are skipped with one line saying so. CI installs it (.ci/run); when it is installed but cannot create
 * its namespaces, those tests fail instead, since commands would be refused.
 */
export const bwrapMissing: boolean = (await findBwrap()) === null;
if (bwrapMissing) process.stderr.write('bubblewrap (bwrap) is not installed: tests that run commands in its jail are skipped (apt-get install bubblewrap)\n');
