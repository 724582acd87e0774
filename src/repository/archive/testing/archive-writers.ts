import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

/** One tar member as a test wants it, hostile fields included. */
export interface TarMember {
  name: string;
  /** Type flag: '0' file (default), '5' folder, '1' hard link, '2' symlink, '3'/'4' devices, '6' FIFO, 'x' pax, 'L' GNU long name. */
  type?: string;
  data?: string | Uint8Array;
  mode?: number;
  linkName?: string;
  /** ustar prefix field (joined to the name with `/`). */
  prefix?: string;
  /** A size field that differs from the data's length. */
  declaredSize?: number;
  /** Break the header checksum. */
  badChecksum?: boolean;
}

function writeString(header: Buffer, text: string, offset: number, length: number): void {
  Buffer.from(text, 'utf8').copy(header, offset, 0, length);
}

function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  writeString(header, `${value.toString(8).padStart(length - 1, '0')}\0`, offset, length);
}

function tarHeader(member: TarMember, size: number): Buffer {
  const header = Buffer.alloc(512);
  writeString(header, member.name, 0, 100);
  writeOctal(header, member.mode ?? 0o644, 100, 8);
  writeOctal(header, 0, 108, 8);
  writeOctal(header, 0, 116, 8);
  writeOctal(header, member.declaredSize ?? size, 124, 12);
  writeOctal(header, 0, 136, 12);
  header.write(member.type ?? '0', 156, 'latin1');
  writeString(header, member.linkName ?? '', 157, 100);
  header.write('ustar\0', 257, 'latin1');
  header.write('00', 263, 'latin1');
  writeString(header, member.prefix ?? '', 345, 155);
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  writeString(header, `${(member.badChecksum ? sum + 1 : sum).toString(8).padStart(6, '0')}\0 `, 148, 8);
  return header;
}

/** A tar built byte by byte, so tests can write what no well-behaved tool would. */
export function tarArchive(members: readonly TarMember[], options: { endBlocks?: number } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const member of members) {
    const data = Buffer.from(member.data ?? '');
    parts.push(tarHeader(member, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(512 * (options.endBlocks ?? 2)));
  return Buffer.concat(parts);
}

/** A pax extended-header record set (`path`, `size`, ...) as the data of an 'x' member. */
export function paxRecords(records: Record<string, string>): string {
  return Object.entries(records)
    .map(([key, value]) => {
      const body = ` ${key}=${value}\n`;
      let length = body.length + 1;
      while (`${length}${body}`.length !== length) length += 1;
      return `${length}${body}`;
    })
    .join('');
}

export function tarGzArchive(members: readonly TarMember[]): Buffer {
  return gzipSync(tarArchive(members));
}

/** One zip entry as a test wants it; every `declared…` field lies on purpose when set. */
export interface ZipMember {
  name: string;
  data?: string | Uint8Array;
  /** 0 stored, 8 deflate (default). */
  method?: number;
  /** Unix mode with the file-type bits (0o100644 a file, 0o120777 a symlink, ...); made-by is Unix when set. */
  unixMode?: number;
  flags?: number;
  declaredSize?: number;
  declaredCompressedSize?: number;
  declaredCrc?: number;
  /** A different name in the local header than in the central directory. */
  localName?: string;
  /** Central sizes and offset as 0xffffffff with the real values in a ZIP64 extra field (`'no-extra'`: without it). */
  zip64?: boolean | 'no-extra';
}

export interface ZipOptions {
  comment?: string;
  /** A ZIP64 end record and locator, the classic end record's fields all 0xffff / 0xffffffff. */
  zip64End?: { declaredCount?: number };
}

/** A zip built byte by byte: local records, then the central directory and its end record. */
export function zipArchive(members: readonly ZipMember[], options: ZipOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const data = Buffer.from(member.data ?? '');
    const method = member.method ?? 8;
    const compressed = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(member.name, 'utf8');
    const localName = Buffer.from(member.localName ?? member.name, 'utf8');
    const crc = member.declaredCrc ?? crc32(data);
    const size = member.declaredSize ?? data.length;
    const compressedSize = member.declaredCompressedSize ?? compressed.length;
    const flags = member.flags ?? 0x0800;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressedSize, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(localName.length, 26);
    locals.push(local, localName, compressed);

    const extra = Buffer.alloc(member.zip64 === true ? 28 : 0);
    if (member.zip64 === true) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(compressedSize), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(member.unixMode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(member.zip64 ? 0xffffffff : compressedSize, 20);
    central.writeUInt32LE(member.zip64 ? 0xffffffff : size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(((member.unixMode ?? 0) << 16) >>> 0, 38);
    central.writeUInt32LE(member.zip64 ? 0xffffffff : offset, 42);
    centrals.push(central, name, extra);
    offset += 30 + localName.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const comment = Buffer.from(options.comment ?? '');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(comment.length, 20);
  if (options.zip64End === undefined) {
    end.writeUInt16LE(members.length, 8);
    end.writeUInt16LE(members.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, directory, end, comment]);
  }
  end.fill(0xff, 8, 20);
  const count = BigInt(options.zip64End.declaredCount ?? members.length);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(count, 24);
  record.writeBigUInt64LE(count, 32);
  record.writeBigUInt64LE(BigInt(directory.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, directory, record, locator, end, comment]);
}
