import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseEngineHost } from './engine-client.js';
import { buildTar } from './tar-archive.js';

describe('buildTar', () => {
  it('writes an archive GNU tar reads: owners, modes, long names and link targets through PAX', () => {
    const longName = `d/${'n'.repeat(150)}`;
    const archive = buildTar(
      [
        { kind: 'directory', path: 'd', mode: 0o750 },
        { kind: 'file', path: longName, mode: 0o640, data: Buffer.from('hello') },
        { kind: 'link', path: 'd/link', target: `../${'t'.repeat(120)}` },
      ],
      65534,
      65533,
    );
    const listed = spawnSync('tar', ['-tvf', '-', '--numeric-owner'], { input: archive, encoding: 'utf8' });
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^drwxr-x--- 65534\/65533 +0 .* d\/$/);
    expect(lines[1]).toMatch(new RegExp(`^-rw-r----- 65534/65533 +5 .* ${longName}$`));
    expect(lines[2]).toMatch(/^lrwxrwxrwx 65534\/65533 +0 .* d\/link -> \.\.\/t{120}$/);
    const content = spawnSync('tar', ['-xOf', '-', longName], { input: archive, encoding: 'utf8' });
    expect(content.stdout).toBe('hello');
  });
});

describe('parseEngineHost', () => {
  it('reads DOCKER_HOST forms, and names a bad one', () => {
    expect(parseEngineHost('unix:///run/podman/podman.sock')).toEqual({ socketPath: '/run/podman/podman.sock' });
    expect(parseEngineHost('tcp://10.0.0.2:2376')).toEqual({ host: '10.0.0.2', port: 2376 });
    expect(parseEngineHost('tcp://docker.internal')).toEqual({ host: 'docker.internal', port: 2375 });
    expect(() => parseEngineHost('ssh://user@host')).toThrow(
      /"ssh:\/\/user@host" is not unix:\/\/\/path or tcp:\/\/host:port/,
    );
  });
});
