// Counts the modules Node loads for one import of the built package, so the cost of a root import
// is a measured figure rather than a guess. ESM has no tree shaking at run time: every module an
// entry reaches through its exports is loaded, whichever names the caller uses.
//
//   node scripts/count-loaded-modules.mjs [specifier] [name]
//   node scripts/count-loaded-modules.mjs skillbox parseSkillMarkdown   (the default; needs `npm run build`)
//
// Prints the number of the package's own modules, third-party modules and node: built-ins loaded.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const specifier = process.argv[2] ?? 'skillbox';
const name = process.argv[3] ?? 'parseSkillMarkdown';

const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (url) => loaded.push(url));
port1.unref();

const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const module = await import(specifier);
if (!(name in module)) throw new Error(`${specifier} does not export ${name}`);
// Let the hook thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 100));

const packageRoot = new URL('..', import.meta.url).href;
const own = loaded.filter((url) => url.startsWith(packageRoot) && !url.includes('/node_modules/'));
const thirdParty = loaded.filter((url) => url.includes('/node_modules/'));
const builtins = loaded.filter((url) => url.startsWith('node:'));
console.log(
  `import { ${name} } from '${specifier}': ${own.length} skillbox modules, ${thirdParty.length} third-party modules, ${builtins.length} node: built-ins`,
);
if (process.argv.includes('--list')) for (const url of loaded) console.log(`  ${url}`);
