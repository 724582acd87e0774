import { createHash } from 'node:crypto';
import type { FetchedFile } from '../../src/hub/skill-source.js';
import { wellKnownSchemaV2 } from '../../src/hub/sources/well-known-index.js';
import { type TarMember, tarGzArchive, zipArchive } from '../../src/repository/archive/testing/archive-writers.js';
import type { LoopbackFileServer } from '../../src/repository/archive/testing/loopback-file-server.js';

/** One skill of a v0.2 site: its artifact as served, and the digest the index gives (the real one unless set). */
export interface WellKnownArtifact {
  readonly name: string;
  readonly type: 'skill-md' | 'archive';
  readonly bytes: Buffer;
  /** The file name under `/.well-known/agent-skills/` (`alpha.tar.gz`, `beta.zip`, `code-review/SKILL.md`). */
  readonly file: string;
  readonly contentType: string;
  readonly digest?: string;
  readonly description?: string;
}

function json(body: unknown) {
  return (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
}

function typed(bytes: Buffer, contentType: string) {
  return (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) });
    response.end(bytes);
  };
}

/** Serves a v0.1 site under `base` (`''` for the origin's root): the index and every file of every skill. */
export function serveWellKnownV1(
  server: LoopbackFileServer,
  base: string,
  skills: readonly { name: string; description?: string; files: readonly FetchedFile[]; listed?: string[] }[],
): void {
  server.set(
    `${base}/.well-known/skills/index.json`,
    json({
      skills: skills.map((skill) => ({
        name: skill.name,
        description: skill.description ?? `The ${skill.name} skill.`,
        files: skill.listed ?? skill.files.map((file) => file.path),
      })),
    }),
  );
  for (const skill of skills)
    for (const file of skill.files)
      server.set(`${base}/.well-known/skills/${skill.name}/${file.path}`, typed(Buffer.from(file.bytes), 'text/plain'));
}

/** Serves a v0.2 site under `base`: the index with `$schema` and digests, and every artifact. */
export function serveWellKnownV2(
  server: LoopbackFileServer,
  base: string,
  artifacts: readonly WellKnownArtifact[],
): void {
  server.set(
    `${base}/.well-known/agent-skills/index.json`,
    json({
      $schema: wellKnownSchemaV2,
      skills: artifacts.map((artifact) => ({
        name: artifact.name,
        type: artifact.type,
        description: artifact.description ?? `The ${artifact.name} skill.`,
        url: `${base}/.well-known/agent-skills/${artifact.file}`,
        digest: artifact.digest ?? `sha256:${createHash('sha256').update(artifact.bytes).digest('hex')}`,
      })),
    }),
  );
  for (const artifact of artifacts)
    server.set(`${base}/.well-known/agent-skills/${artifact.file}`, typed(artifact.bytes, artifact.contentType));
}

/** A skill's files as a .tar.gz with the files at the root, modes kept. */
export function skillTarGz(files: readonly FetchedFile[]): Buffer {
  const members: TarMember[] = files.map((file) => ({
    name: file.path,
    data: file.bytes,
    mode: file.executable ? 0o755 : 0o644,
  }));
  return tarGzArchive(members);
}

/** A skill's files as a .zip with the files at the root and Unix modes. */
export function skillZip(files: readonly FetchedFile[]): Buffer {
  return zipArchive(
    files.map((file) => ({ name: file.path, data: file.bytes, unixMode: file.executable ? 0o100755 : 0o100644 })),
  );
}
