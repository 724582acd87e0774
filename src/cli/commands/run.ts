import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SkillNotFoundError } from '../../repository/errors.js';
import type { ContainerRuntimeOptions } from '../../runtime/container/container-runtime.js';
import { createRuntime, RUNTIME_KINDS, type RuntimeKind } from '../../runtime/create-runtime.js';
import { assertAllowedVariable } from '../../runtime/run-environment.js';
import { createInMemoryStateView } from '../../state/in-memory-state-view.js';
import type { ToolDefinition } from '../../tools/types.js';
import { compileGlob } from '../../workspace/outputs/glob-pattern.js';
import { maxTimeoutLimitSeconds } from '../../workspace/tools/execution-options.js';
import { createExecutionTools } from '../../workspace/tools/execution-tools.js';
import type { SkillRunResult } from '../../workspace/tools/run-result.js';
import { createWorkspaceManager } from '../../workspace/workspace-manager.js';
import { type CliCommand, type CliIo, CliUsageError } from '../command.js';
import { containerFlagOptions, containerFlagsHelp, containerOptionsFromFlags } from '../container-flags.js';
import { parseCommandArguments } from '../parse-command-arguments.js';
import { openRepositoryFromArgs } from '../skill-roots.js';
import { unknownSkillHint } from '../unknown-skill-hint.js';

const usage = `Usage: skillbox run SKILL [options] -- COMMAND...

Runs one command of a skill in a fresh workspace, as the skill_run tool does, and prints the
result as JSON: {stdout, stderr, exit_code, timed_out, duration_ms, output_files, primary_output?,
warnings, limits_hit?}. The words after -- are joined with spaces into one command string run by
bash in the skill's working copy (quote them as you would for ssh):

  skillbox run python-math -- python3 scripts/fib.py 10 '>' out/fib.txt
  skillbox run python-math --output 'out/*.txt' -- 'python3 scripts/fib.py 10 > out/fib.txt'

Options:
  --root DIR          a skills folder; repeat for several (default: the standard roots)
  --runtime KIND      auto (default: the bubblewrap sandbox where it works, else local with a
                      warning), sandbox (fail if unavailable), local (no isolation) or container
                      (Docker or Podman, with --image)
${containerFlagsHelp}
  --output GLOB       files to return, e.g. 'out/*.png' or '$OUTPUT_DIR/**'; repeatable
                      (default: the files the command wrote under out/)
  --input PATH        a host file or folder copied to work/inputs/<name> first; repeatable
                      (also skill://NAME/PATH)
  --env K=V           set a variable for the command; repeatable
  --allow-env NAME    pass this variable from your environment; repeatable (none by default)
  --timeout SECONDS   kill the command and everything it started after this long (default 300)
  --network           allow network access (the sandbox has none by default)
  --ro PATH           let the command read (not write) this host file or folder, at the same
                      path; repeatable (not /, not the workspace folder)
  --keep              keep the workspace and print its path on standard error

Exit status: the command's own exit status (so scripts can test it), 124 when it timed out,
1 when it could not run (unknown skill, sandbox unavailable), 2 on bad usage.
`;

interface RunArguments {
  skill: string;
  command: string;
  roots: string[];
  runtime: RuntimeKind;
  container?: ContainerRuntimeOptions;
  outputs?: string[];
  inputs: string[];
  env: Record<string, string>;
  allowEnv: string[];
  timeoutSeconds?: number;
  network: boolean;
  readOnlyPaths: string[];
  keep: boolean;
}

