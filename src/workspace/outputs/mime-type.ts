/** Signatures checked against a file's first bytes, most specific first. */
const signatures: ReadonlyArray<[string, (bytes: Uint8Array) => boolean]> = [
  ['image/png', (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['image/jpeg', (b) => startsWith(b, [0xff, 0xd8, 0xff])],
  ['image/gif', (b) => startsWithText(b, 'GIF87a') || startsWithText(b, 'GIF89a')],
  ['image/webp', (b) => startsWithText(b, 'RIFF') && startsWithText(b.subarray(8), 'WEBP')],
  ['audio/wav', (b) => startsWithText(b, 'RIFF') && startsWithText(b.subarray(8), 'WAVE')],
  ['image/bmp', (b) => startsWithText(b, 'BM') && b.length > 14 && b[14] !== undefined && b[14] >= 12],
  ['application/pdf', (b) => startsWithText(b, '%PDF-')],
  ['application/gzip', (b) => startsWith(b, [0x1f, 0x8b])],
  ['application/x-bzip2', (b) => startsWithText(b, 'BZh')],
  ['application/x-xz', (b) => startsWith(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])],
  ['application/x-7z-compressed', (b) => startsWith(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])],
  ['application/zip', (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])],
  ['application/x-sqlite3', (b) => startsWithText(b, 'SQLite format 3\0')],
  ['application/wasm', (b) => startsWith(b, [0x00, 0x61, 0x73, 0x6d])],
  ['application/x-elf', (b) => startsWith(b, [0x7f, 0x45, 0x4c, 0x46])],
  ['audio/mpeg', (b) => startsWithText(b, 'ID3')],
  ['audio/ogg', (b) => startsWithText(b, 'OggS')],
  ['audio/flac', (b) => startsWithText(b, 'fLaC')],
];

/**
 * ISO base media files (MP4, QuickTime, HEIF, AVIF, 3GP) all start with an `ftyp` box; only its
 * brands tell them apart. The major brand decides; a generic major brand (`mif1`, `isom`, ...)
 * defers to the first compatible brand that is specific, as AVIF and HEIC files often declare
 * `mif1` first. Kept here rather than taking `file-type`: that package is asynchronous and
 * stream-based, with several dependencies, for what is a table lookup on bytes already read.
 */
const ftypBrands: Record<string, string> = {
  avif: 'image/avif',
  avis: 'image/avif',
  heic: 'image/heic',
  heix: 'image/heic',
  heim: 'image/heic',
  heis: 'image/heic',
  hevc: 'image/heic-sequence',
  hevx: 'image/heic-sequence',
  mif1: 'image/heif',
  msf1: 'image/heif-sequence',
  'qt  ': 'video/quicktime',
  'M4A ': 'audio/mp4',
  'M4B ': 'audio/mp4',
  'F4A ': 'audio/mp4',
  'M4V ': 'video/x-m4v',
  M4VH: 'video/x-m4v',
  M4VP: 'video/x-m4v',
  '3gp4': 'video/3gpp',
  '3gp5': 'video/3gpp',
  '3gp6': 'video/3gpp',
  '3gs7': 'video/3gpp',
  '3ge6': 'video/3gpp',
  '3ge7': 'video/3gpp',
  '3gg6': 'video/3gpp',
  '3g2a': 'video/3gpp2',
  '3g2b': 'video/3gpp2',
  '3g2c': 'video/3gpp2',
  'crx ': 'image/x-canon-cr3',
  jp2: 'image/jp2',
  'jp2 ': 'image/jp2',
  jpx: 'image/jpx',
  'jpx ': 'image/jpx',
  jpm: 'image/jpm',
  'jpm ': 'image/jpm',
  mjp2: 'video/mj2',
};

/** Major brands that only say "some ISO media file": the compatible brands say more. */
const genericBrands = new Set([
  'mif1',
  'msf1',
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'mp41',
  'mp42',
  'avc1',
  'dash',
  'MSNV',
]);

function isoMediaType(bytes: Uint8Array): string | undefined {
  if (!startsWithText(bytes.subarray(4), 'ftyp') || bytes.length < 12) return undefined;
  const brand = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  const major = brand(8);
  const boxSize =
    (((bytes[0] as number) << 24) |
      ((bytes[1] as number) << 16) |
      ((bytes[2] as number) << 8) |
      (bytes[3] as number)) >>>
    0;
  const end = Math.min(bytes.length, Math.max(boxSize, 16));
  const compatible: string[] = [];
  for (let offset = 16; offset + 4 <= end; offset += 4) compatible.push(brand(offset));
  if (!genericBrands.has(major) && ftypBrands[major] !== undefined) return ftypBrands[major];
  const specific = compatible.find((candidate) => !genericBrands.has(candidate) && ftypBrands[candidate] !== undefined);
  if (specific !== undefined) return ftypBrands[specific];
  return ftypBrands[major] ?? 'video/mp4';
}

