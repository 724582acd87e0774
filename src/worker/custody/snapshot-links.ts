/** Links followed while resolving one path; the kernel gives up at 40 as well (ELOOP). */
const maxLinkHops = 40;

/**
 * Why a snapshot's symbolic link would lead outside the workspace once every link of the snapshot
 * exists, or undefined when it stays inside. The links are resolved the way the kernel would, one
 * component at a time with every other link of the snapshot substituted on the way: checking each
 * target alone is not enough, since `b -> a/..` stays inside on paper but leaves once `a -> ..`
 * exists too. The folder a snapshot is restored into starts empty, so the snapshot's own entries
 * are all a resolution can meet.
 */
export function linkEscape(linkPath: string, links: ReadonlyMap<string, string>): string | undefined {
  const target = links.get(linkPath);
  if (target === undefined) return 'not a link of this snapshot';
  if (target === '') return 'the link target is empty';
  if (target.includes('\0')) return 'the link target holds a NUL character';
  if (target.startsWith('/')) return `the link target ${JSON.stringify(target)} is absolute`;
  const resolved = linkPath.split('/').slice(0, -1);
  const pending = target.split('/');
  let hops = 0;
  while (pending.length > 0) {
    const component = pending.shift() as string;
    if (component === '' || component === '.') continue;
    if (component === '..') {
      if (resolved.length === 0) return `the link target ${JSON.stringify(target)} leads outside the workspace`;
      resolved.pop();
      continue;
    }
    resolved.push(component);
    const next = links.get(resolved.join('/'));
    if (next === undefined) continue;
    hops += 1;
    if (hops > maxLinkHops) return `resolving ${JSON.stringify(target)} follows more than ${maxLinkHops} links`;
    if (next.startsWith('/'))
      return `the link target ${JSON.stringify(target)} passes through a link to an absolute path`;
    resolved.pop();
    pending.unshift(...next.split('/'));
  }
  return undefined;
}