function parse(args: string[]): RunArguments {
  const separator = args.indexOf('--');
  if (separator === -1)
    throw new CliUsageError('give the command after --, e.g. skillbox run python-math -- python3 scripts/fib.py 10');
  const words = args.slice(separator + 1);
  if (words.length === 0 || words.join(' ').trim() === '') throw new CliUsageError('the command after -- is empty');
  const { values, positionals } = parseCommandArguments({
    args: args.slice(0, separator),
    options: {
      root: { type: 'string', multiple: true, default: [] },
      runtime: { type: 'string', default: 'auto' },
      output: { type: 'string', multiple: true },
      input: { type: 'string', multiple: true, default: [] },
      env: { type: 'string', multiple: true, default: [] },
      'allow-env': { type: 'string', multiple: true, default: [] },
      timeout: { type: 'string' },
      network: { type: 'boolean', default: false },
      ro: { type: 'string', multiple: true, default: [] },
      keep: { type: 'boolean', default: false },
      ...containerFlagOptions,
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new CliUsageError(
      positionals.length === 0
        ? 'name the skill to run'
        : `expected one skill name before --, got ${positionals.join(' ')}`,
    );
  const runtime = values.runtime as RuntimeKind;
  if (!RUNTIME_KINDS.includes(runtime))
    throw new CliUsageError(`--runtime must be one of ${RUNTIME_KINDS.join(', ')}, got "${values.runtime}"`);
  const container = containerOptionsFromFlags(runtime, values);
  let timeoutSeconds: number | undefined;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
      throw new CliUsageError(`--timeout must be a positive number of seconds, got "${values.timeout}"`);
    if (timeoutSeconds > maxTimeoutLimitSeconds)
      throw new CliUsageError(
        `--timeout must be at most ${maxTimeoutLimitSeconds} seconds (about 24.8 days), got "${values.timeout}"`,
      );
  }
  for (const pattern of values.output ?? []) {
    try {
      compileGlob(pattern);
    } catch (error) {
      throw new CliUsageError(`--output ${(error as Error).message}`);
    }
  }
  const env: Record<string, string> = {};
  for (const entry of values.env ?? []) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new CliUsageError(`--env expects NAME=VALUE, got "${entry}"`);
    const name = entry.slice(0, equals);
    env[name] = entry.slice(equals + 1);
    try {
      assertAllowedVariable(name, env[name]);
    } catch (error) {
      throw new CliUsageError(`--env ${(error as Error).message}`);
    }
  }
  for (const name of values['allow-env'] ?? []) {
    try {
      assertAllowedVariable(name, '');
    } catch (error) {
      throw new CliUsageError(`--allow-env ${(error as Error).message}`);
    }
  }
  return {
    skill: positionals[0] as string,
    command: words.join(' '),
    roots: values.root ?? [],
    runtime,
    ...(container === undefined ? {} : { container }),
    outputs: values.output,
    inputs: values.input ?? [],
    env,
    allowEnv: values['allow-env'] ?? [],
    timeoutSeconds,
    network: values.network === true,
    readOnlyPaths: values.ro ?? [],
    keep: values.keep === true,
  };
}

/** The command's status for the shell: its own exit code, 124 on timeout (as timeout(1)), else 1. */
function exitStatusOf(result: SkillRunResult): number {
  if (result.timed_out) return 124;
  return Number.isInteger(result.exit_code) && result.exit_code >= 0 && result.exit_code <= 255 ? result.exit_code : 1;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const options = parse(args);
  const repository = await openRepositoryFromArgs(options.roots, io, 'run');
  try {
    await repository.get(options.skill);
  } catch (error) {
    if (!(error instanceof SkillNotFoundError)) throw error;
    const hint = await unknownSkillHint(repository, options.skill);
    io.stderr(
      `skillbox run: ${error.message}${hint === '' ? ';' : `.${hint}`} \`skillbox list\` shows the available names\n`,
    );
    return 1;
  }
  const readOnlyPaths = options.readOnlyPaths.map((item) => path.resolve(io.cwd, item));
  for (const [index, item] of readOnlyPaths.entries()) {
    if (
      !(await stat(item).then(
        () => true,
        () => false,
      ))
    )
      throw new CliUsageError(`--ro "${options.readOnlyPaths[index]}" does not exist`);
    if (item === path.parse(item).root)
      throw new CliUsageError('--ro / would show the whole host; name the folders the command needs');
  }
  const runtime = createRuntime({
    kind: options.runtime,
    hostFallback: true,
    ...(options.container === undefined ? {} : { container: options.container }),
  });
  const baseDir = await mkdtemp(path.join(os.tmpdir(), 'skillbox-run-'));
  const workspaces = createWorkspaceManager({ runtime, repository, baseDir, artifacts: false, ttlMs: Infinity });
  try {
    const timeout = options.timeoutSeconds ?? 300;
    const [skillRun] = createExecutionTools({
      workspaces,
      requireSkillLoaded: false,
      allowHostEnv: options.allowEnv,
      hostEnv: io.env,
      hostInputs: true,
      network: options.network,
      readOnlyPaths,
      defaultTimeoutSeconds: timeout,
      maxTimeoutSeconds: timeout,
    }) as [ToolDefinition];
    const input = skillRun.inputSchema.parse({
      skill: options.skill,
      command: options.command,
      env: options.env,
      ...(options.outputs === undefined ? {} : { output_files: options.outputs }),
      ...(options.inputs.length === 0
        ? {}
        : {
            inputs: options.inputs.map((from) => ({
              from: /^[a-z]+:\/\//i.test(from) ? from : path.resolve(io.cwd, from),
            })),
          }),
    });
    const result = (await skillRun.execute(input, {
      sessionId: 'cli',
      agentName: 'cli',
      state: createInMemoryStateView(),
    })) as SkillRunResult;
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    if (options.keep) io.stderr(`workspace kept at ${(await workspaces.workspace('cli')).root}\n`);
    return exitStatusOf(result);
  } finally {
    // close() first: a background process the command left must not outlive it or write on.
    await workspaces.close({ keepWorkspaces: options.keep });
    if (!options.keep) await rm(baseDir, { recursive: true, force: true, maxRetries: 2 });
  }
}

export const runCommand: CliCommand = {
  name: 'run',
  usage,
  run,
};
