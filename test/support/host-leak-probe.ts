import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';

const variable = 'SKILLBOX_TEST_HOST_SECRET';

/** A host file and a host environment variable planted for a sandboxed command to look for. */
export interface HostLeakProbe {
  /** Shell lines that print the variable's value and the file's text, or say the file is unreadable. */
  commands: string[];
  /** Takes the variable out of this process's environment again. */
  remove(): void;
}

/**
 * Plants a secret file in `folder` and a secret in this process's environment, for tests that hand
 * a framework's command tool skillbox's sandbox: the command must see neither.
 */
export async function plantHostSecrets(folder: string): Promise<HostLeakProbe> {
  const hostFile = join(folder, 'host-secret.txt');
  await writeFile(hostFile, 'host secret\n');
  process.env[variable] = 'visible-on-the-host';
  return {
    commands: [`echo "env=[$${variable}]"`, `cat ${hostFile} || echo "host file: unreadable"`],
    remove: () => {
      delete process.env[variable];
    },
  };
}

/** The output of a probe's commands run confined: an empty variable and an unreadable file. */
export function expectNoHostLeak(output: string | undefined): void {
  expect(output).toContain('env=[]');
  expect(output).toContain('host file: unreadable');
  expect(output).not.toContain('host secret');
}
