// Makes a workspace from a directory in a child process that the sparse-copy test runs under a file size limit
// (prlimit --fsize), so a copy that writes a sparse file whole fails there instead of filling the disk.
// Prints one JSON line: the error's class and message, or what was copied.
// Usage: sparse-copy-child.ts <root> <from>
import { createWorkspace } from '../../src/tools/workspace.js';

const [root, from] = process.argv.slice(2);
try {
  const ws = await createWorkspace({ root: root!, name: 'sparse', from: from! });
  process.stdout.write(`${JSON.stringify({ copied: ws.dir })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).constructor.name, message: (error as Error).message })}\n`);
}
