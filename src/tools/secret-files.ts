/**
 * The names a workspace copy leaves out as a project's secrets: `.env` and its variants (`.env.local`,
 * `prod.env`; not the templates `.env.example`, `.env.sample`, `.env.template`, `.env.dist`), `.envrc`,
 * credential files (`.netrc`, `.git-credentials`, `.npmrc`, `.pypirc`), private keys (`id_rsa`…, `*.pem`,
 * `*.key`, `*.p12`, `*.pfx`) and the folders `.ssh`, `.gnupg`, `.aws`. A folder named `.env` (a Python
 * virtualenv) is copied. A workflow cannot ask for them: a workflow is config anyone can write, so its naming
 * `.env` would be no consent of the user's to hand an agent the API key.
 */
export function isSecretFile(name: string, isDirectory: boolean): boolean {
  const lower = name.toLowerCase();
  if (isDirectory) return SECRET_FOLDERS.has(lower);
  if (SECRET_NAMES.has(lower)) return true;
  if (/^id_(rsa|dsa|ecdsa|ed25519)/.test(lower) && !lower.endsWith('.pub')) return true;
  if (/\.(pem|key|p12|pfx)$/.test(lower)) return true;
  const isEnv = lower === '.env' || lower.startsWith('.env.') || lower.endsWith('.env');
  return isEnv && !ENV_TEMPLATE.test(lower);
}

const SECRET_NAMES = new Set(['.envrc', '.netrc', '_netrc', '.git-credentials', '.npmrc', '.pypirc']);
const SECRET_FOLDERS = new Set(['.ssh', '.gnupg', '.aws']);
// A template of the variables a project needs, committed to be copied: `.env.example`, `config.example.env`.
const ENV_TEMPLATE = /(^|[.\-_])(example|sample|template|dist)([.\-_]|$)/;
