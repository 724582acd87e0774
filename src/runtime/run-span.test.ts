import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Attributes, context, type Span, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRuntime } from './local-runtime.js';

interface RecordedSpan {
  name: string;
  tracer: string;
  attributes: Attributes;
  ended: boolean;
}

/** Just enough of an SDK to see what the runtime reports: spans recorded in memory. */
function recordingProvider(spans: RecordedSpan[]): TracerProvider {
  return {
    getTracer(tracerName: string): Tracer {
      const startSpan = (name: string, options?: { attributes?: Attributes }): Span => {
        const record: RecordedSpan = { name, tracer: tracerName, attributes: { ...options?.attributes }, ended: false };
        spans.push(record);
        const span = trace.wrapSpanContext({
          traceId: `${'0'.repeat(31)}1`,
          spanId: `${'0'.repeat(15)}1`,
          traceFlags: 1,
        });
        return Object.assign(span, {
          setAttribute: (key: string, value: Attributes[string]) => {
            record.attributes[key] = value;
            return span;
          },
          setAttributes: (attributes: Attributes) => {
            Object.assign(record.attributes, attributes);
            return span;
          },
          end: () => {
            record.ended = true;
          },
        });
      };
      return {
        startSpan,
        startActiveSpan: ((name: string, ...rest: unknown[]) => {
          const callback = rest[rest.length - 1] as (span: Span) => unknown;
          const options = rest.length > 1 ? (rest[0] as { attributes?: Attributes }) : undefined;
          const span = startSpan(name, options);
          return context.with(trace.setSpan(context.active(), span), () => callback(span));
        }) as Tracer['startActiveSpan'],
      };
    },
  };
}

describe('workspace.run span', () => {
  const spans: RecordedSpan[] = [];
  const workspace = mkdtempSync(join(tmpdir(), 'skillbox-span-'));
  beforeAll(() => {
    trace.setGlobalTracerProvider(recordingProvider(spans));
  });
  afterAll(() => {
    trace.disable();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('wraps each run with the runtime kind, exit code, timeout flag and duration', async () => {
    const runtime = new LocalRuntime();
    const base = { workspaceRoot: workspace, cwd: workspace, env: {}, maxOutputBytes: 1024 };
    await runtime.run({ ...base, command: 'exit 3', timeoutMs: 5_000 });
    await runtime.run({ ...base, command: 'sleep 5', timeoutMs: 100 });
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({
      name: 'workspace.run',
      tracer: 'skillbox',
      ended: true,
      attributes: { 'skillbox.runtime.kind': 'local', 'skillbox.run.exit_code': 3, 'skillbox.run.timed_out': false },
    });
    expect(spans[1]?.attributes).toMatchObject({ 'skillbox.run.exit_code': 137, 'skillbox.run.timed_out': true });
    expect(spans[1]?.attributes['skillbox.run.duration_ms']).toBeGreaterThanOrEqual(100);
  });

  it('ends the span when the command is refused', async () => {
    await expect(
      new LocalRuntime().run({
        workspaceRoot: workspace,
        cwd: '/nonexistent',
        env: {},
        timeoutMs: 1_000,
        maxOutputBytes: 1,
        command: 'true',
      }),
    ).rejects.toThrow(/cwd/);
    expect(spans.at(-1)).toMatchObject({ name: 'workspace.run', ended: true });
  });
});
