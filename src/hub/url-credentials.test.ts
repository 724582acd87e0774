import { describe, expect, it } from 'vitest';
import { redactErrorChain, redactUrlCredentials, withoutUrlCredentials } from './url-credentials.js';

describe('URL credentials', () => {
  it('takes user information and credential parameters out of a reference, keeping the rest', () => {
    expect(withoutUrlCredentials('https://user:p@ss@host/repo.git#main')).toBe('https://host/repo.git#main');
    expect(withoutUrlCredentials('git+https://tok@host/r.git')).toBe('git+https://host/r.git');
    expect(withoutUrlCredentials('https://host/site?access_token=x&lang=en#top')).toBe('https://host/site?lang=en#top');
    expect(withoutUrlCredentials('https://host/a?X-Amz-Signature=1&X-Amz-Credential=2&author=me')).toBe(
      'https://host/a?author=me',
    );
    expect(withoutUrlCredentials('https://host/a?private_token=1')).toBe('https://host/a');
    expect(withoutUrlCredentials('owner/repo')).toBe('owner/repo');
    expect(withoutUrlCredentials('npm:@scope/pkg@^1')).toBe('npm:@scope/pkg@^1');
  });

  it('redacts them anywhere in a text, a raw @ in a password included', () => {
    expect(
      redactUrlCredentials(
        "fatal: unable to access 'https://ss-secret@127.0.0.1:1/r.git/' (from https://u:pa@ss-secret@h/x?token=abc&v=2)",
      ),
    ).toBe("fatal: unable to access 'https://***@127.0.0.1:1/r.git/' (from https://***@h/x?token=***&v=2)");
    expect(redactUrlCredentials('mail me@example.com about https://host/x')).toBe(
      'mail me@example.com about https://host/x',
    );
  });

  it('redacts an error and its causes in place', () => {
    const cause = new TypeError('cannot use https://user:secret@host/');
    const error = redactErrorChain(new Error('outer https://a:b@h/', { cause }));
    expect(error.message).toBe('outer https://***@h/');
    expect(cause.message).toBe('cannot use https://***@host/');
    expect(cause.stack).not.toContain('secret');
  });
});
