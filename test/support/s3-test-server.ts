// s3rver (an S3-compatible server from npm, a dev dependency) started on loopback in a temporary
// folder, and an S3 client for it. s3rver ships no types: the little used here is declared below.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

export interface S3TestServer {
  client: S3Client;
  bucket: string;
  endpoint: string;
  stop(): Promise<void>;
}

export async function startS3TestServer(bucket = 'skillbox-test'): Promise<S3TestServer> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const directory = await mkdtemp(join(tmpdir(), 'skillbox-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  // s3rver accepts these fixed credentials (S3RVER/S3RVER) and path-style addressing. It stores an
  // aws-chunked body (the SDK's default streaming checksum) as it came, framing included, so the
  // checksum is sent only when an operation requires one; docs/workspace-custody.md says the same.
  const client = new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    client,
    bucket,
    endpoint,
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
