import { describe, expect, it } from 'vitest';
import { parseChatArguments } from './commands/chat.js';
import { parseMcpArguments } from './commands/mcp.js';

describe('the container flags of chat and mcp', () => {
  it('give the container options with --runtime container, the engine as a socket path or an address', () => {
    expect(
      parseChatArguments(['--runtime', 'container', '--image', 'img', '--engine', '/run/x.sock']).container,
    ).toEqual({
      image: 'img',
      socketPath: '/run/x.sock',
    });
    expect(
      parseMcpArguments([
        '--profile',
        'full',
        '--runtime',
        'container',
        '--image',
        'img',
        '--engine',
        'tcp://10.0.0.2:2375',
        '--oci-runtime',
        'runsc',
      ]).container,
    ).toEqual({ image: 'img', host: 'tcp://10.0.0.2:2375', ociRuntime: 'runsc' });
    expect(
      parseChatArguments(['--runtime', 'container', '--image', 'img', '--allow-image', 'a:1', '--allow-image', 'b'])
        .container,
    ).toEqual({ image: 'img', allowedImages: ['a:1', 'b'] });
  });

  it('refuse them with another runtime, and a container runtime without an image', () => {
    expect(() => parseChatArguments(['--image', 'img'])).toThrow('--image applies only to --runtime container');
    expect(() => parseChatArguments(['--allow-image', 'img'])).toThrow(
      '--allow-image applies only to --runtime container',
    );
    expect(() => parseMcpArguments(['--profile', 'full', '--runtime', 'container'])).toThrow(
      '--runtime container needs --image IMAGE',
    );
  });
});
