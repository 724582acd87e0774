import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeResult } from '../../runtime/runtime-types.js';
import { lostRunWarning } from '../lost-run-result.js';
import type { RunLedger } from '../run-ledger.js';

/** Ledgers sharing one record (one database), as several workers would. */
export interface RunLedgerBackend {
  /** Opens a ledger on the shared record; each call may be another connection. */
  open(): Promise<RunLedger>;
  dispose?(): Promise<void>;
}

const finished: RuntimeResult = {
  stdout: 'done\n',
  stderr: '',
  exitCode: 0,
  timedOut: false,
  durationMs: 12,
  stdoutTruncated: false,
  stderrTruncated: false,
  warnings: ['a warning kept'],
};

/**
 * What every RunLedger does (run-ledger.ts), as vitest tests, with two ledgers on one record
 * standing for two workers. Leases are short and really expire: the suite sleeps past them.
 */
export function describeRunLedgerConformance(name: string, backend: () => RunLedgerBackend): void {
  describe(`${name} run ledger conformance`, () => {
    let opened: RunLedgerBackend;
    let first: RunLedger;
    let second: RunLedger;
    const leaseMs = 300;
    const unique = (label: string) => `${label}-${process.pid}-${Math.random().toString(36).slice(2)}`;

    beforeAll(async () => {
      opened = backend();
      first = await opened.open();
      second = await opened.open();
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
      await opened?.dispose?.();
    });

    it('starts an unknown id once; a second claim while its lease lives is told who runs it', async () => {
      const runId = unique('new');
      expect(await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: false })).toEqual({
        kind: 'run',
        attempt: 1,
      });
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: true })).toEqual({
        kind: 'running',
        workerId: 'a',
      });
    });

    it('answers a finished id with the recorded result, to any worker', async () => {
      const runId = unique('done');
      await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: false });
      expect(await first.finish(runId, 'a', finished)).toBe(true);
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: false })).toEqual({
        kind: 'finished',
        result: finished,
      });
      expect(await second.finish(runId, 'b', { ...finished, stdout: 'other' })).toBe(false);
      expect(await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: true })).toEqual({
        kind: 'finished',
        result: finished,
      });
    });

    it('reports a run lost once its worker stopped renewing, and keeps that answer', async () => {
      const runId = unique('lost');
      await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: false });
      await sleep(leaseMs + 150);
      const answer = await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: false });
      expect(answer).toMatchObject({ kind: 'finished', result: { exitCode: -1, lost: true } });
      expect(answer.kind === 'finished' && answer.result.warnings).toEqual([lostRunWarning]);
      // The worker that comes back cannot overwrite the verdict.
      expect(await first.finish(runId, 'a', finished)).toBe(false);
      expect(await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: true })).toEqual(answer);
    });

    it('runs a retry-safe id again once its worker stopped renewing, and fences the old worker out', async () => {
      const runId = unique('retry');
      await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: true });
      await sleep(leaseMs + 150);
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: true })).toEqual({
        kind: 'run',
        attempt: 2,
      });
      expect(await first.renew(runId, 'a', leaseMs)).toBe(false);
      expect(await first.finish(runId, 'a', finished)).toBe(false);
      expect(await second.finish(runId, 'b', finished)).toBe(true);
      expect(await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: true })).toEqual({
        kind: 'finished',
        result: finished,
      });
    });

    it('keeps a renewed lease alive past its first length', async () => {
      const runId = unique('renewed');
      await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: false });
      for (let round = 0; round < 4; round += 1) {
        await sleep(leaseMs / 2);
        expect(await first.renew(runId, 'a', leaseMs)).toBe(true);
      }
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: false })).toEqual({
        kind: 'running',
        workerId: 'a',
      });
    });

    it('forgets an abandoned claim (refused before it started): the next claim runs it', async () => {
      const runId = unique('abandoned');
      await first.claim({ runId, workerId: 'a', leaseMs, retrySafe: false });
      await second.abandon(runId, 'b');
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: false })).toMatchObject({
        kind: 'running',
      });
      await first.abandon(runId, 'a');
      expect(await second.claim({ runId, workerId: 'b', leaseMs, retrySafe: false })).toEqual({
        kind: 'run',
        attempt: 1,
      });
    });

    it('gives one run between many claims of one id at once', async () => {
      const runId = unique('race');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? first : second).claim({ runId, workerId: `w${index}`, leaseMs: 5_000, retrySafe: true }),
        ),
      );
      expect(answers.filter((answer) => answer.kind === 'run')).toHaveLength(1);
      expect(answers.filter((answer) => answer.kind === 'running')).toHaveLength(7);
    });
  });
}
