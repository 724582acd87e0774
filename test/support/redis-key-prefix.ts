import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisUrl } from './services.js';

/** A key prefix no other test (or test process) uses, so tests share one Redis server. */
export function uniqueRedisPrefix(): string {
  return `skillbox-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Every key under `prefix`, found with SCAN (KEYS would block the server for the other tests). */
export async function redisKeysUnder(prefix: string): Promise<string[]> {
  const client = new Redis(redisUrl);
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys;
  } finally {
    await client.quit();
  }
}

/** Deletes every key under `prefix`. */
export async function removeRedisPrefix(prefix: string): Promise<void> {
  const keys = await redisKeysUnder(prefix);
  if (keys.length === 0) return;
  const client = new Redis(redisUrl);
  try {
    await client.del(...keys);
  } finally {
    await client.quit();
  }
}
