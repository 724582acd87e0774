import type { S3Client } from '@aws-sdk/client-s3';
import { OptionProblems } from '../../config/option-problems.js';
import { SnapshotNotFoundError } from './custody-errors.js';
import { checkSnapshotDigest, type WorkspaceSnapshotStore } from './snapshot-store.js';

/** Options of `createS3SnapshotStore`: the caller's S3 client, the bucket and a key prefix. */
export interface S3SnapshotStoreOptions {
  /** An S3 client the caller made (region, endpoint, credentials) and owns. */
  client: S3Client;
  bucket: string;
  /** Put before every key (`<prefix><digest>.tar`); default `"skillbox/workspace-snapshots/"`. */
  prefix?: string;
}

type S3Module = typeof import('@aws-sdk/client-s3');
let s3Module: Promise<S3Module> | undefined;

// The SDK is an optional peer dependency: loaded when a store is used, so importing custody needs it
// only where S3 is chosen.
function loadS3(): Promise<S3Module> {
  s3Module ??= import('@aws-sdk/client-s3');
  return s3Module;
}

function isNotFound(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NotFound' || failure.name === 'NoSuchKey' || failure.$metadata?.httpStatusCode === 404;
}

/**
 * Snapshots as S3 objects `<prefix><digest>.tar`. No conditional write is needed (many
 * S3-compatible servers have none): a key names one content, so two workers putting the same digest
 * write the same bytes, and which snapshot is current is decided in PostgreSQL.
 */
export function createS3SnapshotStore(options: S3SnapshotStoreOptions): WorkspaceSnapshotStore {
  const problems = new OptionProblems('createS3SnapshotStore');
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { client, bucket, prefix? }');
    problems.throwIfAny();
  }
  if (typeof options.client?.send !== 'function') problems.add('client', 'must be an S3Client from @aws-sdk/client-s3');
  if (typeof options.bucket !== 'string' || options.bucket === '') problems.add('bucket', 'must be a bucket name');
  const prefix = options.prefix ?? 'skillbox/workspace-snapshots/';
  if (typeof prefix !== 'string' || prefix.startsWith('/') || prefix.includes('..'))
    problems.add('prefix', `must be a key prefix without a leading "/" or ".."; got ${JSON.stringify(prefix)}`);
  problems.throwIfAny();
  const { client, bucket } = options;
  const key = (digest: string) => `${prefix}${digest}.tar`;
  const description = `S3 bucket ${JSON.stringify(bucket)} under ${JSON.stringify(prefix)}`;

  const has = async (digest: string): Promise<boolean> => {
    checkSnapshotDigest('S3SnapshotStore.has', digest);
    const { HeadObjectCommand } = await loadS3();
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key(digest) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  };

  return {
    description,
    has,
    async put(digest, bytes, byteLength) {
      checkSnapshotDigest('S3SnapshotStore.put', digest);
      if (await has(digest)) return;
      const [{ PutObjectCommand }, { Readable }] = await Promise.all([loadS3(), import('node:stream')]);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key(digest),
          Body: Readable.from(bytes),
          ContentLength: byteLength,
        }),
      );
    },
    async open(digest) {
      checkSnapshotDigest('S3SnapshotStore.open', digest);
      const { GetObjectCommand } = await loadS3();
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key(digest) }));
        return object.Body as AsyncIterable<Uint8Array>;
      } catch (error) {
        if (isNotFound(error)) throw new SnapshotNotFoundError(digest, description);
        throw error;
      }
    },
    async delete(digest) {
      checkSnapshotDigest('S3SnapshotStore.delete', digest);
      const { DeleteObjectCommand } = await loadS3();
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key(digest) }));
    },
    async close() {},
  };
}
