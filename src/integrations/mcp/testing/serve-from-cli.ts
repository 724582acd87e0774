// Entry for the end-to-end test: `npx tsx` this file with the `skillbox mcp` arguments, as a host
// would start `skillbox mcp`, without building dist first.
import { main } from '../../../cli/main.js';

process.exitCode = await main(['mcp', ...process.argv.slice(2)]);
