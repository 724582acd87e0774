import { Redis } from 'ioredis';
import { OptionProblems } from '../../config/option-problems.js';

/** How a Redis-backed component reaches its server: a client or a URL, and the key prefix. */
export interface RedisClientOptions {
  /** A client the caller owns (and disconnects); or give `url` and the component owns its client. */
  client?: Redis;
  /** `redis://[:password@]host:port[/db]`. */
  url?: string;
  /** Prepended to every key, so several apps or test runs share one server; default `"skillbox:"`. */
  keyPrefix?: string;
}

export function checkRedisClientOptions(
  component: string,
  options: RedisClientOptions,
): { client: Redis; ownsClient: boolean; keyPrefix: string } {
  // Plain checks, not a zod schema: the database stores load no third-party module but their driver.
  const problems = new OptionProblems(component);
  if (typeof options !== 'object' || options === null) {
    problems.add('options', 'must be an object { client } or { url }');
    problems.throwIfAny();
  }
  const keyPrefix = options.keyPrefix ?? 'skillbox:';
  if (typeof keyPrefix !== 'string' || keyPrefix === '' || /[{}\s]/.test(keyPrefix))
    problems.add(
      'keyPrefix',
      `must be a non-empty string without braces or spaces (braces are Redis hash tags); got ${JSON.stringify(keyPrefix)}`,
    );
  if (options.client !== undefined && options.url !== undefined)
    problems.add('client', 'and url are both given; give one of them');
  else if (options.client !== undefined) {
    if (!(options.client instanceof Redis)) problems.add('client', 'must be an ioredis Redis client');
  } else if (typeof options.url !== 'string' || !/^rediss?:\/\//.test(options.url))
    // The value is not shown: a URL may hold a password.
    problems.add('url', 'must be a redis:// or rediss:// URL (or pass an ioredis client as client)');
  problems.throwIfAny();
  if (options.client !== undefined) return { client: options.client, ownsClient: false, keyPrefix };
  // lazyConnect lets open() report an unreachable server instead of queueing commands for ever.
  const client = new Redis(options.url as string, { lazyConnect: true, maxRetriesPerRequest: 2 });
  // Without a listener ioredis prints every reconnect failure; the failed commands reject anyway.
  client.on('error', () => undefined);
  return { client, ownsClient: true, keyPrefix };
}
