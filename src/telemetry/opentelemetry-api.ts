import type * as OpenTelemetryApi from '@opentelemetry/api';

// `@opentelemetry/api` is an optional peer dependency: an application that traces has it (and
// must share its one copy with skillbox: its global registry refuses a provider registered by an
// older 1.x, so a second, newer copy would see no provider and drop every span), and one that
// does not trace should not need it. It is loaded on first use, once, and a missing package means
// no spans, not an error.
let loading: Promise<typeof OpenTelemetryApi | undefined> | undefined;

/**
 * Whether anything registered a tracer provider, context manager or propagator with the API: it
 * keeps them on a global named by its major version (`Symbol.for('opentelemetry.js.api.1')`).
 */
function registeredWithApi(): boolean {
  return Object.getOwnPropertySymbols(globalThis).some((key) => key.description?.startsWith('opentelemetry.js.api.'));
}

/**
 * The application's `@opentelemetry/api`, or undefined when it is not installed or nothing has
 * registered with it yet. Spans started before any registration go nowhere, so the package is not
 * loaded for them: a process that does not trace (a `skillbox run`, most agents) is spared its
 * ~60 files; once a provider is registered the next span loads it.
 */
export function loadOpenTelemetryApi(): Promise<typeof OpenTelemetryApi | undefined> {
  if (loading === undefined && !registeredWithApi()) return Promise.resolve(undefined);
  loading ??= import('@opentelemetry/api').then(
    (api) => api,
    () => undefined,
  );
  return loading;
}
