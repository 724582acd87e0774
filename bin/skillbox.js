#!/usr/bin/env node
const argv = process.argv.slice(2);

// `--version` answers without loading the commands (and their dependencies): hosts and scripts
// call it to probe for skillbox, and should not pay for the MCP SDK or the tokenizer.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { readPackageVersion } = await import('../dist/cli/package-version.js');
  process.stdout.write(`${readPackageVersion()}\n`);
} else {
  const { main } = await import('../dist/cli/main.js');
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`skillbox: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
