import { describe, expect, it } from 'vitest';
import { detectMimeType, isTextMimeType } from './mime-type.js';

const bytes = (hex: string) => Buffer.from(hex, 'hex');

describe('detectMimeType', () => {
  it('trusts the content before the name', () => {
    expect(detectMimeType('picture.txt', bytes('89504e470d0a1a0a0000'))).toBe('image/png');
    expect(detectMimeType('data.png', Buffer.from('just words\n'))).toBe('text/plain; charset=utf-8');
    expect(detectMimeType('x', Buffer.from('%PDF-1.7\n'))).toBe('application/pdf');
  });

  it('takes a text type from the name for text content', () => {
    expect(detectMimeType('r.json', Buffer.from('{"a":1}'))).toBe('application/json; charset=utf-8');
    expect(detectMimeType('t.csv', Buffer.from('a,b\n1,2\n'))).toBe('text/csv; charset=utf-8');
    expect(detectMimeType('README', Buffer.from('héllo'))).toBe('text/plain; charset=utf-8');
  });

  it('keeps zip-based office formats and falls back to octet-stream for unknown binaries', () => {
    expect(detectMimeType('doc.docx', bytes('504b0304'))).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(detectMimeType('a.zip', bytes('504b0304'))).toBe('application/zip');
    expect(detectMimeType('blob', bytes('00010203ff'))).toBe('application/octet-stream');
    expect(detectMimeType('bad.txt', bytes('c328'))).toBe('application/octet-stream');
  });

  // The ftyp box: size, 'ftyp', major brand, minor version, compatible brands.
  const ftyp = (major: string, ...compatible: string[]) => {
    const body = Buffer.from(`ftyp${major}\0\0\0\0${compatible.join('')}`, 'latin1');
    const size = Buffer.alloc(4);
    size.writeUInt32BE(body.length + 4);
    return Buffer.concat([size, body, Buffer.from('0000000866726565', 'hex')]);
  };

  it('tells ISO media files apart by their ftyp brands, not all as video/mp4', () => {
    expect(detectMimeType('photo', ftyp('avif', 'mif1', 'miaf'))).toBe('image/avif');
    expect(detectMimeType('photo', ftyp('mif1', 'mif1', 'avif'))).toBe('image/avif');
    expect(detectMimeType('IMG_0001', ftyp('heic', 'mif1', 'heic'))).toBe('image/heic');
    expect(detectMimeType('IMG_0002', ftyp('mif1', 'mif1', 'heic'))).toBe('image/heic');
    expect(detectMimeType('clip', ftyp('qt  ', 'qt  '))).toBe('video/quicktime');
    expect(detectMimeType('song', ftyp('M4A ', 'M4A ', 'mp42', 'isom'))).toBe('audio/mp4');
    expect(detectMimeType('phone', ftyp('3gp4', 'isom', '3gp4'))).toBe('video/3gpp');
    expect(detectMimeType('movie', ftyp('isom', 'isom', 'iso2', 'avc1', 'mp41'))).toBe('video/mp4');
    expect(detectMimeType('movie', ftyp('mp42', 'mp42', 'isom'))).toBe('video/mp4');
  });

  it('accepts a character cut by the sniff window as text', () => {
    expect(detectMimeType('a.txt', Buffer.from('abcé').subarray(0, 4))).toBe('text/plain; charset=utf-8');
  });

  it('knows which types are text', () => {
    expect(isTextMimeType('application/json; charset=utf-8')).toBe(true);
    expect(isTextMimeType('application/vnd.api+json')).toBe(true);
    expect(isTextMimeType('image/png')).toBe(false);
  });
});
