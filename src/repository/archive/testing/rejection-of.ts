import { expect } from 'vitest';

/** The error a promise rejects with, after checking it is of the expected class. */
export async function rejectionOf<ErrorType>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => ErrorType,
): Promise<ErrorType> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  return error as ErrorType;
}
