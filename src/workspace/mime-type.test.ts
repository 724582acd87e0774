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
    expect(detectMimeType('doc.docx', bytes('504b0304'))).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(detectMimeType('a.zip', bytes('504b0304'))).toBe('application/zip');
    expect(detectMimeType('blob', bytes('00010203ff'))).toBe('application/octet-stream');
    expect(detectMimeType('bad.txt', bytes('c328'))).toBe('application/octet-stream');
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
