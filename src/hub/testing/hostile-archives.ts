import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  type TarMember,
  tarArchive,
  type ZipMember,
  zipArchive,
} from '../../repository/archive/testing/archive-writers.js';
import type { HostileSourceContent } from './source-conformance.js';

const skillMarkdown = '---\nname: hostile\ndescription: A skill whose archive attacks the reader.\n---\n\nBody.\n';

/** Limits a harness gives its source so the size attacks below stay small and fast. */
export const hostileArchiveLimits = { maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024 } as const;

/**
 * A gzip-compressed tar holding one valid skill plus the attack, every entry under `top` (`''` for
 * none), or undefined for content an archive cannot carry (network behaviour).
 */
export function hostileTarGz(content: HostileSourceContent, top: string): Buffer | undefined {
  const prefix = top === '' ? '' : `${top}/`;
  const members: TarMember[] = [];
  if (top !== '') members.push({ name: `${top}/`, type: '5', mode: 0o755 });
  members.push({ name: `${prefix}SKILL.md`, data: skillMarkdown });
  switch (content) {
    case 'traversal':
      members.push({ name: `${prefix}../../escaped.txt`, data: 'outside' });
      break;
    case 'absolute-path':
      members.push({ name: '/tmp/skillbox-absolute.txt', data: 'absolute' });
      break;
    case 'symlink':
      members.push({ name: `${prefix}passwd`, type: '2', linkName: '/etc/passwd' });
      break;
    case 'hardlink':
      members.push({ name: `${prefix}hard`, type: '1', linkName: '/etc/passwd' });
      break;
    case 'device':
      members.push({ name: `${prefix}null`, type: '3' });
      break;
    case 'zip-bomb':
      // 16 MiB of zeros gzips to about 16 KiB: the stream expands far past maxTotalBytes.
      members.push({ name: `${prefix}zeros.bin`, data: Buffer.alloc(16 * 1024 * 1024) });
      break;
    case 'oversize-file':
      members.push({ name: `${prefix}large.bin`, data: randomBytes(hostileArchiveLimits.maxEntryBytes + 1) });
      break;
    default:
      return undefined;
  }
  return gzipSync(tarArchive(members));
}

/** The zip counterpart of hostileTarGz (no top folder: zip skill archives hold the skill at the root). */
export function hostileZip(content: HostileSourceContent): Buffer | undefined {
  const members: ZipMember[] = [{ name: 'SKILL.md', data: skillMarkdown }];
  switch (content) {
    case 'traversal':
      members.push({ name: '../../escaped.txt', data: 'outside' });
      break;
    case 'absolute-path':
      members.push({ name: '/tmp/skillbox-absolute.txt', data: 'absolute' });
      break;
    case 'symlink':
      members.push({ name: 'passwd', data: '/etc/passwd', unixMode: 0o120777 });
      break;
    case 'device':
      members.push({ name: 'null', data: '', unixMode: 0o020666 });
      break;
    case 'zip-bomb':
      members.push({ name: 'zeros.bin', data: Buffer.alloc(16 * 1024 * 1024) });
      break;
    case 'oversize-file':
      // Random bytes: a repetitive file would be refused for its compression ratio instead of its size.
      members.push({ name: 'large.bin', data: randomBytes(hostileArchiveLimits.maxEntryBytes + 1) });
      break;
    default:
      return undefined;
  }
  return zipArchive(members);
}
