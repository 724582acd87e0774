import { z } from 'zod';
import { nonEmptyString, objectWithMethods, optionsObject, positiveInteger } from '../config/option-schemas.js';
import { minimumSecretBytes } from './request-signature.js';

const secretError = `must be a string or Uint8Array of at least ${minimumSecretBytes} bytes (openssl rand -hex 32)`;

/** The shared secret: long enough that it cannot be guessed offline from a captured signature. */
export const secretOption = z.custom<string | Uint8Array>(
  (value) =>
    (typeof value === 'string' && Buffer.byteLength(value, 'utf8') >= minimumSecretBytes) ||
    (value instanceof Uint8Array && value.length >= minimumSecretBytes),
  { error: secretError },
);

/** `SandboxWorkerOptions`. */
export const sandboxWorkerOptionsSchema = optionsObject({
  runtime: objectWithMethods(['run', 'guestPath', 'files'], 'must be a WorkspaceRuntime (createRuntime())').optional(),
  secret: secretOption,
  host: nonEmptyString('must be a host name or address to listen on').optional(),
  port: z.int({ error: 'must be a port number (0 picks a free one)' }).min(0).max(65_535).optional(),
  workspacesFolder: nonEmptyString('must be the absolute path of a folder').optional(),
  workerId: nonEmptyString().optional(),
  maxConcurrentRuns: positiveInteger().optional(),
  maxQueuedRuns: z.int({ error: 'must be a non-negative integer' }).min(0).optional(),
  queueWaitMs: positiveInteger().optional(),
  maxRequestBytes: positiveInteger().optional(),
  signatureWindowMs: positiveInteger().optional(),
  ledger: objectWithMethods(['claim', 'renew', 'finish', 'abandon', 'close'], 'must be a RunLedger').optional(),
  runLeaseMs: z.int({ error: 'must be at least 100 ms' }).min(100, { error: 'must be at least 100 ms' }).optional(),
  custody: objectWithMethods(['acquire', 'changed', 'release', 'close'], 'must be a WorkspaceCustody').optional(),
});

/** `RemoteRuntimeOptions`. */
export const remoteRuntimeOptionsSchema = optionsObject({
  url: z.custom<string>(
    (value) => {
      if (typeof value !== 'string') return false;
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: 'must be the http(s) URL of a sandbox worker, such as http://127.0.0.1:7070' },
  ),
  secret: secretOption,
  maxRequestBytes: positiveInteger().optional(),
  maxResponseBytes: positiveInteger().optional(),
  guestRoot: nonEmptyString('must be the absolute path where commands see the workspace').optional(),
});
