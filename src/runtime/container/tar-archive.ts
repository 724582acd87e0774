/** One member of a tar archive built for the Engine API's archive upload. */
export type TarMember =
  | { kind: 'directory'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; data: Uint8Array }
  | { kind: 'link'; path: string; target: string };

/**
 * Builds a POSIX tar (ustar, with a PAX header for names or link targets that do not fit) owned by
 * `uid:gid`: the daemon extracts uploads as root and keeps the owner in the header, so this is how
 * placed files come to belong to the container's user. Written here because the archive upload is
 * the only tar the runtime makes, and its members are few and already in memory.
 */
export function buildTar(members: readonly TarMember[], uid: number, gid: number): Buffer {
  const blocks: Buffer[] = [];
  const mtime = Math.floor(Date.now() / 1000);
  for (const member of members) {
    const data = member.kind === 'file' ? Buffer.from(member.data) : Buffer.alloc(0);
    const name = member.kind === 'directory' ? `${member.path}/` : member.path;
    const target = member.kind === 'link' ? member.target : '';
    const pax: string[] = [];
    if (Buffer.byteLength(name) > 100) pax.push(paxRecord('path', name));
    if (Buffer.byteLength(target) > 100) pax.push(paxRecord('linkpath', target));
    if (pax.length > 0) {
      const body = Buffer.from(pax.join(''), 'utf8');
      blocks.push(
        header({ name: 'PaxHeader', mode: 0o644, size: body.length, type: 'x', target: '', uid, gid, mtime }),
      );
      blocks.push(padded(body));
    }
    const type = member.kind === 'directory' ? '5' : member.kind === 'link' ? '2' : '0';
    const mode = member.kind === 'link' ? 0o777 : member.mode;
    blocks.push(
      header({
        name: name.slice(0, 100),
        mode,
        size: data.length,
        type,
        target: target.slice(0, 100),
        uid,
        gid,
        mtime,
      }),
    );
    if (data.length > 0) blocks.push(padded(data));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A PAX record: its own length in decimal counts itself, so the length is found by trying. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest) + 1;
  while (`${length}`.length + Buffer.byteLength(rest) !== length) length = `${length}`.length + Buffer.byteLength(rest);
  return `${length}${rest}`;
}

function padded(data: Buffer): Buffer {
  const size = Math.ceil(data.length / 512) * 512;
  return size === data.length ? data : Buffer.concat([data, Buffer.alloc(size - data.length)]);
}

interface HeaderFields {
  name: string;
  mode: number;
  size: number;
  type: string;
  target: string;
  uid: number;
  gid: number;
  mtime: number;
}

function header(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(512);
  const octal = (value: number, width: number) => value.toString(8).padStart(width - 1, '0');
  block.write(fields.name, 0, 100, 'utf8');
  block.write(octal(fields.mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(fields.uid, 8), 108, 'ascii');
  block.write(octal(fields.gid, 8), 116, 'ascii');
  block.write(octal(fields.size, 12), 124, 'ascii');
  block.write(octal(fields.mtime, 12), 136, 'ascii');
  block.write(fields.type, 156, 'ascii');
  block.write(fields.target, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'ascii');
  // The checksum is computed with its own field as eight spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'ascii');
  return block;
}
