import type * as OpenTelemetryApi from '@opentelemetry/api';

// `@opentelemetry/api` is an optional peer dependency: an application that traces has it (and
// must share its one copy with skillbox: its global registry refuses a provider registered by an
// older 1.x, so a second, newer copy would see no provider and drop every span), and one that
// does not trace should not need it. It is loaded on first use, once, and a missing package means
// no spans, not an error.
let loading: Promise<typeof OpenTelemetryApi | undefined> | undefined;

/** The application's `@opentelemetry/api`, or undefined when it is not installed. */
export function loadOpenTelemetryApi(): Promise<typeof OpenTelemetryApi | undefined> {
  loading ??= import('@opentelemetry/api').then(
    (api) => api,
    () => undefined,
  );
  return loading;
}
