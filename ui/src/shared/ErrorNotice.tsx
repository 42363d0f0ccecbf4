// A refused or failed request as a person reads it: a headline chosen by the error's code,
// then the message, which says what happened and what to do.
import type { ApiError } from "../bindings";
import { errorTitle } from "../servers/present";

export function ErrorNotice({ error, testId }: { error: ApiError; testId: string }) {
  return (
    <div
      role="alert"
      data-testid={testId}
      data-code={error.code}
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:border-red-900 dark:bg-red-950"
    >
      <p className="font-semibold text-red-800 dark:text-red-200">{errorTitle(error)}</p>
      <p className="mt-1 text-red-700 dark:text-red-300">{error.message}</p>
    </div>
  );
}