/** Types by file extension: used when the content alone does not tell (text formats, unsigned binaries). */
const byExtension: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/x-ndjson',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  c: 'text/x-c',
  h: 'text/x-c',
  cpp: 'text/x-c++',
  sql: 'application/sql',
  ini: 'text/plain',
  cfg: 'text/plain',
  tex: 'application/x-tex',
  rtf: 'application/rtf',
  ics: 'text/calendar',
  vtt: 'text/vtt',
  srt: 'text/plain',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  xz: 'application/x-xz',
  bz2: 'application/x-bzip2',
  '7z': 'application/x-7z-compressed',
  wasm: 'application/wasm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  m4a: 'audio/mp4',
  m4v: 'video/x-m4v',
  avif: 'image/avif',
  heic: 'image/heic',
  heif: 'image/heif',
  '3gp': 'video/3gpp',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  epub: 'application/epub+zip',
  sqlite: 'application/x-sqlite3',
  db: 'application/x-sqlite3',
  parquet: 'application/vnd.apache.parquet',
  pkl: 'application/octet-stream',
  bin: 'application/octet-stream',
};

/** Types whose bytes are text, beyond `text/*`: these may be inlined in a tool result. */
const textApplicationTypes = new Set([
  'application/json',
  'application/jsonl',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/toml',
  'application/sql',
  'application/x-tex',
  'application/rtf',
  'image/svg+xml',
  'application/javascript',
  'application/ld+json',
]);

/** Container formats that are zip files inside: a zip signature does not overrule their extension. */
const zipBased = new Set(['docx', 'xlsx', 'pptx', 'odt', 'epub', 'jar']);

/** Bytes sniffed from the start of a file. */
export const sniffBytes = 4096;

/**
 * The MIME type of a file, from its content first and its name second. A recognised signature wins
 * (a PNG named `.txt` is a PNG); text content takes a text type from the name when the name gives one
 * (`.json`, `.csv`), else `text/plain`; a binary without a signature takes the name's binary type or
 * `application/octet-stream`. Text types carry `; charset=utf-8`.
 */
export function detectMimeType(name: string, head: Uint8Array): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  const fromName = extension === undefined ? undefined : byExtension[extension];
  const signature = signatures.find(([, test]) => test(head))?.[0] ?? isoMediaType(head);
  if (signature !== undefined) {
    if (signature === 'application/zip' && extension !== undefined && zipBased.has(extension) && fromName !== undefined)
      return fromName;
    return signature;
  }
  if (looksLikeText(head)) {
    const type = fromName !== undefined && isTextMimeType(fromName) ? fromName : 'text/plain';
    return `${type}; charset=utf-8`;
  }
  return fromName !== undefined && !isTextMimeType(fromName) ? fromName : 'application/octet-stream';
}

/** True for types whose content is text and may be inlined (parameters after `;` ignored). */
export function isTextMimeType(mimeType: string): boolean {
  const bare = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return bare.startsWith('text/') || textApplicationTypes.has(bare) || bare.endsWith('+json') || bare.endsWith('+xml');
}

/**
 * Valid UTF-8 with no NUL byte and few control characters. The last up to 3 bytes may be a character
 * cut by the sniff window, so an incomplete final sequence is allowed.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  let controls = 0;
  for (let index = 0; index < bytes.length; ) {
    const byte = bytes[index] as number;
    if (byte === 0) return false;
    if (byte < 0x80) {
      if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b)
        controls += 1;
      index += 1;
      continue;
    }
    const length =
      byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    if (length === 0) return false;
    for (let offset = 1; offset < length; offset += 1) {
      const next = bytes[index + offset];
      if (next === undefined) return true;
      if ((next & 0xc0) !== 0x80) return false;
    }
    index += length;
  }
  return controls * 20 <= bytes.length;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((value, index) => bytes[index] === value);
}

function startsWithText(bytes: Uint8Array, prefix: string): boolean {
  return startsWith(
    bytes,
    [...prefix].map((character) => character.charCodeAt(0)),
  );
}
