// A small table rather than a MIME package: a skill holds text, scripts and a few images, and the
// type is a hint to the host; the digest, not the type, says what the bytes are.
const byExtension: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  py: 'text/x-python',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  sh: 'text/x-shellscript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
};

/** The MIME type of a skill file by its extension; `application/octet-stream` when unknown. */
export function mimeTypeOf(path: string): string {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase();
  return (extension === undefined ? undefined : byExtension[extension]) ?? 'application/octet-stream';
}
