/**
 * Imports an optional peer a test file needs, or says in one line why its tests are skipped: the
 * peer is not installed, or it does not load with the packages this run has (a cell of
 * .ci/matrix.sh swaps in ai 6 and its @ai-sdk majors, which a peer built on ai 7 cannot import).
 */
export async function importOptionalPeer<Module>(
  tests: string,
  load: () => Promise<Module>,
): Promise<Module | undefined> {
  try {
    return await load();
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    const swapped = process.env.SKILLBOX_MATRIX_MODULES
      ? `; this run swaps in packages from ${process.env.SKILLBOX_MATRIX_MODULES} (.ci/matrix.sh)`
      : '';
    console.log(`skipping the ${tests} tests: the peer does not load (${reason})${swapped}`);
    return undefined;
  }
}
