import { resolve } from 'node:path';
import type { UploadProvider } from '../../hub/upload/provider-endpoints.js';
import { uploadSkills } from '../../hub/upload/upload-skills.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { terminalSafe } from '../terminal-safe-text.js';

const usage = `Usage: skillbox upload [--provider anthropic|openai] (--root DIR | --lock skills-lock.json) [options]

Uploads skills to a provider that runs them in its own containers (Anthropic's or OpenAI's
POST /v1/skills), and records each skill's id, version and content digest in .skillbox/uploads.json
beside the lock (or beside --root). A skill whose digest is recorded for that provider is not sent
again; a changed one goes up as a new version. Every skill is scanned first: links, special files,
hidden or bidirectional Unicode (and with --deny-scripts scripts and binaries) refuse the upload,
as does, with --lock, any difference from the lock. Nothing is sent then.

The API key is read from ANTHROPIC_API_KEY or OPENAI_API_KEY (never from the command line, where
other users of the machine could read it); it is never printed or written.

Options:
  --provider NAME   anthropic (default) or openai
  --root DIR        a folder of skill folders, or one skill folder
  --lock FILE       skills-lock.json: its installed skills, checked against it
  --to DIR          with --lock: where its skills are installed (default .agents/skills beside it)
  --skill NAME      only this skill (repeatable)
  --base-url URL    the provider's API (default https://api.anthropic.com / https://api.openai.com)
  --record FILE     the record file (default .skillbox/uploads.json beside the lock or root)
  --deny-scripts    also refuse skills with scripts, executables, binaries or unknown file types
  --json            print {"recordFile","skills":[{name,provider,status,skillId,version,digest,providerReference}]}

Exit status: 0 when every skill is uploaded or unchanged, 1 when refused or the provider failed, 2 on bad usage.
`;

async function run(args: string[], given: CliIo): Promise<number> {
  // Names and messages come from skills and from the provider: no terminal controls.
  const io: CliIo = { ...given, stdout: (text) => given.stdout(terminalSafe(text)) };
  const { values } = parseCommandArguments({
    args,
    options: {
      provider: { type: 'string', default: 'anthropic' },
      root: { type: 'string' },
      lock: { type: 'string' },
      to: { type: 'string' },
      skill: { type: 'string', multiple: true },
      'base-url': { type: 'string' },
      record: { type: 'string' },
      'deny-scripts': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: false,
    strict: true,
  });
  const provider = values.provider as string;
  if (provider !== 'anthropic' && provider !== 'openai')
    throw new CliUsageError(`--provider must be anthropic or openai; got ${JSON.stringify(provider)}`);
  if ((values.root === undefined) === (values.lock === undefined))
    throw new CliUsageError('give --root DIR or --lock skills-lock.json (one of them)');
  const variable = provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  const apiKey = io.env[variable] ?? '';
  if (apiKey === '') throw new CliUsageError(`set ${variable} to the provider's API key`);
  const result = await uploadSkills({
    provider: provider as UploadProvider,
    apiKey,
    ...(values.root !== undefined ? { root: resolve(io.cwd, values.root) } : {}),
    ...(values.lock !== undefined ? { lock: resolve(io.cwd, values.lock) } : {}),
    ...(values.to !== undefined ? { target: resolve(io.cwd, values.to) } : {}),
    ...(values.skill !== undefined ? { skills: values.skill as string[] } : {}),
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] as string } : {}),
    ...(values.record !== undefined ? { recordFile: resolve(io.cwd, values.record) } : {}),
    denyScripts: values['deny-scripts'] === true,
    ...(values.json === true
      ? {}
      : {
          onProgress: (skill) =>
            io.stdout(`${skill.status.padEnd(11)} ${skill.name} ${skill.skillId} version ${skill.version}\n`),
        }),
  });
  if (values.json === true) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout(`\nrecorded in ${result.recordFile}\n`);
  return 0;
}

export const uploadCommand: CliCommand = {
  name: 'upload',
  usage,
  run,
};
