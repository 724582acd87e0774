import { describe, expect, it } from 'vitest';
import { inSpan } from './in-span.js';
import { loadOpenTelemetryApi } from './opentelemetry-api.js';

const registrations = () =>
  Object.getOwnPropertySymbols(globalThis).filter((key) => key.description?.startsWith('opentelemetry.js.api.'));

describe('loading @opentelemetry/api', () => {
  it('is spared while nothing is registered with it, and loaded for the first span after a provider is', async () => {
    // A process that does not trace: the package is installed but no one registered anything.
    expect(registrations()).toEqual([]);
    expect(await loadOpenTelemetryApi()).toBeUndefined();
    let ran = false;
    await inSpan('before registration', {}, async () => {
      ran = true;
    });
    expect(ran).toBe(true);

    const { trace } = await import('@opentelemetry/api');
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      '@opentelemetry/sdk-trace-base'
    );
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    try {
      expect(await loadOpenTelemetryApi()).toBeDefined();
      await inSpan('after registration', {}, async () => undefined);
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['after registration']);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });
});
