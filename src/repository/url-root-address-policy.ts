import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Address ranges a URL root may not reach unless the caller allows private addresses: a skills
 * URL (or a redirect an attacker controls) pointing at one of these would make skillbox fetch
 * from the machine itself, its network, or a cloud metadata service (169.254.169.254) on the
 * attacker's behalf. Each range carries the word the error uses.
 */
const ranges: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network")'],
  ['10.0.0.0', 8, 'ipv4', 'a private'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT (shared)'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local'],
  ['172.16.0.0', 12, 'ipv4', 'a private'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol-assignment'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation'],
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay'],
  ['192.168.0.0', 16, 'ipv4', 'a private'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved (or broadcast)'],
  ['::', 128, 'ipv6', 'an unspecified'],
  ['::1', 128, 'ipv6', 'a loopback'],
  // IPv4-mapped addresses are judged by the IPv4 address they carry (see ipv4Inside); the rest of
  // the ranges that embed an IPv4 address (IPv4-compatible, NAT64, 6to4, Teredo) are refused whole.
  ['::', 96, 'ipv6', 'an IPv4-compatible'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64'],
  ['64:ff9b:1::', 48, 'ipv6', 'a local NAT64'],
  ['100::', 64, 'ipv6', 'a discard-only'],
  ['2001::', 23, 'ipv6', 'an IETF protocol-assignment (Teredo included)'],
  ['2001:db8::', 32, 'ipv6', 'a documentation'],
  ['2002::', 16, 'ipv6', 'a 6to4'],
  ['fc00::', 7, 'ipv6', 'a unique-local (private)'],
  ['fe80::', 10, 'ipv6', 'a link-local'],
  ['fec0::', 10, 'ipv6', 'a site-local'],
  ['ff00::', 8, 'ipv6', 'a multicast'],
];

const lists = ranges.map(([network, prefix, type, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, kind };
});

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part folded in). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) carries. */
function ipv4Inside(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups.slice(0, 5).every((group) => group === 0) || groups[5] !== 0xffff) return undefined;
  const high = groups[6] as number;
  const low = groups[7] as number;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * Why an IP address may not be fetched from, as "a loopback address" and so on, or undefined for
 * a public one. Anything that is not a valid IP address is refused too.
 */
export function nonPublicAddressKind(address: string): string | undefined {
  // Brackets from a URL's host, and a zone (`fe80::1%eth0`), say nothing about the range.
  const bare = (address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address).replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 0) return 'not an IP';
  if (version === 6) {
    const mapped = ipv4Inside(bare);
    if (mapped !== undefined) {
      const inner = nonPublicAddressKind(mapped);
      return inner === undefined ? undefined : `an IPv4-mapped ${inner.replace(/^an? /, '')}`;
    }
  }
  const type = version === 4 ? 'ipv4' : 'ipv6';
  for (const entry of lists) {
    if (entry.type === type && entry.list.check(bare, type)) return entry.kind;
  }
  return undefined;
}

/** A connection refused because the host's address is not public; the message names host and address. */
export class NonPublicAddressError extends Error {
  readonly code = 'ERR_NON_PUBLIC_ADDRESS';
}

export function nonPublicAddressMessage(host: string, address: string, kind: string): string {
  const resolved = host === address ? `${address} is` : `${host} resolves to ${address},`;
  return `${resolved} ${kind} address; URL roots are fetched only from public addresses unless urlRoots.allowPrivateAddresses is set`;
}

/** Says why an address may not be reached, or undefined when it may. */
export type AddressRule = (address: string) => string | undefined;

type SingleCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;
type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/**
 * A `lookup` for http.request that resolves the host and hands the socket only addresses the rule
 * allows. The check sits here, where the socket gets the address it connects to, so a DNS answer
 * that changes between a check and the connection (DNS rebinding) cannot slip an address past it.
 */
export function addressCheckingLookup(rule: AddressRule = nonPublicAddressKind): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        (callback as SingleCallback)(error, '', 0);
        return;
      }
      const allowed = addresses.filter((entry) => rule(entry.address) === undefined);
      const first = allowed[0];
      if (first === undefined) {
        const refused = addresses[0] as LookupAddress;
        (callback as SingleCallback)(
          new NonPublicAddressError(
            nonPublicAddressMessage(hostname, refused.address, rule(refused.address) as string),
          ),
          '',
          0,
        );
        return;
      }
      if (options.all) (callback as AllCallback)(null, allowed);
      else (callback as SingleCallback)(null, first.address, first.family);
    });
  };
}
