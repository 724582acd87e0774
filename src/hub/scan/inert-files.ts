import { codeLanguageOf } from './looks-like-code.js';
import { extensionOf } from './script-kinds.js';

/** The first bytes of each image format on the inert list. */
const imageSignatures: ReadonlyArray<readonly [string, readonly string[], (bytes: Uint8Array) => boolean]> = [
  ['PNG image', ['png'], (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ['JPEG image', ['jpg', 'jpeg'], (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff])],
  ['GIF image', ['gif'], (bytes) => ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a'],
  ['WebP image', ['webp'], (bytes) => ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP'],
  ['BMP image', ['bmp'], (bytes) => ascii(bytes, 0, 2) === 'BM'],
  ['ICO image', ['ico'], (bytes) => startsWith(bytes, [0x00, 0x00, 0x01, 0x00])],
];

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.subarray(start, end)).toString('latin1');
}

/** Prose files known by their whole name, with no extension. */
const proseFileNames = new Set(['license', 'licence', 'copying', 'notice', 'readme', 'authors', 'changelog']);
const markdownExtensions = new Set(['md', 'markdown']);
const plainTextExtensions = new Set(['txt', 'text', 'rst']);
const dataExtensions = new Set(['yaml', 'yml', 'toml', 'csv', 'tsv']);

/** The image format the bytes are, when it is one on the inert list; undefined otherwise. */
export function imageFormatOf(bytes: Uint8Array): string | undefined {
  return imageSignatures.find(([, , matches]) => matches(bytes))?.[0];
}

function jsonProblem(text: string, lines: boolean): string | undefined {
  try {
    if (lines) {
      for (const line of text.split('\n')) if (line.trim() !== '') JSON.parse(line);
    } else JSON.parse(text);
    return undefined;
  } catch {
    return lines ? 'a JSON Lines file whose lines are not all JSON' : 'a .json file that is not JSON';
  }
}

function svgProblem(text: string): string | undefined {
  if (!/<svg[\s>]/i.test(text)) return 'an .svg file that is not an SVG image';
  // An SVG opened in a browser runs its scripts and event handlers.
  if (/<script[\s>]|\son[a-z]+\s*=|javascript:|<foreignObject[\s>]|<iframe[\s>]|<embed[\s>]|<object[\s>]/i.test(text))
    return 'an SVG image with script, event handlers or embedded content';
  return undefined;
}

/**
 * Why a file is not on the list of inert types that `--deny-scripts` lets through, or undefined
 * when it is on it. The list: Markdown; plain text (`.txt`, `.text`, `.rst`, and `LICENSE`,
 * `README`, ... without extension) that does not read as code; JSON and JSON Lines that parse; YAML,
 * TOML, CSV and TSV that do not read as code; PNG, JPEG, GIF, WebP, BMP and ICO images whose bytes
 * are that format; SVG without script. Everything else, known or not, is reported: an allow list,
 * so a kind of script nobody listed is refused too.
 *
 * `text` is the file decoded as UTF-8, or undefined for a binary file.
 */
export function notInertReason(path: string, bytes: Uint8Array, text: string | undefined): string | undefined {
  const extension = extensionOf(path);
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const image = imageSignatures.find(([, extensions]) => extensions.includes(extension));
  if (image !== undefined) return image[2](bytes) ? undefined : `a .${extension} file that is not a ${image[0]}`;
  if (text === undefined) return 'binary content of a type not known to be inert';
  if (markdownExtensions.has(extension)) return undefined;
  if (extension === 'json') return jsonProblem(text, false);
  if (extension === 'jsonl' || extension === 'ndjson') return jsonProblem(text, true);
  if (extension === 'svg') return svgProblem(text);
  if (
    plainTextExtensions.has(extension) ||
    dataExtensions.has(extension) ||
    (extension === '' && proseFileNames.has(name))
  ) {
    const language = codeLanguageOf(text);
    return language === undefined
      ? undefined
      : `${language} code in a file named as ${extension === '' ? 'prose' : `.${extension}`}`;
  }
  return extension === ''
    ? 'a file without an extension, not known to be inert'
    : `a .${extension} file, a type not known to be inert`;
}
